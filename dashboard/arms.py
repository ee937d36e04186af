"""Bandit arms (`verification.ModeArm`) as the mode-selection page shows them."""

from __future__ import annotations

from dataclasses import dataclass, field

from verification.models import ModeArm

from .posterior import summary

RECENT = 10


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
    reward_sum: float = 0.0
    recent_rewards: list[float] = field(default_factory=list)

    @property
    def mean_reward(self) -> float | None:
        return self.reward_sum / self.pulls if self.pulls else None


def arms_for(scope) -> list[ArmView]:
    """The current tenant's arms, ordered by query type then mode."""
    out = []
    for arm in scope.filter(ModeArm.objects.all()).order_by("query_type", "mode"):
        mean, low, high = summary(float(arm.alpha), float(arm.beta))
        rewards = arm.last_rewards if isinstance(arm.last_rewards, list) else []
        out.append(
            ArmView(
                query_type=arm.query_type or "other",
                mode=arm.mode,
                alpha=float(arm.alpha),
                beta=float(arm.beta),
                pulls=arm.pulls,
                mean=mean,
                low=low,
                high=high,
                reward_sum=float(arm.reward_sum),
                recent_rewards=[float(r) for r in rewards[-RECENT:]],
            )
        )
    return out


def grouped(arms: list[ArmView]) -> list[tuple[str, list[ArmView]]]:
    groups: dict[str, list[ArmView]] = {}
    for arm in arms:
        groups.setdefault(arm.query_type, []).append(arm)
    return list(groups.items())
