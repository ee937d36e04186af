"""Gateway verdicts with a real worker: implicit context, `n` choices, JSON answers, streams."""

from __future__ import annotations

import json

import openai
import pytest

from tests.fixtures.fake_llm import Reply
from tests.fixtures.llm import configure_llm
from tests.fixtures.workers import wait_for_warm_detect_worker
from verification.models import VerificationJob

EIFFEL_DOC = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris. "
    "It was built from 1887 to 1889 as the entrance arch to the 1889 World's Fair, "
    "and it is 330 metres tall."
)
QUESTION = {"role": "user", "content": "When was the Eiffel Tower built?"}

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("short_lived_connections"),
]


@pytest.fixture
def sdk(live_server, tenant_a, fake_llm, start_worker):
    tenant, token = tenant_a
    configure_llm(tenant, fake_llm)
    start_worker()
    return openai.OpenAI(base_url=f"{live_server.url}/v1", api_key=token, max_retries=0), fake_llm


def test_the_issues_plain_language_document_prompt_is_verified(sdk):
    """Issue 15's first finding: this went out with X-TruthLens-Enabled: false."""
    client, fake = sdk
    fake.script("The Eiffel Tower was built in 1950.")
    raw = client.chat.completions.with_raw_response.create(
        model="openai/primary",
        messages=[
            {"role": "system", "content": f"Answer from this document: {EIFFEL_DOC}"},
            QUESTION,
        ],
        extra_headers={"X-TruthLens-Mode": "lightweight"},
    )
    assert raw.headers["X-TruthLens-Enabled"] == "true"
    assert raw.headers["X-TruthLens-Detected"] == "true"
    assert raw.headers["X-TruthLens-Context-Status"] == "found"
    truthlens = raw.parse().model_extra["truthlens"]
    assert any("1950" in s["text"] for s in truthlens["spans"])
    assert truthlens["context"] == {"status": "found", "sources": ["cue"], "passages": 1}


def test_each_of_n_choices_is_verified(sdk):
    client, fake = sdk
    fake.script(
        Reply(choices=["The Eiffel Tower was built from 1887 to 1889.", "It was built in 1950."])
    )
    reply = client.chat.completions.create(
        model="openai/primary",
        messages=[QUESTION],
        n=2,
        extra_body={"truthlens": {"context": [EIFFEL_DOC], "mode": "lightweight"}},
    )
    assert fake.requests[-1]["n"] == 2
    verdicts = reply.model_extra["truthlens"]["choices"]
    assert [v["index"] for v in verdicts] == [0, 1]
    assert verdicts[0]["detected"] is False
    assert verdicts[1]["detected"] is True
    assert reply.model_extra["truthlens"]["detected"] is True
    assert "Warning" in reply.choices[1].message.content  # lightweight warns the flagged one
    assert reply.choices[0].message.content == "The Eiffel Tower was built from 1887 to 1889."
    assert VerificationJob.objects.count() == 2


def test_json_answers_are_verified_on_their_string_values_and_stay_json(sdk):
    client, fake = sdk
    answer = {"landmark": "Eiffel Tower", "built": "It was built in 1950.", "height_m": 330}
    fake.script(json.dumps(answer))
    reply = client.chat.completions.create(
        model="openai/primary",
        messages=[QUESTION],
        response_format={"type": "json_object"},
        extra_body={"truthlens": {"context": [EIFFEL_DOC], "mode": "lightweight"}},
    )
    assert fake.requests[-1]["response_format"] == {"type": "json_object"}
    assert json.loads(reply.choices[0].message.content) == answer  # no warning text inside
    job = VerificationJob.objects.get()
    assert job.response == "Eiffel Tower\n\nIt was built in 1950."  # a paragraph per value
    assert reply.model_extra["truthlens"]["detected"] is True


