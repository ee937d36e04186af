"""Lone UTF-16 surrogates (`"\\ud83d"` in JSON) in any text field: a 400 naming the field.

JSON can spell half a surrogate pair; Python keeps it as a lone surrogate that no later
step can encode (the request fingerprint, jsonb, the error renderer echoing a choice),
which used to be a 500. The parser refuses it once, for every endpoint.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fixtures.examples import EIFFEL
from verification.models import VerificationJob

pytestmark = pytest.mark.django_db

LONE = "\ud83d"
URL = "/v1/verifications"


def _post(client, url: str, body: Any, method: str = "POST"):
    # json.dumps escapes the surrogate as `\ud83d`, exactly what a hostile client sends
    return client.generic(method, url, json.dumps(body).encode(), content_type="application/json")


def _messages(role: str = "user", content: str = "When was it built?", **extra: str) -> list:
    return [
        {"role": "tool", "content": EIFFEL.context[0]},
        {"role": role, "content": content, **extra},
        {"role": "assistant", "content": EIFFEL.response},
    ]


# (body, the field the 400 names) for every text field of POST /v1/verifications
VERIFICATION_CASES = [
    (EIFFEL.request(context=[f"The tower {LONE}"]), "context.0"),
    (EIFFEL.request(context=f"one passage {LONE}"), "context"),
    (EIFFEL.request(query=f"when {LONE}"), "query"),
    (EIFFEL.request(response=f"In 1950 {LONE}"), "response"),
    (EIFFEL.request(model=f"gpt{LONE}"), "model"),
    (EIFFEL.request(mode=LONE), "mode"),
    (EIFFEL.request(decision=LONE), "decision"),
    (EIFFEL.request(knowledge_base=f"kb_{LONE}"), "knowledge_base"),
    (EIFFEL.request(callback_url=f"http://127.0.0.1/{LONE}"), "callback_url"),
    (EIFFEL.request(passage_ids=["p1", f"p{LONE}"]), "passage_ids.1"),
    (EIFFEL.request(metadata={"note": f"a{LONE}"}), "metadata.note"),
    (EIFFEL.request(metadata={f"k{LONE}": "v"}), "metadata.k\\ud83d"),
    (EIFFEL.request(metadata={"deep": [{"x": LONE}]}), "metadata.deep.0.x"),
    ({"messages": _messages(content=f"When {LONE}")}, "messages.1.content"),
    ({"messages": _messages(role=LONE)}, "messages.1.role"),
    ({"messages": _messages(name=LONE)}, "messages.1.name"),
    (
        {"messages": _messages(content=[{"type": "text", "text": LONE}])},  # type: ignore[arg-type]
        "messages.1.content.0.text",
    ),
]


def _assert_names(response, field: str) -> None:
    assert response.status_code == 400, response.content[:300]
    assert response["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert [e["field"] for e in problem["errors"]] == [field]
    assert "surrogate" in problem["errors"][0]["message"]


@pytest.mark.parametrize(("body", "field"), VERIFICATION_CASES)
def test_a_lone_surrogate_in_a_verification_field_is_a_400_naming_it(client_a, body, field):
    _assert_names(_post(client_a, URL, body), field)
    assert VerificationJob.objects.count() == 0


def test_a_lone_surrogate_in_the_feedback_outcome_is_a_400(client_a):
    job_id = _post(client_a, URL, EIFFEL.request()).json()["id"]
    url = f"/v1/verifications/{job_id}/feedback"
    _assert_names(_post(client_a, url, {"outcome": LONE}), "outcome")
    _assert_names(_post(client_a, url, {"outcome": "correct", "comment": LONE}), "comment")


def test_a_lone_surrogate_in_the_web_search_provider_is_a_400(client_a):
    body = {"provider": LONE, "api_key": "k"}
    _assert_names(_post(client_a, "/v1/web-search", body, method="PUT"), "provider")


@pytest.mark.parametrize(
    ("messages", "field"),
    [
        ([{"role": LONE, "content": "hi"}], "messages.0.role"),
        ([{"role": "user", "content": f"hi {LONE}"}], "messages.0.content"),
    ],
)
def test_a_lone_surrogate_in_chat_messages_is_a_400_naming_it(client_a, messages, field):
    response = _post(client_a, "/v1/chat/completions", {"model": "m", "messages": messages})
    assert response.status_code == 400, response.content[:300]
    assert response.json()["error"]["param"] == field


def test_a_surrogate_pair_is_ordinary_text(client_a):
    response = _post(client_a, URL, EIFFEL.request(query="when \ud83d\ude00"))
    assert response.status_code == 202, response.content[:300]
    assert VerificationJob.objects.get().query == "when \U0001f600"


# --- property: any Unicode in any text field gives a 2xx or a 4xx, never a 5xx ----------

ANY_CHAR = st.characters(exclude_categories=())  # surrogates (Cs) included
ANY_TEXT = st.one_of(
    st.text(ANY_CHAR, max_size=12),
    st.builds(lambda a, b: a + LONE + b, st.text(ANY_CHAR, max_size=4), st.text(max_size=4)),
)

TEXT_FIELDS = {
    "context": lambda t: EIFFEL.request(context=[t]),
    "context_string": lambda t: EIFFEL.request(context=t),
    "query": lambda t: EIFFEL.request(query=t),
    "response": lambda t: EIFFEL.request(response=t),
    "model": lambda t: EIFFEL.request(model=t),
    "mode": lambda t: EIFFEL.request(mode=t),
    "decision": lambda t: EIFFEL.request(decision=t),
    "knowledge_base": lambda t: EIFFEL.request(knowledge_base=t),
    "callback_url": lambda t: EIFFEL.request(callback_url=t),
    "passage_ids": lambda t: EIFFEL.request(passage_ids=[t, "p2"]),
    "metadata_key": lambda t: EIFFEL.request(metadata={t: "v"}),
    "metadata_value": lambda t: EIFFEL.request(metadata={"k": t}),
    "messages_content": lambda t: {"messages": _messages(content=t)},
    "messages_role": lambda t: {"messages": _messages(role=t)},
    "messages_name": lambda t: {"messages": _messages(name=t)},
}


@pytest.mark.parametrize("field", sorted(TEXT_FIELDS))
def test_any_unicode_in_a_verification_text_field_is_never_a_5xx(client_a, field):
    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(text=ANY_TEXT)
    def check(text):
        response = _post(client_a, URL, TEXT_FIELDS[field](text))
        assert 200 <= response.status_code < 500, (text, response.content[:300])

    check()


@pytest.mark.parametrize("where", ["role", "content", "model"])
def test_any_unicode_in_gateway_chat_messages_is_never_a_5xx(client_a, where):
    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(text=ANY_TEXT)
    def check(text):
        message = {"role": "user", "content": "hi", where: text} if where != "model" else {}
        body = {"model": text if where == "model" else "m", "messages": [message or _user()]}
        for url in ("/v1/chat/completions", "/v1/messages"):
            response = _post(client_a, url, {**body, "max_tokens": 5})
            assert 200 <= response.status_code < 500, (url, text, response.content[:300])

    check()


def _user() -> dict:
    return {"role": "user", "content": "hi"}
