"""A job's plan: everything decided about a request before detection runs.

Planned once, when a detect worker takes the job (`verification/stages/plan.py`
adds what needs the database: the bandit's mode choice and the tenant's model),
stored on the job when it moves to the mitigate stage, and read back there, so
the policy is resolved in one place and a later policy edit cannot change a job
half-way. `next_step` decides where a detected job goes, and `should_mitigate`
whether an LLM mode rewrites the answer; both stages ask these, nobody else.
"""

from __future__ import annotations

import enum

from pydantic import BaseModel, ConfigDict

from .mitigation.lightweight import warning_for
from .modes import mode_spec
from .pipeline import DetectionConfig
from .policy import ConcreteMode, PolicyDocument, Resolved, resolve
from .types import DetectionResult


class Step(enum.Enum):
    FINISH = "finish"  # done in the detect stage (pass, warn, unverifiable)
    REPAIR = "repair"  # a fixing mode without an LLM: the no-LLM repair, in the detect stage
    MITIGATE = "mitigate"  # the LLM queue: a fixing mode, or the cascade for uncertain spans


def resolve_request(
    policy: PolicyDocument,
    query_type: str,
    domain: str = "",
    text: str = "",
    decision: str | None = None,
    threshold: float | None = None,
    grounded_by_search: bool = False,
) -> Resolved:
    """The policy decision for a request, with the request's own threshold winning,
    else (for an answer checked against retrieved evidence) the `verify_threshold`.

    Raises `KeyError` for a decision name the policy does not have.
    """
    resolved = resolve(
        policy, query_type=query_type, domain=domain, text=text, decision_name=decision or None
    )
    if threshold is None and grounded_by_search and resolved.verify_threshold is not None:
        threshold = resolved.verify_threshold
    if threshold is not None:
        resolved = Resolved(**{**resolved.__dict__, "threshold": threshold})
    return resolved


def detection_config(policy: PolicyDocument, threshold: float) -> DetectionConfig:
    """The detection settings of `policy` at `threshold`. A query type with its own fit
    (`calibration_by_query_type`) gets its curve, and its threshold unless `threshold` is not
    the policy's own (a request's or a decision's threshold wins, as for the policy-wide fit)."""
    own = threshold == policy.threshold
    by_type = tuple(
        (
            qtype,
            fitted.threshold if own else threshold,
            (tuple(fitted.x), tuple(fitted.y)) if fitted.method != "threshold" else None,
        )
        for qtype, fitted in sorted(policy.calibration_by_query_type.items())
    )
    return DetectionConfig(
        threshold=threshold,
        token_threshold=policy.token_threshold,
        aggregation=policy.aggregation,
        skip_query_types=tuple(policy.skip_query_types),
        uncertain_band=(
            max(0.0, threshold - policy.uncertain_below),
            min(1.0, threshold + policy.uncertain_above),
        ),
        on_uncertain=policy.on_uncertain,
        evidence=policy.evidence,
        calibration=(
            (tuple(policy.calibration.x), tuple(policy.calibration.y))
            if policy.calibration is not None
            else None
        ),
        by_query_type=by_type,
    )


class JobPlan(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    policy: PolicyDocument  # as it was when the job was planned
    query_type: str
    query_type_confidence: float
    decision: str
    enabled: bool
    threshold: float
    max_iterations: int
    mode: ConcreteMode
    mode_source: str  # request | policy | bandit
    model: str = ""  # the model that wrote the answer: the request's, else the tenant's default
    # Fact-checking an answer that came without a context (`stages/ground.py`).
    search_sources: tuple[str, ...] = ("knowledge_base",)
    max_queries: int = 5

    @classmethod
    def build(
        cls,
        policy: PolicyDocument,
        resolved: Resolved,
        query_type: str,
        confidence: float,
        mode: str,
        mode_source: str,
        model: str = "",
    ) -> JobPlan:
        return cls(
            policy=policy,
            query_type=query_type,
            query_type_confidence=confidence,
            decision=resolved.decision,
            enabled=resolved.enabled,
            threshold=resolved.threshold,
            max_iterations=resolved.max_iterations,
            mode=mode,
            mode_source=mode_source,
            model=model,
            search_sources=resolved.search_sources,
            max_queries=resolved.max_queries,
        )

    @property
    def config(self) -> DetectionConfig:
        return detection_config(self.policy, self.threshold)

    def should_mitigate(self, result: DetectionResult) -> bool:
        """Does the job's mode rewrite this answer? (A fixing mode, on, and flagged.)"""
        return (
            mode_spec(self.mode).needs_llm
            and self.enabled
            and result.status == "verified"
            and bool(result.detected)
        )

    def uncertain(self, result: DetectionResult) -> bool:
        """Is any span in the policy's cascade band (an LLM judge should decide it)?"""
        band = self.policy.cascade
        return band.enabled and any(band.low <= s.confidence < band.high for s in result.spans)

    def next_step(self, result: DetectionResult, has_llm: bool) -> Step:
        """Where a detected job goes; `has_llm`: the tenant has an LLM provider."""
        if has_llm and self.enabled and result.status == "verified" and self.uncertain(result):
            return Step.MITIGATE
        if self.should_mitigate(result):
            if has_llm:
                return Step.MITIGATE
            if mode_spec(self.mode).repairs_without_llm:
                return Step.REPAIR
        return Step.FINISH

    def warning(self, result: DetectionResult) -> str:
        return warning_for(self.enabled, self.policy, result, self.threshold)
