"""One entry point for the worker: run the chosen mode, degrading when models are missing.

The worker resolves the mode (request override, policy, or the bandit for
`auto`) and the tenant's models; this looks the mode up in the registry
(`engine/modes.py`) and runs it. A mode that needs models the tenant has not
configured falls back to its registered `fallback` (premium -> standard; standard
without an LLM repairs without one) and says so in `diagnostics`, because a cheaper
mitigation is better than none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..modes import AUTO, mode_spec
from ..policy import PolicyDocument
from ..types import DetectionInput, DetectionResult
from .request import Models, ModeRequest
from .result import Iteration, MitigationResult, Redetect
from .runners import load_runner

if TYPE_CHECKING:
    from .llm import Budget, LLMClient


def passthrough(item: DetectionInput, detection: DetectionResult, reason: str) -> MitigationResult:
    """The answer as it is: it passed, or there was nothing we could check."""
    return MitigationResult(
        mode="none",
        original_response=item.response,
        final_response=item.response,
        final_score=detection.score,
        converged=detection.detected is False,
        stop_reason=reason,
        iterations=[Iteration(0, item.response, detection.score, list(detection.spans))],
        final_spans=list(detection.spans),
    )


def mitigate(
    mode: str,
    item: DetectionInput,
    detection: DetectionResult,
    policy: PolicyDocument,
    redetect: Redetect,
    client: LLMClient | None = None,
    models: Models | None = None,
    budget: Budget | None = None,
    threshold: float | None = None,
    max_iterations: int | None = None,
) -> MitigationResult:
    """Mitigate `item.response` in `mode` (a registered mode, `engine/modes.py`).

    `threshold` and `max_iterations` come from the resolved policy decision and
    default to the policy's own. Answers that pass (`score < threshold`) or were
    not verified come back unchanged with stop_reason "passed" / "not_verified".
    """
    if mode == AUTO:
        raise ValueError("mode must be resolved before mitigation, got 'auto'")
    spec = mode_spec(mode)
    limit = policy.threshold if threshold is None else threshold
    if detection.status != "verified" or detection.score is None:
        return passthrough(item, detection, "not_verified")
    if detection.score < limit:
        return passthrough(item, detection, "passed")
    request = ModeRequest(
        item, detection, policy, redetect, limit, client, models or Models(), budget, max_iterations
    )
    warnings: list[str] = []
    while True:
        result = load_runner(spec.name)(request)
        if result is not None:
            break
        if spec.fallback is None:
            raise RuntimeError(f"mode {spec.name!r} could not run and has no fallback")
        warnings.append(spec.fallback_warning)
        spec = mode_spec(spec.fallback)
    result.diagnostics[:0] = warnings  # the fallbacks, for operators
    return result
