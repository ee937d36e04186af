"""Standard mode: the self-refine loop of docs/policies.md "Policies and mitigation modes".

Each round sends the current best answer, its flagged spans and the context to
the same model, re-detects the revision and keeps whichever answer scores
best. The loop stops when an answer scores under `convergence_threshold`,
after `max_iterations` rounds, when the model starts repeating itself
(oscillation), when the budget would be exceeded, or when the LLM fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..policy import PolicyDocument
from ..types import DetectionInput, DetectionResult
from .llm import Budget, LLMClient
from .llm_types import BudgetExceeded, LLMError, ModelConfig
from .prompts import clean_answer, refinement_messages
from .repair import repair
from .result import Iteration, MitigationResult, Redetect, score_of

if TYPE_CHECKING:
    from .request import ModeRequest

DEFAULT_DISCLAIMER = (
    "Note: this answer could not be fully verified against the provided context"
    " (hallucination score {score:.2f}); treat these parts with caution: {spans}."
)


@dataclass(frozen=True)
class RefineSettings:
    max_iterations: int = 3
    convergence_threshold: float = 0.3
    disclaimer: str = DEFAULT_DISCLAIMER
    append_disclaimer: bool = True  # put the disclaimer into final_response too
    # Rounds in a row without beating the best score before we give up; a model
    # that cannot improve twice running is unlikely to on the third try.
    patience: int = 2

    @classmethod
    def from_policy(
        cls, policy: PolicyDocument, max_iterations: int | None = None
    ) -> RefineSettings:
        """Settings from a tenant policy; `max_iterations` from a resolved decision wins."""
        return cls(
            max_iterations=max_iterations or policy.standard.max_iterations,
            convergence_threshold=policy.standard.convergence_threshold,
        )


def _normalized(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _spans_text(result: DetectionResult) -> str:
    return ", ".join(f'"{s.text}"' for s in result.spans) or "none identified"


def refine(
    item: DetectionInput,
    initial: DetectionResult,
    redetect: Redetect,
    client: LLMClient,
    model: ModelConfig,
    settings: RefineSettings | None = None,
    budget: Budget | None = None,
) -> MitigationResult:
    """Self-refine `item.response`, whose detection is `initial`; never raises on LLM trouble.

    Returns the best-scoring answer seen (the original included), every round
    in `iterations`, and a disclaimer when no answer reached the threshold.
    """
    cfg = settings or RefineSettings()
    best_answer, best = item.response, initial
    iterations = [Iteration(0, item.response, initial.score, list(initial.spans), note="original")]
    calls = []
    warnings: list[str] = []
    seen = {_normalized(item.response)}
    stale = 0
    stop_reason = "max_iterations"

    def converged() -> bool:
        return best.score is not None and best.score < cfg.convergence_threshold

    if converged():
        stop_reason = "already_converged"
    else:
        for index in range(1, cfg.max_iterations + 1):
            # Refine the best answer so far, not the last one: a bad round must not compound.
            messages = refinement_messages(item.context, item.query, best_answer, best.spans)
            try:
                reply = client.complete(model, messages, role="refine", budget=budget)
            except BudgetExceeded as exc:
                stop_reason = "budget"
                warnings.append(f"stopped before round {index}: {exc}")
                break
            except LLMError as exc:
                calls.append(exc.call)
                iterations.append(Iteration(index, "", None, calls=[exc.call], note="llm_error"))
                stop_reason = "llm_error"
                warnings.append(f"round {index} failed: {exc}")
                break
            calls.append(reply.call)
            answer = clean_answer(reply.text)
            if not answer:
                iterations.append(Iteration(index, "", None, calls=[reply.call], note="empty"))
                stale += 1
                if stale >= cfg.patience:
                    stop_reason = "no_progress"
                    break
                continue
            result = redetect(replace(item, response=answer))
            repeated = _normalized(answer) in seen
            note = "repeat" if repeated else ""
            iterations.append(
                Iteration(index, answer, result.score, list(result.spans), [reply.call], note)
            )
            seen.add(_normalized(answer))
            if score_of(result) < score_of(best):
                best_answer, best, stale = answer, result, 0
            else:
                stale += 1
            if converged():
                stop_reason = "converged"
                break
            if repeated:
                # The model went back to an answer it already gave: more rounds would cycle.
                stop_reason = "oscillation"
                break
            if stale >= cfg.patience:
                stop_reason = "no_progress"
                break

    disclaimer = None
    final = best_answer
    if not converged():
        disclaimer = cfg.disclaimer.format(score=score_of(best), spans=_spans_text(best))
        if cfg.append_disclaimer:
            final = f"{best_answer}\n\n{disclaimer}"
    return MitigationResult(
        mode="standard",
        original_response=item.response,
        final_response=final,
        final_score=best.score,
        converged=converged(),
        stop_reason=stop_reason,
        iterations=iterations,
        calls=calls,
        diagnostics=warnings,
        disclaimer=disclaimer,
        final_spans=list(best.spans),
    )


def run_mode(request: ModeRequest) -> MitigationResult:
    """The registry's runner (`engine/modes.py`): self-refine with the tenant's model,
    or, with no LLM configured, the no-LLM repair."""
    if request.client is None or request.models.primary is None:
        result = repair(request.item, request.detection, redetect=request.redetect)
        result.diagnostics.insert(0, "no LLM configured; repaired without one")
        return result
    return refine(
        request.item,
        request.detection,
        request.redetect,
        request.client,
        request.models.primary,
        RefineSettings.from_policy(request.policy, request.max_iterations),
        request.budget,
    )
