"""Bandit arms for the mode-selection page, read from `verification.ModeArm` when it exists.

The bandit (DESIGN §6) lands separately; until its model is installed this
returns no arms and the page shows an empty state instead of invented
numbers. Expected fields: `tenant`, `query_type`, `mode`, `alpha`, `beta`
(Beta posterior parameters), optionally `pulls` and `updated_at`; recent
rewards from a reverse relation `rewards` (rows with `reward`, `created_at`)
or a JSON list field `recent_rewards`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.apps import apps

from .posterior import summary


@dataclass
class ArmView:
    query_type: str
    mode: str
    alpha: float
    beta: float
    pulls: int
    mean: float
    low: float
    high: float
    recent_rewards: list[float] = field(default_factory=list)
    updated_at: object = None


def arm_model():
    try:
        return apps.get_model("verification", "ModeArm")
    except LookupError:
        return None


def _recent(arm, limit: int = 10) -> list[float]:
    stored = getattr(arm, "recent_rewards", None)
    if isinstance(stored, list):
        return [float(r) for r in stored[-limit:]]
    return [float(getattr(r, "reward", 0.0)) for r in getattr(arm, "prefetched_rewards", [])[:limit]]


def arms_for(scope) -> list[ArmView]:
    """The current tenant's arms, grouped by query type then mode."""
    model = arm_model()
    if model is None:
        return []
    queryset = scope.filter(model.objects.all()).order_by("query_type", "mode")
    if hasattr(model, "rewards"):
        from django.db.models import Prefetch

        related = model.rewards.rel.related_model
        queryset = queryset.prefetch_related(
            Prefetch("rewards", queryset=related.objects.order_by("-created_at"), to_attr="prefetched_rewards")
        )
    out = []
    for arm in queryset:
        alpha, beta = float(arm.alpha), float(arm.beta)
        mean, low, high = summary(alpha, beta)
        out.append(
            ArmView(
                query_type=arm.query_type or "other",
                mode=arm.mode,
                alpha=alpha,
                beta=beta,
                pulls=int(getattr(arm, "pulls", None) or max(0, round(alpha + beta - 2))),
                mean=mean,
                low=low,
                high=high,
                recent_rewards=_recent(arm),
                updated_at=getattr(arm, "updated_at", None),
            )
        )
    return out


def grouped(arms: list[ArmView]) -> list[tuple[str, list[ArmView]]]:
    groups: dict[str, list[ArmView]] = {}
    for arm in arms:
        groups.setdefault(arm.query_type, []).append(arm)
    return list(groups.items())
