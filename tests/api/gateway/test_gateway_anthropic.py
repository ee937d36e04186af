"""`POST /v1/messages` through the official `anthropic` client, with a local fake upstream."""

from __future__ import annotations

import anthropic
import pytest

from tests.fixtures.fake_llm import Reply
from tests.fixtures.llm import configure_llm

EIFFEL_DOC = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris. "
    "It was built from 1887 to 1889 as the entrance arch to the 1889 World's Fair."
)
QUESTION = {"role": "user", "content": "When was the Eiffel Tower built?"}
# the live server's request threads must not keep connections to the test database
pytestmark = pytest.mark.usefixtures("short_lived_connections")


@pytest.fixture
def claude(live_server, tenant_a, fake_llm):
    tenant, token = tenant_a
    configure_llm(tenant, fake_llm)
    # The SDK sends `x-api-key`, as it would to Anthropic.
    client = anthropic.Anthropic(base_url=live_server.url, api_key=token, max_retries=0)
    return client, fake_llm, tenant


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_document_block_grounds_the_answer_and_the_verdict_comes_back(claude, start_worker):
    # given
    client, fake, _ = claude
    start_worker()
    fake.script("The Eiffel Tower was built in 1950.")
    # when
    raw = client.messages.with_raw_response.create(
        model="openai/primary",
        max_tokens=200,
        system="Answer from the documents.",
        messages=[
            {
                "role": "user",
                "content": [
                    {
                        "type": "document",
                        "source": {"type": "text", "media_type": "text/plain", "data": EIFFEL_DOC},
                        "title": "Eiffel",
                    },
                    {"type": "text", "text": "When was the Eiffel Tower built?"},
                ],
            }
        ],
        extra_headers={"X-TruthLens-Mode": "lightweight"},
    )
    # then
    message = raw.parse()
    assert message.id.startswith("msg_")
    assert message.type == "message"
    assert message.role == "assistant"
    assert message.content[0].text.startswith("The Eiffel Tower was built in 1950.")
    assert raw.headers["X-TruthLens-Detected"] == "true"
    truthlens = message.model_extra["truthlens"]
    assert any("1950" in s["text"] for s in truthlens["spans"])
    assert truthlens["context"]["status"] == "found"
    sent = fake.requests[-1]
    assert sent["max_tokens"] == 200
    assert sent["messages"][0]["role"] == "system"
    assert EIFFEL_DOC in sent["messages"][1]["content"][0]["text"]  # the upstream read it


@pytest.mark.django_db(transaction=True)
def test_parameters_and_tools_reach_the_upstream_and_tool_use_comes_back(claude):
    client, fake, _ = claude
    fake.script(
        Reply(
            tool_calls=[
                {
                    "id": "toolu_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ]
        )
    )
    message = client.messages.create(
        model="openai/primary",
        max_tokens=100,
        stop_sequences=["END"],
        metadata={"user_id": "end-user-42"},
        # this SDK version no longer types sampling parameters; older clients send them plainly
        extra_body={"temperature": 0.2, "top_p": 0.8},
        tools=[
            {
                "name": "get_weather",
                "description": "Current weather of a city",
                "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
            }
        ],
        messages=[QUESTION],
    )
    sent = fake.requests[-1]
    assert sent["temperature"] == 0.2
    assert sent["top_p"] == 0.8
    assert sent["stop"] == ["END"]
    assert sent["user"] == "end-user-42"
    assert sent["tools"][0]["function"]["name"] == "get_weather"
    assert message.stop_reason == "tool_use"
    block = next(b for b in message.content if b.type == "tool_use")
    assert block.name == "get_weather"
    assert block.input == {"city": "Paris"}
    assert message.model_extra["truthlens"]["reason"] == "tool_calls"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (Reply(status=429), anthropic.RateLimitError),
        (Reply(status=400), anthropic.BadRequestError),
        (Reply(status=500), anthropic.InternalServerError),
    ],
)
def test_upstream_errors_raise_the_anthropic_sdks_exceptions(claude, reply, error):
    client, fake, tenant = claude
    tenant.llm_providers.update(max_retries=0)
    fake.script(reply)
    with pytest.raises(error) as caught:
        client.messages.create(model="openai/primary", max_tokens=50, messages=[QUESTION])
    assert "upstream model failed" in caught.value.body["error"]["message"]


@pytest.mark.django_db(transaction=True)
def test_a_wrong_key_is_the_anthropic_sdks_authentication_error(live_server, tenant_a):
    client = anthropic.Anthropic(base_url=live_server.url, api_key="tl_nope_nope", max_retries=0)
    with pytest.raises(anthropic.AuthenticationError):
        client.messages.create(model="openai/primary", max_tokens=50, messages=[QUESTION])


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_stream_gives_anthropic_events_with_annotations_and_the_verdict(claude, start_worker):
    # given
    client, fake, _ = claude
    start_worker()
    fake.script(Reply(content="It was built in 1950. It stands in Paris.", token_delay=0.05))
    # when
    with client.messages.stream(
        model="openai/primary",
        max_tokens=100,
        system=f"<document>{EIFFEL_DOC}</document>",
        messages=[QUESTION],
        extra_headers={"X-TruthLens-Mode": "lightweight"},
    ) as stream:
        events = list(stream)
        final = stream.get_final_message()
    # then: the SDK assembles the text; annotations and the verdict ride on the events
    assert final.content[0].text == "It was built in 1950. It stands in Paris."
    extras = [e.model_extra.get("truthlens") for e in events if e.model_extra]
    notes = [n for x in extras if x for n in x.get("annotations", [])]
    assert notes[0]["start"] == 0
    assert notes[0]["detected"] is True
    delta = next(e for e in events if e.type == "message_delta")
    assert delta.model_extra["truthlens"]["detected"] is True
    assert any("1950" in s["text"] for s in delta.model_extra["truthlens"]["spans"])
    assert final.id.startswith("msg_")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_sdks_final_message_of_a_stream_keeps_the_verdict(claude, start_worker):
    # given
    client, fake, _ = claude
    start_worker()
    fake.script(Reply(content="It was built in 1950.", token_delay=0.01))
    # when
    with client.messages.stream(
        model="openai/primary",
        max_tokens=100,
        system=f"<document>{EIFFEL_DOC}</document>",
        messages=[QUESTION],
        extra_headers={"X-TruthLens-Mode": "lightweight"},
    ) as stream:
        final = stream.get_final_message()
        text = stream.get_final_text()
    # then: a last, empty text block carries the verdict; the text is unchanged
    assert text == "It was built in 1950."
    block = final.content[-1]
    assert (block.type, block.text) == ("text", "")
    truthlens = block.model_extra["truthlens"]
    assert truthlens["verified"] is True
    assert truthlens["detected"] is True
    assert any("1950" in s["text"] for s in truthlens["spans"])
    assert final.stop_reason == "end_turn"
