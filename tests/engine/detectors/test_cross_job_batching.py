"""Windows of different jobs (and policies) of one micro-batch share forward passes.

The detect worker hands its whole claimed batch to `verify_groups`: one detector call,
in which `WindowedScorer` sorts every window of every job by token length and pads per
sub-batch. These tests count the model's forward passes and check that what comes out
is what each job gets alone (batch 1).
"""

from __future__ import annotations

import random

import pytest

from engine import DetectionConfig, verify_batch, verify_groups
from engine.detectors.registry import load_detector
from engine.query_types import KnownTypes
from engine.types import DetectionInput

pytestmark = pytest.mark.slow

_CITIES = ["Bergen", "Lyon", "Porto", "Graz", "Turku", "Ghent", "Malmo", "Split"]
_THINGS = ["bridge", "tower", "library", "station", "museum", "harbour", "cathedral"]


def _sentence(rng: random.Random) -> str:
    return (
        f"The {rng.choice(_THINGS)} of {rng.choice(_CITIES)} was finished in "
        f"{rng.randint(1100, 1990)} and is {rng.randint(10, 400)} metres long, "
        f"according to the {rng.choice(['city', 'county', 'national'])} archive."
    )


def _jobs(n: int) -> list[DetectionInput]:
    """`n` answers against contexts of 150 to 1 300 tokens (1 to 4 windows of 512)."""
    rng = random.Random(7)
    items = []
    for i in range(n):
        passages = [" ".join(_sentence(rng) for _ in range(3)) for _ in range(2 + 5 * i)]
        answer = passages[0].split(". ")[0] + ". " + _sentence(rng)
        items.append(DetectionInput.build(passages, answer, "What is it and how long is it?"))
    return items


# float32 gives the same numbers whatever the batch; bf16 (the default on CPUs with bf16
# units) rounds each matrix product's result, and padding changes how oneDNN tiles it:
# a token probability moves by a few thousandths (measured at most 0.005).
TOLERANCE = {"float32": 1e-4, "bfloat16": 0.02}


@pytest.fixture(scope="module", params=["float32", "bfloat16"])
def ensemble(request):
    return load_detector("embedded", request.param)  # MiniLM + lexical, as the worker runs it


@pytest.fixture
def forwards(ensemble, monkeypatch):
    """The MiniLM model's forward passes: (rows, width) of each batch it is given."""
    scorer = ensemble.model._scorer
    real = scorer.model
    calls: list[tuple[int, int]] = []

    def spy(**inputs):
        calls.append(tuple(inputs["input_ids"].shape))
        return real(**inputs)

    monkeypatch.setattr(scorer, "model", spy)
    return calls


KNOWN = KnownTypes({"What is it and how long is it?": ("factual_qa", 0.9)})


def test_windows_of_several_jobs_and_policies_share_forward_passes(ensemble, forwards):
    items = _jobs(6)
    strict = DetectionConfig(threshold=0.3)
    groups = [(items[:3], DetectionConfig()), (items[3:], strict)]
    batched = verify_groups(groups, ensemble, classifier=KNOWN)
    windows = sum(r.coverage.windows for results in batched for r in results)
    assert windows > len(items)  # the long contexts really are several windows each
    assert sum(rows for rows, _ in forwards) == windows  # every window scored once
    assert len(forwards) < len(items)  # fewer passes than jobs: windows were batched
    assert max(rows for rows, _ in forwards) > 1
    together = len(forwards)

    forwards.clear()
    for group in groups:  # each policy's jobs apart, as the worker did before
        verify_batch(*group, ensemble, classifier=KNOWN)
    assert together < len(forwards)  # one call for both policies saves passes

    forwards.clear()
    configs = [DetectionConfig()] * 3 + [strict] * 3
    alone = [
        verify_batch([item], cfg, ensemble, classifier=KNOWN)[0]
        for item, cfg in zip(items, configs, strict=True)
    ]
    assert len(forwards) >= len(items)  # batch 1: at least one pass per job
    for got, want in zip([r for results in batched for r in results], alone, strict=True):
        assert got.status == want.status == "verified"
        assert got.score == pytest.approx(want.score, abs=TOLERANCE[ensemble.model.dtype])
        assert got.detected == want.detected
        assert [(s.start, s.end, s.label) for s in got.spans] == [
            (s.start, s.end, s.label) for s in want.spans
        ]
        assert got.threshold == want.threshold
    assert {r.threshold for r in batched[1]} == {0.3}  # each group kept its own policy


def test_token_probabilities_batched_by_length_equal_batch_one(ensemble, forwards):
    items = _jobs(5)
    minilm = ensemble.model
    together = minilm.predict(items)
    passes = list(forwards)
    # sorted by length: a pass never pads a short window to a much longer one
    assert all(width <= 512 for _, width in passes)
    assert len(passes) < len(items)
    for item, got in zip(items, together, strict=True):
        [want] = minilm.predict([item])
        assert [(t.start, t.end) for t in got.tokens] == [(t.start, t.end) for t in want.tokens]
        assert [t.prob for t in got.tokens] == pytest.approx(
            [t.prob for t in want.tokens], abs=TOLERANCE[minilm.dtype]
        )
        assert got.coverage.windows == want.coverage.windows
