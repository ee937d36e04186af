"""Turning a calibration proposal into the tenant's policy: a new, audit-logged version
(restorable from the policy history like any other), never a silent change."""

from __future__ import annotations

from engine import Calibration, PolicyDocument, QueryTypeCalibration
from quality.calibration import Proposal, TypedProposal

from .models import PolicyChange
from .policy.actions import save_policy


def _threshold(current: PolicyDocument, proposal: Proposal) -> float:
    t = proposal.fit.threshold
    shifted = (
        t - current.uncertain_above
        if current.on_uncertain == "pass"
        else t + current.uncertain_below
    )
    return round(min(1.0, max(0.0, shifted)), 4)


def calibrated_document(
    current: PolicyDocument, typed: TypedProposal | Proposal, dataset
) -> PolicyDocument:
    """`current` with the fitted threshold and curve, and a fit of its own for each query type
    that had enough labels (`calibration_by_query_type`; other types use the overall fit).

    The fit flags an answer when its (calibrated) score reaches `t`. The policy's uncertainty
    band moves with its threshold: with `on_uncertain: pass` a score in
    [threshold - below, threshold + above) passes, so the threshold is set to `t - above`
    (flagged from `t` on); with `flag` those answers are flagged, so it is `t + below`.
    """
    if isinstance(typed, Proposal):
        typed = TypedProposal(typed)
    proposal = typed.overall
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
    by_type = {
        qtype: QueryTypeCalibration(
            method=fitted.fit.curve.method,
            threshold=_threshold(current, fitted),
            x=list(fitted.fit.curve.x),
            y=list(fitted.fit.curve.y),
            dataset=dataset.name,
            dataset_version=dataset.version,
            labels=fitted.labels,
        )
        for qtype, fitted in typed.by_type.items()
    }
    return current.model_copy(
        update={
            "threshold": _threshold(current, proposal),
            "calibration": calibration,
            "calibration_by_query_type": by_type,
        }
    )


def adopt(tenant, user, current: PolicyDocument, typed: TypedProposal | Proposal, dataset):
    """Publish the calibrated policy as a new version; the `PolicyChange` (None: unchanged)."""
    document = calibrated_document(current, typed, dataset)
    return save_policy(tenant, user, document, PolicyChange.CALIBRATION)
