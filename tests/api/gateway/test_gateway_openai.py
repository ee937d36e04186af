"""The gateway through the official `openai` client, with a local fake upstream.

Each test drives `OpenAI(base_url=<live server>/v1, api_key=<TruthLens key>)` as a
user would, and reads what reached the upstream from the fake's request log.
"""

from __future__ import annotations

import json

import openai
import pytest

from tenants.models import Policy
from tests.fixtures.fake_llm import Reply
from tests.fixtures.llm import configure_llm
from verification.models import VerificationJob

EIFFEL_DOC = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris. "
    "It was built from 1887 to 1889 as the entrance arch to the 1889 World's Fair, "
    "and it is 330 metres tall."
)
QUESTION = [{"role": "user", "content": "When was the Eiffel Tower built?"}]
# the live server's request threads must not keep connections to the test database
pytestmark = pytest.mark.usefixtures("short_lived_connections")
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather of a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
TOOL_CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
}


@pytest.fixture
def sdk(live_server, tenant_a, fake_llm):
    """(the official client pointed at the gateway, the fake upstream, the tenant)."""
    tenant, token = tenant_a
    configure_llm(tenant, fake_llm)
    client = openai.OpenAI(base_url=f"{live_server.url}/v1", api_key=token, max_retries=0)
    return client, fake_llm, tenant


@pytest.fixture
def quick_wait(settings, monkeypatch):
    """No worker in these tests: do not wait for a verdict that cannot come."""
    monkeypatch.setitem(settings.TRUTHLENS, "GATEWAY_WAIT_SECONDS", 0.2)


@pytest.mark.django_db(transaction=True)
def test_every_chat_parameter_reaches_the_upstream(sdk):
    # given
    client, fake, _ = sdk
    fake.script("Hello!")
    # when
    reply = client.chat.completions.create(
        model="openai/primary",
        messages=[{"role": "user", "content": "hi"}],
        temperature=0.3,
        top_p=0.9,
        stop=["\n\n"],
        seed=7,
        presence_penalty=0.1,
        frequency_penalty=0.2,
        max_tokens=64,
        logprobs=True,
        top_logprobs=2,
        logit_bias={"50256": -100},
        user="end-user-42",
        metadata={"team": "search"},
        store=False,
        parallel_tool_calls=False,
        tools=[WEATHER_TOOL],
        tool_choice="auto",
        extra_body={"custom_sampler": {"min_p": 0.05}},
    )
    # then
    sent = fake.requests[-1]
    assert sent["temperature"] == 0.3
    assert sent["top_p"] == 0.9
    assert sent["stop"] == ["\n\n"]
    assert sent["seed"] == 7
    assert sent["presence_penalty"] == 0.1
    assert sent["frequency_penalty"] == 0.2
    assert sent["max_tokens"] == 64
    assert sent["logprobs"] is True
    assert sent["top_logprobs"] == 2
    assert sent["logit_bias"] == {"50256": -100}
    assert sent["user"] == "end-user-42"
    assert sent["metadata"] == {"team": "search"}
    assert sent["store"] is False
    assert sent["parallel_tool_calls"] is False
    assert sent["tool_choice"] == "auto"
    assert sent["tools"] == [WEATHER_TOOL]
    assert sent["custom_sampler"] == {"min_p": 0.05}  # unknown: forwarded in the body as sent
    assert "truthlens" not in sent
    assert reply.choices[0].message.content == "Hello!"


@pytest.mark.django_db(transaction=True)
def test_the_gateway_imposes_no_sampling_defaults(sdk):
    client, fake, _ = sdk
    fake.script("Hello!")
    client.chat.completions.create(model="openai/primary", messages=QUESTION)
    sent = fake.requests[-1]
    assert "temperature" not in sent
    assert "max_tokens" not in sent


@pytest.mark.django_db(transaction=True)
def test_unknown_fields_cannot_steer_litellm(sdk):
    """A body field named like a litellm argument is forwarded as data, never obeyed."""
    client, fake, _ = sdk
    fake.script("Hello!")
    client.chat.completions.create(
        model="openai/primary",
        messages=QUESTION,
        extra_body={"api_base": "http://attacker.invalid/v1", "mock_response": "pwned"},
    )
    assert fake.requests[-1]["api_base"] == "http://attacker.invalid/v1"  # reached our upstream


