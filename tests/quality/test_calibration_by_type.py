"""Calibration per query type: a type with enough labels of its own gets its own fit (out of
fold, before/after), the others fall back to the overall fit, the refusal rules are those of
the overall fit, and the engine applies a type's fit to answers of that type only."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard.models import PolicyChange
from dashboard.policy.actions import current_document, save_policy
from engine.detectors.registry import load_detector
from engine.job_plan import detection_config
from engine.pipeline import verify
from engine.policy import PolicyDocument, QueryTypeCalibration
from engine.query_types import KnownTypes
from engine.types import DetectionInput
from quality import calibration

from .test_calibration import evaluation_of
from .test_review_queue import signed_in


def typed_rows(n: int, qtype: str, low: float, seed: int, current: float, start: int = 0):
    """Correct answers score in [low, low + 0.3), hallucinated ones in [low + 0.25, low + 0.55):
    the right threshold for this type is near low + 0.28."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        label = i % 2
        raw = float(rng.uniform(low + 0.25, low + 0.55) if label else rng.uniform(low, low + 0.3))
        rows.append(
            {"position": start + i, "label": label, "score": raw, "raw": raw,
             "detected": int(raw >= current), "query_type": qtype}
        )  # fmt: skip
    return rows


def mixed(current: float = 0.9) -> list[dict]:
    """200 factual_qa answers (right threshold ~0.28), 200 summarization ones (~0.68) and 40
    data2text ones: too few for a fit of their own."""
    return [
        *typed_rows(200, "factual_qa", 0.0, 1, current),
        *typed_rows(200, "summarization", 0.4, 2, current, start=200),
        *typed_rows(40, "data2text", 0.2, 3, current, start=400),
    ]


def propose(rows, **options):
    return calibration.propose_by_query_type(
        [r["raw"] for r in rows], [r["label"] for r in rows], [r["detected"] for r in rows],
        [r["query_type"] for r in rows], **options,
    )  # fmt: skip


def test_a_type_with_enough_labels_gets_its_own_fit_and_the_others_fall_back():
    typed = propose(mixed())
    assert sorted(typed.by_type) == ["factual_qa", "summarization"]
    assert 0.2 < typed.by_type["factual_qa"].fit.threshold < 0.35
    assert 0.6 < typed.by_type["summarization"].fit.threshold < 0.75
    for fitted in typed.by_type.values():  # judged out of fold on the type's own labels
        assert fitted.labels == 200
        assert fitted.gain is not None
        assert fitted.gain.low > 0
        assert fitted.after["balanced_accuracy"].value > fitted.before["balanced_accuracy"].value
    assert (
        "needs at least 100 labelled answers; this dataset has 40" in typed.fallbacks["data2text"]
    )
    # each type's own fit is at least as good as the overall fit on that type, and better on one
    overall, gains = typed.overall.fit, []
    for qtype, fitted in typed.by_type.items():
        rows = [r for r in mixed() if r["query_type"] == qtype]
        s, y = np.array([r["raw"] for r in rows]), np.array([r["label"] for r in rows])
        own = calibration.objective_value(y, fitted.fit.predict(s), "balanced_accuracy", None)
        shared = calibration.objective_value(y, overall.predict(s), "balanced_accuracy", None)
        gains.append(own - shared)
    assert min(gains) >= 0
    assert max(gains) > 0.1


def test_a_type_whose_own_fit_does_not_beat_the_policy_falls_back():
    # summarization is already judged right by the current policy (flags from 0.38 on)
    rows = [*typed_rows(200, "factual_qa", 0.0, 1, 0.9),
            *typed_rows(200, "summarization", 0.1, 2, 0.38, start=200)]  # fmt: skip
    typed = propose(rows)
    assert list(typed.by_type) == ["factual_qa"]
    assert "not a clear improvement" in typed.fallbacks["summarization"]


def test_the_refusal_rules_are_those_of_the_overall_fit():
    with pytest.raises(calibration.Refused, match="needs at least 100 labelled answers"):
        propose(typed_rows(90, "factual_qa", 0.0, 1, 0.9))
    with pytest.raises(calibration.RefusedProposal):
        propose(typed_rows(200, "factual_qa", 0.0, 1, 0.28))
    # one type only: the overall fit is its fit, nothing per type
    assert propose(typed_rows(200, "factual_qa", 0.0, 1, 0.9)).by_type == {}


def test_the_engine_applies_a_types_fit_to_that_type_only():
    item = DetectionInput.build(["Paris is the capital of France."], "Paris is the capital.", "q")
    detector = load_detector("lexical")
    policy = PolicyDocument(
        threshold=0.99,
        uncertain_below=0.0,
        uncertain_above=0.0,
        calibration_by_query_type={
            "factual_qa": QueryTypeCalibration(
                method="isotonic", threshold=0.5, x=[0.0, 1.0], y=[0.8, 0.9], dataset="s",
                dataset_version=1, labels=200,
            )
        },
    )  # fmt: skip
    config = detection_config(policy, policy.threshold)
    factual = verify(item, config, detector, classifier=KnownTypes({"q": ("factual_qa", 0.9)}))
    other = verify(item, config, detector, classifier=KnownTypes({"q": ("other", 0.9)}))
    assert factual.query_type == "factual_qa"
    assert factual.score == pytest.approx(0.8 + 0.1 * factual.uncalibrated_score, abs=1e-6)
    assert (factual.threshold, factual.detected) == (0.5, True)
    assert other.score == other.uncalibrated_score  # no policy-wide curve
    assert (other.threshold, other.detected) == (0.99, False)
    # a request's own threshold wins over the type's, as over the policy's
    overridden = verify(
        item, detection_config(policy, 0.95), detector,
        classifier=KnownTypes({"q": ("factual_qa", 0.9)}),
    )  # fmt: skip
    assert overridden.threshold == 0.95
    assert overridden.score == factual.score


def test_a_fit_per_type_must_name_a_known_type():
    with pytest.raises(ValueError, match="unknown query types"):
        PolicyDocument.model_validate(
            {"calibration_by_query_type": {"poetry": {"method": "threshold", "threshold": 0.3,
             "dataset": "s", "dataset_version": 1, "labels": 100}}}
        )  # fmt: skip


@pytest.mark.django_db
def test_adopting_stores_the_fits_per_type(tenant_a, owner_a):
    save_policy(tenant_a.tenant, owner_a, PolicyDocument(threshold=0.8), PolicyChange.EDITOR)
    evaluation = evaluation_of(tenant_a.tenant, mixed(current=0.9), version=1)
    client = signed_in(owner_a)
    url = f"/dashboard/evaluations/{evaluation.pk}/calibrate/"
    preview = client.post(url, {"objective": "balanced_accuracy", "method": "threshold"})
    html = preview.content.decode()
    assert 'id="calibration-by-type"' in html
    assert 'data-query-type="data2text"' in html
    answer = client.post(
        url, {"objective": "balanced_accuracy", "method": "threshold", "adopt": "1"}
    )
    assert answer.status_code == 302
    document = current_document(tenant_a.tenant)
    fits = document.calibration_by_query_type
    assert sorted(fits) == ["factual_qa", "summarization"]
    # the policy's band moves the stored threshold as for the overall fit (on_uncertain: pass)
    assert fits["factual_qa"].threshold < fits["summarization"].threshold
    assert (fits["factual_qa"].dataset_version, fits["factual_qa"].labels) == (1, 200)
