"""A verdict that cannot arrive in time never goes out silently (no worker runs here, so
every verdict is late): the reply says so, and the policy passes it with a note or refuses."""

from __future__ import annotations

import anthropic
import openai
import pytest

from engine.policy import DEFAULT_UNVERIFIED_NOTE
from tenants.models import Policy
from tests.fixtures.fake_llm import Reply
from tests.fixtures.llm import configure_llm
from verification.models import VerificationJob

EIFFEL_DOC = "The Eiffel Tower was built from 1887 to 1889 on the Champ de Mars in Paris."
QUESTION = [{"role": "user", "content": "When was the Eiffel Tower built?"}]
CONTEXT = {"truthlens": {"context": [EIFFEL_DOC], "mode": "lightweight"}}
pytestmark = pytest.mark.usefixtures("short_lived_connections")


@pytest.fixture
def late(live_server, tenant_a, fake_llm, settings, monkeypatch):
    """(the openai client, the anthropic client, the fake upstream, the tenant); no worker."""
    monkeypatch.setitem(settings.TRUTHLENS, "GATEWAY_WAIT_SECONDS", 0.3)
    tenant, token = tenant_a
    configure_llm(tenant, fake_llm)
    # the SDKs' default retries: a refused answer must not be paid for three times
    chat = openai.OpenAI(base_url=f"{live_server.url}/v1", api_key=token, max_retries=2)
    claude = anthropic.Anthropic(base_url=live_server.url, api_key=token, max_retries=2)
    return chat, claude, fake_llm, tenant


def refuse(tenant) -> None:
    Policy.objects.create(tenant=tenant, document={"on_unverified": "refuse"})


@pytest.mark.django_db(transaction=True)
def test_a_late_verdict_passes_with_the_note_in_the_body_and_the_headers(late):
    # given
    chat, _, fake, _ = late
    fake.script("It was built from 1887 to 1889.")
    # when
    raw = chat.chat.completions.with_raw_response.create(
        model="openai/primary", messages=QUESTION, extra_body=CONTEXT
    )
    # then
    reply = raw.parse()
    assert raw.headers["X-TruthLens-Verified"] == "false"
    assert raw.headers["X-TruthLens-Unverified-Reason"] == "timeout"
    truthlens = reply.model_extra["truthlens"]
    assert truthlens["verified"] is False
    assert truthlens["reason"] == "timeout"
    assert truthlens["note"] == DEFAULT_UNVERIFIED_NOTE
    content = reply.choices[0].message.content
    assert content == f"It was built from 1887 to 1889.\n\n{DEFAULT_UNVERIFIED_NOTE}"


@pytest.mark.django_db(transaction=True)
def test_a_verified_reply_says_so_in_its_headers(late, start_worker, settings, monkeypatch):
    chat, _, fake, _ = late
    monkeypatch.setitem(settings.TRUTHLENS, "GATEWAY_WAIT_SECONDS", 30)
    start_worker()
    fake.script("It was built from 1887 to 1889.")
    raw = chat.chat.completions.with_raw_response.create(
        model="openai/primary", messages=QUESTION, extra_body=CONTEXT
    )
    assert raw.headers["X-TruthLens-Verified"] == "true"
    assert "note" not in raw.parse().model_extra["truthlens"]


@pytest.mark.django_db(transaction=True)
def test_a_policy_that_refuses_unverified_answers_gets_a_503_the_sdk_does_not_retry(late):
    # given
    chat, _, fake, tenant = late
    refuse(tenant)
    fake.script("It was built from 1887 to 1889.")
    # when
    with pytest.raises(openai.InternalServerError) as caught:
        chat.chat.completions.create(model="openai/primary", messages=QUESTION, extra_body=CONTEXT)
    # then
    assert caught.value.status_code == 503
    assert caught.value.body["code"] == "verification_timeout"
    assert caught.value.response.headers["X-TruthLens-Verified"] == "false"
    assert len(fake.requests) == 1  # x-should-retry: false
    job_id = caught.value.response.json()["truthlens"]["ids"][0]
    assert VerificationJob.objects.filter(pk=VerificationJob.parse_public_id(job_id)).exists()


@pytest.mark.django_db(transaction=True)
def test_a_late_verdict_in_a_stream_ends_the_text_with_the_note(late):
    chat, _, fake, _ = late
    fake.script(Reply(content="It was built from 1887 to 1889."))
    chunks = list(
        chat.chat.completions.create(
            model="openai/primary", messages=QUESTION, extra_body=CONTEXT, stream=True
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == f"It was built from 1887 to 1889.\n\n{DEFAULT_UNVERIFIED_NOTE}"
    verdict = chunks[-1].model_extra["truthlens"]
    assert (verdict["verified"], verdict["reason"]) == (False, "timeout")
    assert verdict["note"] == DEFAULT_UNVERIFIED_NOTE


@pytest.mark.django_db(transaction=True)
def test_a_refused_stream_ends_with_an_error_the_sdk_raises(late):
    chat, _, fake, tenant = late
    refuse(tenant)
    fake.script(Reply(content="It was built from 1887 to 1889."))
    stream = chat.chat.completions.create(
        model="openai/primary", messages=QUESTION, extra_body=CONTEXT, stream=True
    )
    with pytest.raises(openai.APIError, match="could not be verified in time"):
        list(stream)


@pytest.mark.django_db(transaction=True)
def test_anthropic_a_late_verdict_passes_with_the_note_or_is_refused(late):
    # given
    _, claude, fake, tenant = late
    fake.script("It was built from 1887 to 1889.", "It was built from 1887 to 1889.")
    ask = {"model": "openai/primary", "max_tokens": 100, "messages": QUESTION}
    # when: the default policy
    message = claude.messages.create(**ask, extra_body=CONTEXT)
    with claude.messages.stream(**ask, extra_body=CONTEXT) as stream:
        final = stream.get_final_message()
    # then
    assert message.content[0].text.endswith(DEFAULT_UNVERIFIED_NOTE)
    assert message.model_extra["truthlens"]["reason"] == "timeout"
    assert final.content[-1].text.endswith(DEFAULT_UNVERIFIED_NOTE)
    assert stream.get_final_text().endswith(DEFAULT_UNVERIFIED_NOTE)
    assert final.content[-1].model_extra["truthlens"]["reason"] == "timeout"
    # and when the policy refuses
    refuse(tenant)
    fake.script("It was built from 1887 to 1889.")
    with pytest.raises(anthropic.InternalServerError) as caught:
        claude.messages.create(**ask, extra_body=CONTEXT)
    assert caught.value.status_code == 503