@pytest.mark.django_db(transaction=True)
def test_tool_calls_round_trip_unverified(sdk):
    # given: a grounded conversation whose model answers with a tool call
    client, fake, _ = sdk
    fake.script(Reply(tool_calls=[TOOL_CALL]))
    # when
    reply = client.chat.completions.create(
        model="openai/primary",
        messages=[{"role": "system", "content": f"Context: {EIFFEL_DOC}"}, *QUESTION],
        tools=[WEATHER_TOOL],
    )
    # then: the call comes back as the upstream sent it, with nothing verified
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.tool_calls[0].id == "call_1"
    assert choice.message.tool_calls[0].function.name == "get_weather"
    assert json.loads(choice.message.tool_calls[0].function.arguments) == {"city": "Paris"}
    truthlens = reply.model_extra["truthlens"]
    assert truthlens["verified"] is False
    assert truthlens["reason"] == "tool_calls"
    assert VerificationJob.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_the_next_turn_sends_the_tool_call_history_intact(sdk, quick_wait):
    client, fake, _ = sdk
    fake.script("It is 18 degrees and sunny in Paris.")
    history = [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": "Paris: 18 C, sunny."},
    ]
    reply = client.chat.completions.create(model="openai/primary", messages=history)
    sent = fake.requests[-1]["messages"]
    assert sent[1]["tool_calls"][0]["id"] == "call_1"
    assert sent[2]["tool_call_id"] == "call_1"
    # the answer grounded in the tool result is verified (queued: no worker here)
    assert reply.model_extra["truthlens"]["context"]["status"] == "found"
    assert VerificationJob.objects.get().context == ["Paris: 18 C, sunny."]


@pytest.mark.django_db(transaction=True)
def test_explicit_context_in_extra_body_wins_over_the_conversation(sdk, quick_wait):
    client, fake, _ = sdk
    fake.script("It was built in 1950.")
    client.chat.completions.create(
        model="openai/primary",
        messages=[
            {"role": "system", "content": "Context: some other document entirely."},
            *QUESTION,
        ],
        extra_body={
            "truthlens": {"context": [EIFFEL_DOC], "mode": "lightweight", "policy_threshold": 0.4}
        },
    )
    job = VerificationJob.objects.get()
    assert job.context == [EIFFEL_DOC]
    assert job.requested_mode == "lightweight"
    assert job.requested_threshold == 0.4
    assert job.query == "When was the Eiffel Tower built?"


@pytest.mark.django_db(transaction=True)
def test_explicit_context_in_a_header(sdk, quick_wait):
    client, fake, _ = sdk
    fake.script("It was built in 1950.")
    client.chat.completions.create(
        model="openai/primary",
        messages=QUESTION,
        extra_headers={"X-TruthLens-Context": json.dumps([EIFFEL_DOC, "Second passage."])},
    )
    assert VerificationJob.objects.get().context == [EIFFEL_DOC, "Second passage."]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("truthlens", "param"),
    [
        ({"context": []}, "truthlens.context"),
        ({"context": [""]}, "truthlens.context.0"),
        ({"context": [{"text": "x"}]}, "truthlens.context.0"),
        ({"mode": "turbo"}, "truthlens.mode"),
        ({"policy_threshold": 1.5}, "truthlens.policy_threshold"),
        ({"decision": "nope"}, "decision"),
        ({"contexts": ["typo"]}, "truthlens.contexts"),
        ("just a string", "truthlens"),
    ],
)
def test_invalid_truthlens_options_are_a_400_the_sdk_raises(sdk, truthlens, param):
    client, fake, _ = sdk
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(
            model="openai/primary", messages=QUESTION, extra_body={"truthlens": truthlens}
        )
    error = caught.value.body
    assert error["type"] == "invalid_request_error"
    assert error["param"] == param
    assert param in error["message"]
    assert fake.requests == []  # refused before any upstream call


@pytest.mark.django_db(transaction=True)
def test_a_grounded_looking_request_without_context_says_so(sdk):
    client, fake, _ = sdk
    fake.script("It was built in 1889.")
    raw = client.chat.completions.with_raw_response.create(
        model="openai/primary",
        messages=[
            {"role": "system", "content": "Answer only from the provided documents."},
            *QUESTION,
        ],
    )
    assert raw.headers["X-TruthLens-Context-Status"] == "missing"
    assert raw.headers["X-TruthLens-Enabled"] == "false"
    truthlens = raw.parse().model_extra["truthlens"]
    assert truthlens["reason"] == "context missing"
    assert truthlens["context"]["status"] == "missing"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "system", ["Answer only from the provided documents.", "You are a helpful assistant."]
)
def test_a_policy_that_requires_context_refuses_requests_without_it(sdk, system):
    client, fake, tenant = sdk
    Policy.objects.create(tenant=tenant, document={"require_context": True})
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(
            model="openai/primary", messages=[{"role": "system", "content": system}, *QUESTION]
        )
    assert caught.value.body["param"] == "truthlens.context"
    assert "requires context" in caught.value.body["message"]
    assert fake.requests == []


