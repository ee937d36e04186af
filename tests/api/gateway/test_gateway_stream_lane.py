"""A streamed gateway call loads no model in the web process: its sentences are checked by
the detect workers, through the interactive lane (`verification/queue/sentences.py`)."""

from __future__ import annotations

import openai
import pytest

import engine
import verification.stages.detect as detect_stage
import verification.stages.sentences as sentence_stage
import verification.tenant_config as tenant_config
from engine.detectors import registry
from tests.fixtures.fake_llm import Reply
from tests.fixtures.llm import configure_llm
from verification.queue import sentences as lane

EIFFEL_DOC = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris. "
    "It was built from 1887 to 1889 as the entrance arch to the 1889 World's Fair, "
    "and it is 330 metres tall."
)

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("short_lived_connections"),
]


def test_a_stream_checks_its_sentences_on_the_workers_not_in_the_web_process(
    live_server, tenant_a, fake_llm, start_worker, monkeypatch
):
    # given: a worker, and a web process in which loading or running a detector fails
    tenant, token = tenant_a
    configure_llm(tenant, fake_llm)
    start_worker()
    loaded_before = dict(registry._cache)

    def no_model(*args, **kwargs):
        raise AssertionError("the web process must not load or run a detector")

    for module, name in (
        (tenant_config, "service_detector"),
        (detect_stage, "service_detector"),
        (sentence_stage, "service_detector"),
        (registry, "load_detector"),
        (engine, "verify"),
        (sentence_stage, "verify"),
    ):
        monkeypatch.setattr(module, name, no_model)
    submitted: list[dict] = []
    submit = lane.submit
    monkeypatch.setattr(
        lane,
        "submit",
        lambda payload, expires_s: submitted.append(payload) or submit(payload, expires_s),
    )
    fake_llm.script(Reply(content="It was built in 1950. It stands in Paris.", token_delay=0.05))
    client = openai.OpenAI(base_url=f"{live_server.url}/v1", api_key=token, max_retries=0)
    # when
    chunks = list(
        client.chat.completions.create(
            model="openai/primary",
            messages=[{"role": "user", "content": "When was the Eiffel Tower built?"}],
            stream=True,
            extra_body={"truthlens": {"context": [EIFFEL_DOC]}},
            extra_headers={"X-TruthLens-Mode": "lightweight"},
        )
    )
    # then: the annotations came from the worker, through the queue
    notes = [
        n for c in chunks for n in (c.model_extra.get("truthlens") or {}).get("annotations", [])
    ]
    assert [n["start"] for n in notes] == [0, len("It was built in 1950. ")]
    assert notes[0]["detected"] is True
    assert any("1950" in s["text"] for s in notes[0]["spans"])
    sent = [sentence for payload in submitted for _, _, sentence in payload["sentences"]]
    assert sent == ["It was built in 1950.", "It stands in Paris."]
    assert all(p["passages"] == [EIFFEL_DOC] for p in submitted)
    # no detector was loaded here meanwhile, and the verdict still came (from the worker)
    assert dict(registry._cache) == loaded_before
    verdict = chunks[-1].model_extra["truthlens"]
    assert verdict["verified"] is True
    assert verdict["detected"] is True


def test_a_last_sentence_is_sent_ahead_and_dropped_when_it_goes_on(monkeypatch):
    # given: a checker whose checks are recorded instead of published
    from engine import PolicyDocument
    from verification.gateway import GatewayCall, Grounding, Options
    from verification.gateway.sentences import SentenceChecker

    sent: dict[str, list] = {}

    def submit(payload, expires_s):
        sent[f"sc-{len(sent)}"] = [s for _, _, s in payload["sentences"]]
        return f"sc-{len(sent) - 1}"

    monkeypatch.setattr(lane, "submit", submit)
    call = GatewayCall(
        tenant=None,  # type: ignore[arg-type]
        api_key=None,
        config=None,  # type: ignore[arg-type]
        policy=PolicyDocument(),
        options=Options(),
        messages=[],
        grounding=Grounding((EIFFEL_DOC,), "", "explicit"),
    )
    checker = SentenceChecker(call)
    # when: "It is 3." may be complete; it goes on ("3.5 km."), then a sentence ends
    for text in ("It is 3.", "It is 3.5 km.", "It is 3.5 km. It", "It is 3.5 km. It is old."):
        checker.feed(0, text)
    checker.feed(0, "It is 3.5 km. It is old.", final=True)
    # then: each guess went ahead; only the complete sentences' checks are awaited, in order
    assert sent == {"sc-0": ["It is 3."], "sc-1": ["It is 3.5 km."], "sc-2": ["It is old."]}
    assert checker.pending == ["sc-1", "sc-2"]
