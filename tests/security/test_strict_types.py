"""Wrong JSON types, bad query parameters and oversized lists: a 400 naming the field.

DRF coerced what it could (`threshold: true` became 1.0, `description: 0` became "0"),
the paginators and the `detected` filter fell back to their defaults on junk, and only
`context` had a length cap.
"""

from __future__ import annotations

import pytest

from tests.fixtures.examples import EIFFEL

pytestmark = pytest.mark.django_db

URL = "/v1/verifications"


def _fields(response, status: int = 400) -> list[str]:
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"] == "application/problem+json"
    return [e["field"] for e in response.json()["errors"]]


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"threshold": True}, "threshold"),
        ({"threshold": "0.5"}, "threshold"),
        ({"wait": False}, "wait"),
        ({"query": 5}, "query"),
        ({"response": 1950}, "response"),
        ({"model": {}}, "model"),
        ({"mode": 1}, "mode"),
        ({"decision": ["x"]}, "decision"),
        ({"passage_ids": ["p1", 2]}, "passage_ids.1"),
        ({"callback_url": 5}, "callback_url"),
        ({"knowledge_base": True}, "knowledge_base"),
    ],
)
def test_a_wrong_json_type_is_a_400_not_coerced(client_a, patch, field):
    assert field in _fields(client_a.post(URL, EIFFEL.request(**patch), format="json"))


def test_a_wrong_type_inside_a_message_is_a_400(client_a):
    messages = [{"role": "user", "content": "q", "name": 7}, {"role": "assistant", "content": "a"}]
    assert "messages.0.name" in _fields(client_a.post(URL, {"messages": messages}, format="json"))


def test_feedback_outcome_must_be_a_string(client_a):
    job = client_a.post(URL, EIFFEL.request(), format="json").json()["id"]
    response = client_a.post(f"{URL}/{job}/feedback", {"outcome": ["correct"]}, format="json")
    assert _fields(response) == ["outcome"]


def test_a_knowledge_base_description_of_0_is_a_400(client_a):
    body = {"name": "Docs", "description": 0}
    assert _fields(client_a.post("/v1/knowledge-bases", body, format="json")) == ["description"]


def test_a_webhook_is_active_of_1_is_a_400(client_a):
    body = {"url": "http://127.0.0.1:9/hook", "events": ["verification.completed"], "is_active": 1}
    assert "is_active" in _fields(client_a.post("/v1/webhook-endpoints", body, format="json"))


def test_a_provider_test_with_model_as_an_object_is_a_400(client_a, fake_llm):
    body = {
        "name": "Local",
        "model_prefix": "openai/",
        "model_names": ["primary"],
        "api_base": fake_llm.api_base,
        "api_key": "sk-test",
    }
    provider = client_a.post("/v1/llm-providers", body, format="json").json()["id"]
    response = client_a.post(f"/v1/llm-providers/{provider}/test", {"model": {}}, format="json")
    assert _fields(response) == ["model"]
    assert fake_llm.requests == []


def test_chat_stream_must_be_a_boolean(client_a):
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": "false"}
    response = client_a.post("/v1/chat/completions", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "stream"


# --- query parameters ---------------------------------------------------------------


@pytest.mark.parametrize("value", ["", "xml", "CSV"])
def test_an_unknown_billing_format_is_a_400(client_a, value):
    response = client_a.get(f"/v1/billing/reports/2026-01?format={value}")
    assert _fields(response) == ["format"]


def test_a_known_billing_format_still_works(client_a):
    response = client_a.get("/v1/billing/reports/2026-01?format=csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("detected=yes", "detected"),
        ("detected=2", "detected"),
        ("limit=abc", "limit"),
        ("limit=0", "limit"),
        ("limit=-5", "limit"),
        ("limit=1000000", "limit"),
        ("limit=%2B5", "limit"),
        ("cursor=not-a-cursor", "cursor"),
        ("cursor=cD1qdW5r", "cursor"),  # base64 of "p=junk": well formed, junk position
    ],
)
def test_a_bad_verification_list_parameter_is_a_400(client_a, query, field):
    assert _fields(client_a.get(f"{URL}?{query}")) == [field]


def test_good_list_parameters_still_work(client_a):
    client_a.post(URL, EIFFEL.request(), format="json")
    client_a.post(URL, EIFFEL.request(query="again"), format="json")
    page = client_a.get(f"{URL}?limit=1&detected=false").json()
    assert page["results"] == []
    page = client_a.get(f"{URL}?limit=1").json()
    assert len(page["results"]) == 1
    assert client_a.get(page["next"]).status_code == 200


@pytest.mark.parametrize(
    ("query", "field"),
    [("offset=-1", "offset"), ("offset=x", "offset"), ("limit=x", "limit"), ("limit=0", "limit")],
)
def test_a_bad_knowledge_base_page_parameter_is_a_400(client_a, query, field):
    assert _fields(client_a.get(f"/v1/knowledge-bases?{query}")) == [field]


# --- headers and list caps ------------------------------------------------------------


def test_a_7000_character_idempotency_key_is_a_400(client_a):
    response = client_a.post(URL, EIFFEL.request(), format="json", HTTP_IDEMPOTENCY_KEY="k" * 7000)
    assert _fields(response) == ["Idempotency-Key"]


def test_10000_messages_are_refused(client_a):
    messages = [{"role": "user", "content": "q"}] * 9_999 + [{"role": "assistant", "content": "a"}]
    assert _fields(client_a.post(URL, {"messages": messages}, format="json")) == ["messages"]


def test_10000_chat_messages_are_refused(client_a):
    body = {"model": "m", "messages": [{"role": "user", "content": "q"}] * 10_000}
    response = client_a.post("/v1/chat/completions", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "messages"


def test_10000_content_parts_are_refused(client_a):
    parts = [{"type": "text", "text": "q"}] * 10_000
    messages = [{"role": "user", "content": parts}, {"role": "assistant", "content": "a"}]
    response = client_a.post(URL, {"messages": messages}, format="json")
    assert _fields(response) == ["messages.0.content"]


def test_more_passage_ids_than_the_passage_cap_are_refused(client_a):
    response = client_a.post(URL, EIFFEL.request(passage_ids=["p"] * 1001), format="json")
    problem = response.json()
    assert _fields(response) == ["passage_ids"]
    assert "1000" in problem["errors"][0]["message"]