@pytest.mark.django_db(transaction=True)
def test_a_policy_that_requires_context_accepts_explicit_context(sdk, quick_wait):
    client, fake, tenant = sdk
    Policy.objects.create(tenant=tenant, document={"require_context": True})
    fake.script("It was built in 1889.")
    reply = client.chat.completions.create(
        model="openai/primary", messages=QUESTION, extra_body={"truthlens": {"context": EIFFEL_DOC}}
    )
    assert reply.model_extra["truthlens"]["context"]["status"] == "explicit"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("reply", "error", "status"),
    [
        (Reply(status=429, headers={"Retry-After": "7"}), openai.RateLimitError, 429),
        (Reply(status=400), openai.BadRequestError, 400),
        (Reply(status=404), openai.NotFoundError, 404),
        (Reply(status=401), openai.InternalServerError, 502),
        (Reply(status=500), openai.InternalServerError, 502),
        (Reply(delay=3.0, content="late"), openai.InternalServerError, 504),
    ],
)
def test_upstream_errors_raise_the_sdks_usual_exceptions(sdk, reply, error, status):
    client, fake, tenant = sdk
    tenant.llm_providers.update(timeout_seconds=1, max_retries=0)
    fake.script(reply)
    with pytest.raises(error) as caught:
        client.chat.completions.create(model="openai/primary", messages=QUESTION)
    assert caught.value.status_code == status
    assert "upstream model failed" in caught.value.body["message"]
    if status == 429:
        assert caught.value.response.headers["Retry-After"] == "7"


@pytest.mark.django_db(transaction=True)
def test_a_wrong_truthlens_key_is_the_sdks_authentication_error(live_server, tenant_a):
    client = openai.OpenAI(base_url=f"{live_server.url}/v1", api_key="tl_nope_nope")
    with pytest.raises(openai.AuthenticationError) as caught:
        client.chat.completions.create(model="openai/primary", messages=QUESTION)
    assert caught.value.body["type"] == "authentication_error"


@pytest.mark.django_db(transaction=True)
def test_an_upstream_error_on_a_stream_is_an_http_error(sdk):
    client, fake, tenant = sdk
    tenant.llm_providers.update(max_retries=0)
    fake.script(Reply(status=429))
    with pytest.raises(openai.RateLimitError):
        client.chat.completions.create(model="openai/primary", messages=QUESTION, stream=True)


@pytest.mark.django_db(transaction=True)
def test_streamed_tool_calls_come_back_intact(sdk):
    client, fake, _ = sdk
    fake.script(Reply(tool_calls=[TOOL_CALL]))
    stream = client.chat.completions.create(
        model="openai/primary", messages=QUESTION, tools=[WEATHER_TOOL], stream=True
    )
    chunks = list(stream)
    calls = [tc for c in chunks if c.choices for tc in (c.choices[0].delta.tool_calls or [])]
    assert calls[0].id == "call_1"
    assert calls[0].function.name == "get_weather"
    assert chunks[-1].model_extra["truthlens"]["verified"] is False


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("enabled", [True, False])
def test_sentence_annotations_can_be_switched_off(
    sdk, start_worker, settings, monkeypatch, enabled
):
    client, fake, _ = sdk
    start_worker()  # the detect worker checks the sentences (never the web process)
    monkeypatch.setitem(settings.TRUTHLENS, "GATEWAY_STREAM_ANNOTATIONS", enabled)
    fake.script("It was built in 1950. It is in Paris.")
    chunks = list(
        client.chat.completions.create(
            model="openai/primary",
            messages=QUESTION,
            stream=True,
            extra_body={"truthlens": {"context": [EIFFEL_DOC]}},
        )
    )
    notes = [
        n for c in chunks for n in (c.model_extra.get("truthlens") or {}).get("annotations", [])
    ]
    assert bool(notes) is enabled
    if enabled:
        assert [n["start"] for n in notes] == [0, len("It was built in 1950. ")]
    assert "truthlens" in chunks[-1].model_extra  # the verdict chunk is always last
