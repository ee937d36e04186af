"""One entry point for the worker: run the chosen mode, degrading when models are missing.

The worker resolves the mode (request override, policy, or the bandit for
`auto`) and the tenant's models; this picks the implementation. A mode that
needs models the tenant has not configured falls back to the next one that
works (premium -> standard -> no-LLM repair) and says so in `warnings`,
because a cheaper mitigation is better than none.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..policy import PolicyDocument
from ..types import DetectionInput, DetectionResult
from .lightweight import lightweight
from .llm import Budget, LLMClient, ModelConfig
from .premium import PremiumSettings, cross_check
from .refine import RefineSettings, refine
from .repair import repair
from .result import Iteration, MitigationResult, Redetect


@dataclass(frozen=True)
class Models:
    """The tenant's models for this request; `primary` is the one that wrote the answer."""

    primary: ModelConfig | None = None
    verifiers: tuple[ModelConfig, ...] = ()
    judge: ModelConfig | None = None


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
    """Mitigate `item.response` in `mode` ("lightweight" | "standard" | "premium").

    `threshold` and `max_iterations` come from the resolved policy decision and
    default to the policy's own. Answers that pass (`score < threshold`) or were
    not verified come back unchanged with stop_reason "passed" / "not_verified".
    """
    if mode not in ("lightweight", "standard", "premium"):
        raise ValueError(f"mode must be resolved before mitigation, got {mode!r}")
    limit = policy.threshold if threshold is None else threshold
    if detection.status != "verified" or detection.score is None:
        return passthrough(item, detection, "not_verified")
    if detection.score < limit:
        return passthrough(item, detection, "passed")
    models = models or Models()
    warnings: list[str] = []

    if mode == "premium":
        if client is not None and models.verifiers and models.judge is not None:
            settings = PremiumSettings(
                max_iterations=policy.premium.max_iterations,
                require_consensus=policy.premium.require_consensus,
                threshold=limit,
            )
            return cross_check(
                item, detection, redetect, client, models.verifiers, models.judge, settings, budget
            )
        warnings.append("premium needs verification and judge models; fell back to standard")
        mode = "standard"
    if mode == "standard":
        if client is not None and models.primary is not None:
            result = refine(
                item,
                detection,
                redetect,
                client,
                models.primary,
                RefineSettings.from_policy(policy, max_iterations),
                budget,
            )
        else:
            warnings.append("no LLM configured; repaired without one")
            result = repair(item, detection, redetect=redetect)
    else:
        result = lightweight(item, detection, limit, policy.warning_template)
    result.warnings[:0] = warnings
    return result
