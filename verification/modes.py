"""Mitigation modes this deployment can run, and how a request's mode is chosen."""

from __future__ import annotations

from dataclasses import dataclass

from .engine.policy import PolicyDocument

ALL_MODES = ("lightweight", "standard", "premium")
# Self-refine and cross-model modes land with the mitigation work (issue 4);
# until then only the warning mode runs, and requests for others are refused
# with a clear 400 rather than silently downgraded.
AVAILABLE_MODES = ("lightweight",)


@dataclass(frozen=True)
class ModeChoice:
    mode: str
    source: str  # request | policy | default | fallback


def choose_mode(requested: str, policy: PolicyDocument, decision_mode: str) -> ModeChoice:
    if requested and requested != "auto":
        return ModeChoice(requested, "request")
    candidate = decision_mode if decision_mode != "auto" else policy.default_mode
    if candidate == "auto":
        # Thompson sampling over allowed modes arrives with the bandit (issue 4).
        return ModeChoice(AVAILABLE_MODES[0], "default")
    if candidate not in AVAILABLE_MODES:
        return ModeChoice(AVAILABLE_MODES[0], "fallback")
    return ModeChoice(candidate, "policy")
