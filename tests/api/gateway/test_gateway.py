"""The OpenAI-compatible gateway: forward, verify against tool messages, return with headers."""

from __future__ import annotations

import json

import pytest

from tenants.models import Policy
from tests.conftest import client_for
from tests.fixtures.llm import configure_llm
from verification.models import LLMCallRecord, UsageRecord

CONVERSATION = [
    {"role": "system", "content": "Answer from the tool results."},
    {"role": "user", "content": "How tall is the Eiffel Tower?"},
    {"role": "tool", "tool_call_id": "c1", "content": "The Eiffel Tower is 330 metres tall."},
]


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_gateway_verifies_the_upstream_answer_against_tool_messages(
    start_worker, tenant_a, fake_llm
):
    tenant, token = tenant_a
    configure_llm(tenant, fake_llm)
    fake_llm.script("The Eiffel Tower is 300 metres tall.")
    start_worker()
    response = client_for(token).post(
        "/v1/chat/completions",
        {"model": "openai/primary", "messages": CONVERSATION},
        format="json",
        HTTP_X_TRUTHLENS_MODE="lightweight",
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["object"] == "chat.completion"
    assert body["truthlens"]["detected"] is True
    assert any("300" in s["text"] for s in body["truthlens"]["spans"])
    assert "Warning" in body["choices"][0]["message"]["content"]
    assert response["X-TruthLens-Detected"] == "true"
    assert body["usage"]["prompt_tokens"] == 20
    usage = UsageRecord.objects.get()
    assert usage.llm_calls == 1
    assert LLMCallRecord.objects.get().role == "gateway"


@pytest.mark.django_db
def test_a_conversation_without_context_passes_through(tenant_a, fake_llm):
    tenant, token = tenant_a
    configure_llm(tenant, fake_llm)
    fake_llm.script("Hello there!")
    response = client_for(token).post(
        "/v1/chat/completions", {"messages": [{"role": "user", "content": "hi"}]}, format="json"
    )
    assert response.status_code == 200
    assert response["X-TruthLens-Detected"] == "unknown"
    assert response.json()["choices"][0]["message"]["content"] == "Hello there!"


@pytest.mark.django_db
def test_the_gateway_needs_an_upstream_llm(client_a):
    no_llm = client_a.post("/v1/chat/completions", {"messages": CONVERSATION}, format="json")
    assert no_llm.status_code == 400
    assert no_llm.json()["errors"][0]["field"] == "model"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("header", "stream"),
    [("premium", False), ("premium", True), ("turbo", False)],
)
def test_a_mode_header_the_policy_refuses_is_a_400_before_any_upstream_call(
    tenant_a, fake_llm, header, stream
):
    tenant, token = tenant_a
    configure_llm(tenant, fake_llm)
    Policy.objects.create(tenant=tenant, document={"allowed_modes": ["lightweight", "standard"]})
    fake_llm.script("The Eiffel Tower is 300 metres tall.")
    response = client_for(token).post(
        "/v1/chat/completions",
        {"messages": CONVERSATION, "stream": stream},
        format="json",
        HTTP_X_TRUTHLENS_MODE=header,
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "mode"
    assert fake_llm.requests == []  # refused up front: the tenant pays for no upstream call


def _events(response) -> list:
    body = b"".join(response.streaming_content).decode()
    return [line.removeprefix("data: ") for line in body.split("\n\n") if line.startswith("data: ")]


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_streaming_forwards_chunks_then_sends_the_verdict(start_worker, tenant_a, fake_llm):
    tenant, token = tenant_a
    configure_llm(tenant, fake_llm)
    fake_llm.script("The Eiffel Tower is 300 metres tall.")
    start_worker()
    response = client_for(token).post(
        "/v1/chat/completions",
        {"messages": CONVERSATION, "stream": True},
        format="json",
        HTTP_X_TRUTHLENS_MODE="lightweight",
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "text/event-stream"
    events = _events(response)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
    assert text == "The Eiffel Tower is 300 metres tall."
    assert len(chunks) > 3  # it really arrived in pieces
    verdict = chunks[-1]["truthlens"]
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert verdict["detected"] is True
    assert any("300" in s["text"] for s in verdict["spans"])
    call = LLMCallRecord.objects.get()
    assert call.prompt_tokens == 20
    assert call.completion_tokens == 10


@pytest.mark.django_db
def test_streaming_without_context_passes_through_with_no_verdict(client_a, tenant_a, fake_llm):
    configure_llm(tenant_a.tenant, fake_llm)
    fake_llm.script("Hello there friend")
    response = client_a.post(
        "/v1/chat/completions",
        {"messages": [{"role": "user", "content": "hi"}], "stream": True},
        format="json",
    )
    events = _events(response)
    final = json.loads(events[-2])
    assert final["truthlens"]["reason"] == "no context"


@pytest.mark.django_db
def test_an_upstream_failure_is_a_502_in_openai_and_problem_shape(client_a, tenant_a, fake_llm):
    from tests.fixtures.fake_llm import Reply

    configure_llm(tenant_a.tenant, fake_llm)
    fake_llm.script(*[Reply(status=500)] * 5)
    response = client_a.post("/v1/chat/completions", {"messages": CONVERSATION}, format="json")
    assert response.status_code == 502  # the gateway's upstream failed, after its retries
    body = response.json()
    assert body["error"]["type"] == "api_error"
    assert body["error"]["code"] == "upstream_error"
    assert body["status"] == 502
    assert body["type"].endswith("/upstream-error")
