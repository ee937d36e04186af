"""Budgeted cascade: the encoder decides clear spans, an LLM judge only the uncertain ones.

Spans whose confidence falls inside `band = [low, high)` are where the encoder
is least reliable and an LLM is worth its price; spans at or above `high` are
confirmed and spans under `low` cleared by the encoder alone. One judge call
covers all uncertain spans; its cost is split evenly over them so each span's
decision says what it cost. If the judge fails, the encoder's own call (the
0.5 midpoint) stands and the tier says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from ..types import DetectionInput, DetectionResult, Span
from .llm import Budget, LLMClient
from .llm_types import BudgetExceeded, LLMCall, LLMError, ModelConfig
from .prompts import cascade_messages, parse_cascade_reply

Tier = Literal["encoder", "llm", "encoder_fallback"]


@dataclass(frozen=True)
class CascadeSettings:
    low: float = 0.35
    high: float = 0.75
    threshold: float = 0.5  # the policy's pass threshold, to recompute `detected`


@dataclass
class SpanDecision:
    span: Span
    tier: Tier
    hallucinated: bool
    cost_usd: float = 0.0


@dataclass
class CascadeResult:
    decisions: list[SpanDecision]
    spans: list[Span]  # the confirmed spans
    score: float | None
    detected: bool | None
    calls: list[LLMCall] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def cost_usd(self) -> float:
        return sum(c.cost_usd for c in self.calls)


def cascade(
    item: DetectionInput,
    detection: DetectionResult,
    client: LLMClient,
    judge: ModelConfig,
    settings: CascadeSettings | None = None,
    budget: Budget | None = None,
) -> CascadeResult:
    """Confirm or clear each span of `detection`, spending LLM calls only inside the band.

    The score is the span-max of confirmed spans. An LLM-confirmed span's
    confidence is raised to at least `high`: the judge has settled it, and a
    confirmed span left under the threshold would contradict its own verdict.
    """
    cfg = settings or CascadeSettings()
    if detection.score is None:  # unverifiable: nothing for either tier to decide
        return CascadeResult([], [], None, None)
    uncertain = [
        (i, s) for i, s in enumerate(detection.spans, 1) if cfg.low <= s.confidence < cfg.high
    ]
    calls: list[LLMCall] = []
    warnings: list[str] = []
    verdicts: dict[int, bool] | None = None
    if uncertain:
        messages = cascade_messages(item.context, item.response, uncertain)
        try:
            reply = client.complete(judge, messages, role="cascade", budget=budget)
            calls.append(reply.call)
            verdicts = parse_cascade_reply(reply.text, [i for i, _ in uncertain])
            if verdicts is None:
                warnings.append("cascade judge reply was not usable JSON")
        except BudgetExceeded as exc:
            warnings.append(f"cascade judge skipped: {exc}")
        except LLMError as exc:
            calls.append(exc.call)
            warnings.append(f"cascade judge failed: {exc}")
    share = sum(c.cost_usd for c in calls) / len(uncertain) if uncertain else 0.0

    decisions: list[SpanDecision] = []
    uncertain_ids = {i for i, _ in uncertain}
    for i, span in enumerate(detection.spans, 1):
        if i not in uncertain_ids:
            decisions.append(SpanDecision(span, "encoder", span.confidence >= cfg.high))
        elif verdicts is not None and i in verdicts:
            kept = replace(span, confidence=max(span.confidence, cfg.high)) if verdicts[i] else span
            decisions.append(SpanDecision(kept, "llm", verdicts[i], share))
        else:
            decisions.append(SpanDecision(span, "encoder_fallback", span.confidence >= 0.5, share))
    confirmed = [d.span for d in decisions if d.hallucinated]
    score = max((s.confidence for s in confirmed), default=0.0)
    return CascadeResult(
        decisions=decisions,
        spans=confirmed,
        score=score,
        detected=score >= cfg.threshold,
        calls=calls,
        warnings=warnings,
    )