def _value_at(data, pointer: str):
    for part in pointer.split("/")[1:]:
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def test_json_spans_index_the_returned_content_inside_one_string_value(sdk):
    # given: escapes and a newline inside values, so the JSON text and its values differ
    client, fake = sdk
    answer = {
        "landmark": 'The "Iron Lady", Paris',
        "facts": ["The Eiffel Tower was built in 1950.\nIt is 330 metres tall."],
        "height_m": 330,
        "built": "It opened in 1950 in Rome.",
    }
    fake.script(json.dumps(answer))
    # when
    reply = client.chat.completions.create(
        model="openai/primary",
        messages=[QUESTION],
        response_format={"type": "json_object"},
        extra_body={"truthlens": {"context": [EIFFEL_DOC], "mode": "lightweight"}},
    )
    # then
    content = reply.choices[0].message.content
    spans = reply.model_extra["truthlens"]["spans"]
    assert any("1950" in s["text"] for s in spans)
    for span in spans:
        raw = content[span["start"] : span["end"]]
        assert raw == span["text"]
        decoded = json.loads(f'"{raw}"')  # a piece of one string literal, never `", "`
        assert decoded in _value_at(answer, span["field"])


def test_a_corrected_json_answer_is_the_same_json_with_corrected_values(sdk):
    # given: standard mode, whose refinement (the same fake LLM) corrects the date
    client, fake = sdk
    schema = {
        "type": "object",
        "properties": {"landmark": {"type": "string"}, "built": {"type": "string"}},
        "required": ["landmark", "built"],
        "additionalProperties": False,
    }
    answer = {"landmark": "Eiffel Tower", "built": "It was built in 1950."}
    corrected = "Eiffel Tower\n\nIt was built from 1887 to 1889."
    fake.script(json.dumps(answer), corrected, corrected, corrected)
    # when
    reply = client.chat.completions.create(
        model="openai/primary",
        messages=[QUESTION],
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": schema, "strict": True},
        },
        extra_body={"truthlens": {"context": [EIFFEL_DOC], "mode": "standard"}},
    )
    # then: the reply is the upstream's JSON; the correction is JSON of the same schema
    truthlens = reply.model_extra["truthlens"]
    assert json.loads(reply.choices[0].message.content) == answer
    assert truthlens["mode"] == "standard"
    fixed = json.loads(truthlens["final_response"])
    assert fixed == {"landmark": "Eiffel Tower", "built": "It was built from 1887 to 1889."}


def test_a_stream_annotates_sentences_as_they_complete_and_ends_with_the_verdict(sdk):
    # given: a two-sentence answer whose first sentence is wrong, and a warm detect worker
    client, fake = sdk
    wait_for_warm_detect_worker()
    fake.script(
        Reply(
            content="It was built in 1950. It stands on the Champ de Mars in Paris.",
            token_delay=0.05,
        )
    )
    # when
    stream = client.chat.completions.create(
        model="openai/primary",
        messages=[{"role": "system", "content": f"<document>{EIFFEL_DOC}</document>"}, QUESTION],
        stream=True,
        extra_headers={"X-TruthLens-Mode": "lightweight"},
    )
    chunks = list(stream)
    # then: the first sentence's spans arrive on a chunk that still carries text after it
    text = "".join((c.choices[0].delta.content or "") for c in chunks if c.choices)
    assert text == "It was built in 1950. It stands on the Champ de Mars in Paris."
    annotated = [
        (i, n)
        for i, c in enumerate(chunks)
        for n in (c.model_extra.get("truthlens") or {}).get("annotations", [])
    ]
    first = next(n for _, n in annotated if n["start"] == 0)
    assert first["end"] == len("It was built in 1950.")
    assert first["detected"] is True
    assert any(s["text"] and "1950" in s["text"] for s in first["spans"])
    first_at = next(i for i, n in annotated if n["start"] == 0)
    later_text = "".join(
        (c.choices[0].delta.content or "") for c in chunks[first_at + 1 :] if c.choices
    )
    assert later_text  # annotated while the stream was still going
    assert {n["start"] for _, n in annotated} == {0, len("It was built in 1950. ")}
    verdict = chunks[-1].model_extra["truthlens"]
    assert verdict["detected"] is True
    assert verdict["context"]["status"] == "found"
