"""Turning a calibration proposal into the tenant's policy: a new, audit-logged version
(restorable from the policy history like any other), never a silent change."""

from __future__ import annotations

from quality.calibration import Proposal
from verification.engine.policy import Calibration, PolicyDocument

from .models import PolicyChange
from .policy_actions import save_policy


def calibrated_document(current: PolicyDocument, proposal: Proposal, dataset) -> PolicyDocument:
    """`current` with the fitted threshold and curve.

    The fit flags an answer when its (calibrated) score reaches `t`. The policy's uncertainty
    band moves with its threshold: with `on_uncertain: pass` a score in
    [threshold - below, threshold + above) passes, so the threshold is set to `t - above`
    (flagged from `t` on); with `flag` those answers are flagged, so it is `t + below`.
    """
    t = proposal.fit.threshold
    shifted = (
        t - current.uncertain_above
        if current.on_uncertain == "pass"
        else t + current.uncertain_below
    )
    curve = proposal.fit.curve
    calibration = None
    if curve.method != "threshold":
        calibration = Calibration(
            method=curve.method,
            x=list(curve.x),
            y=list(curve.y),
            dataset=dataset.name,
            dataset_version=dataset.version,
            labels=proposal.labels,
        )
    return current.model_copy(
        update={"threshold": round(min(1.0, max(0.0, shifted)), 4), "calibration": calibration}
    )


def adopt(tenant, user, current: PolicyDocument, proposal: Proposal, dataset):
    """Publish the calibrated policy as a new version; the `PolicyChange` (None: unchanged)."""
    document = calibrated_document(current, proposal, dataset)
    return save_policy(tenant, user, document, PolicyChange.CALIBRATION)
