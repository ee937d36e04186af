"""Calibration from labels: refusal below N labels and when nothing beats the current policy
out of fold; adoption as a new, audit-logged, restorable policy version; the engine applying
the curve; the API saying whether a score is calibrated and from which dataset version."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard.models import PolicyChange
from dashboard.policy.actions import current_document, current_version, save_policy
from engine.detectors.registry import load_detector
from engine.job_plan import detection_config
from engine.pipeline import verify
from engine.policy import Calibration, PolicyDocument
from engine.types import DetectionInput
from quality import calibration
from quality.models import Dataset, Evaluation
from tenants.models import AuditEvent
from tests.dashboard.conftest import make_job
from verification.serializers import VerificationSerializer

from .test_review_queue import signed_in

pytestmark = pytest.mark.django_db


def synthetic(n: int, policy_threshold: float, seed: int = 1) -> list[dict]:
    """Hallucinated answers score 0.25-0.55, correct ones 0.0-0.3: the right threshold is
    near 0.28, far below the policy's."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        label = i % 2
        raw = float(rng.uniform(0.25, 0.55) if label else rng.uniform(0.0, 0.3))
        rows.append(
            {"position": i, "label": label, "score": raw, "raw": raw,
             "detected": int(raw >= policy_threshold)}
        )  # fmt: skip
    return rows


def evaluation_of(tenant, rows: list[dict], version: int) -> Evaluation:
    dataset = Dataset.objects.create(tenant=tenant, name="support", source="review", size=len(rows))
    return Evaluation.objects.create(
        tenant=tenant, dataset=dataset, policy_version=version, status="completed",
        total=len(rows), done=len(rows), results={"rows": rows},
    )  # fmt: skip


def test_it_refuses_below_the_minimum_number_of_labels(tenant_a, owner_a):
    evaluation = evaluation_of(tenant_a.tenant, synthetic(40, 0.6), version=0)
    page = signed_in(owner_a).post(
        f"/dashboard/evaluations/{evaluation.pk}/calibrate/",
        {"objective": "balanced_accuracy", "method": "threshold", "adopt": "1"},
    )
    html = page.content.decode()
    assert 'id="calibration-refusal"' in html
    assert "needs at least 100 labelled answers; this dataset has 40" in html
    assert not PolicyChange.objects.exists()


def test_it_refuses_a_change_that_does_not_beat_the_current_policy(tenant_a, owner_a):
    # the policy already flags from 0.28 on: nothing to gain out of fold
    evaluation = evaluation_of(tenant_a.tenant, synthetic(200, 0.28), version=0)
    page = signed_in(owner_a).post(
        f"/dashboard/evaluations/{evaluation.pk}/calibrate/",
        {"objective": "balanced_accuracy", "method": "threshold", "adopt": "1"},
    )
    assert "not a clear improvement on the current policy" in page.content.decode()
    assert not PolicyChange.objects.exists()


def test_an_adopted_calibration_is_a_new_logged_and_restorable_version(tenant_a, owner_a):
    # given version 1 of the policy with threshold 0.5 (flags from 0.6 with its band)
    save_policy(tenant_a.tenant, owner_a, PolicyDocument(threshold=0.5), PolicyChange.EDITOR)
    evaluation = evaluation_of(tenant_a.tenant, synthetic(200, 0.6), version=1)
    client = signed_in(owner_a)
    url = f"/dashboard/evaluations/{evaluation.pk}/calibrate/"
    preview = client.post(url, {"objective": "balanced_accuracy", "method": "isotonic"})
    assert 'id="calibration-figures"' in preview.content.decode()
    assert current_version(tenant_a.tenant) == 1  # a preview changes nothing
    # when it is adopted
    answer = client.post(
        url, {"objective": "balanced_accuracy", "method": "isotonic", "adopt": "1"}
    )
    # then a new version holds the curve, and says which dataset version it came from
    assert answer.status_code == 302
    change = PolicyChange.objects.get(version=2)
    assert change.source == PolicyChange.CALIBRATION
    document = current_document(tenant_a.tenant)
    assert document.calibration is not None
    assert (document.calibration.dataset, document.calibration.dataset_version) == ("support", 1)
    assert document.calibration.labels == 200
    event = AuditEvent.objects.get(action="policy.calibrated")
    assert event.details["version"] == 2
    # and the previous version is restorable
    client.post("/dashboard/policy/history/1/restore/")
    assert current_document(tenant_a.tenant).calibration is None
    assert current_version(tenant_a.tenant) == 3


def test_a_fitted_threshold_beats_the_default_out_of_fold():
    rows = synthetic(200, 0.6)
    proposal = calibration.propose(
        [r["raw"] for r in rows], [r["label"] for r in rows], [r["detected"] for r in rows]
    )
    assert 0.2 < proposal.fit.threshold < 0.35
    assert proposal.gain.value > 0.2
    assert proposal.gain.low > 0
    assert proposal.after["balanced_accuracy"].value > proposal.before["balanced_accuracy"].value


def test_a_target_precision_is_met_out_of_fold():
    rows = synthetic(300, 0.6, seed=3)
    proposal = calibration.propose(
        [r["raw"] for r in rows], [r["label"] for r in rows], [r["detected"] for r in rows],
        objective="precision", target=0.95,
    )  # fmt: skip
    assert proposal.after["precision"].value >= 0.9
    assert proposal.after["recall"].value > proposal.before["recall"].value


def test_the_engine_applies_the_curve_before_the_threshold():
    item = DetectionInput.build(["Paris is the capital of France."], "Paris is the capital.")
    detector = load_detector("lexical")
    raw = verify(item, detection_config(PolicyDocument(), 0.5), detector)
    lifted = PolicyDocument(
        calibration=Calibration(
            method="isotonic", x=[0.0, 1.0], y=[0.8, 0.9], dataset="s", dataset_version=1,
            labels=100,
        )
    )  # fmt: skip
    result = verify(item, detection_config(lifted, 0.5), detector)
    assert result.uncalibrated_score == raw.score
    assert result.score == pytest.approx(0.8 + 0.1 * raw.score, abs=1e-6)
    assert result.detected is True


def test_the_api_says_whether_a_score_is_calibrated(tenant_a, client_a):
    plain = make_job(tenant_a.tenant)
    fitted = make_job(
        tenant_a.tenant,
        score_calibration={"calibrated": True, "method": "isotonic", "dataset": "support",
                           "dataset_version": 3},
    )  # fmt: skip
    assert VerificationSerializer(plain).data["score_calibration"] == {"calibrated": False}
    body = client_a.get(f"/v1/verifications/{fitted.public_id}").json()
    assert body["score_calibration"]["dataset_version"] == 3
