"""Premium mode: cross-model checking with a judge (docs/policies.md "Policies and mitigation modes").

1. The verification models answer the same query from the same context, in parallel.
2. The primary answer is split into sentence claims; each is checked against the
   detector's spans (grounding) and against the other answers (agreement).
3. Claims the detector flags or another model contradicts go to the judge with
   that evidence; the judge keeps, replaces or removes each one, and only those
   segments of the answer change.
4. A final detection pass scores the result.
If the judge fails (error, unusable JSON), grounded claims are kept and disputed
ones come back qualified, so a judge outage degrades the answer's confidence
rather than its content. `require_consensus` qualifies claims the judge left
unresolved; without it the primary model's wording stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..types import DetectionInput, DetectionResult, Span
from .added_text import unscored
from .agreement import Comparison, Similarity, compare, lexical_similarity
from .llm import Budget, LLMClient
from .llm_types import BudgetExceeded, LLMCall, LLMError, LLMRequest, ModelConfig
from .prompts import DisputedClaim, JudgeVerdict, answer_messages, judge_messages, parse_judge_reply
from .repair import DEFAULT_QUALIFIER, qualify
from .result import Change, Iteration, MitigationResult, Redetect, score_of
from .segments import Segment, replace_segments, split_sentences

if TYPE_CHECKING:
    from .request import ModeRequest


@dataclass(frozen=True)
class PremiumSettings:
    max_iterations: int = 1
    require_consensus: bool = False
    threshold: float = 0.5  # the policy's pass threshold: under it, no further round
    qualifier: str = DEFAULT_QUALIFIER
    topic_threshold: float = 0.3
    agree_threshold: float = 0.6


@dataclass
class ClaimCheck:
    """Everything known about one claim of the primary answer."""

    segment: Segment
    spans: list[Span] = field(default_factory=list)
    comparisons: list[Comparison] = field(default_factory=list)

    @property
    def disputed(self) -> bool:
        return bool(self.spans) or any(c.stance == "conflict" for c in self.comparisons)

    def evidence(self) -> str:
        parts = []
        for s in self.spans:
            part = f'{s.label} {s.confidence:.2f}: "{s.text}"'
            if s.evidence is not None and s.evidence.text:
                part += f' (context: "{s.evidence.text}")'
            parts.append(part)
        return "; ".join(parts)


def check_claims(
    answer: str,
    detection: DetectionResult,
    references: Sequence[str],
    settings: PremiumSettings,
    similarity: Similarity = lexical_similarity,
) -> list[ClaimCheck]:
    """Split `answer` into claims and attach overlapping spans and each reference's stance."""
    ref_segments = [split_sentences(r) for r in references]
    checks = []
    for seg in split_sentences(answer):
        spans = [s for s in detection.spans if s.start < seg.end and s.end > seg.start]
        comparisons = [
            compare(seg.text, segs, similarity, settings.topic_threshold, settings.agree_threshold)
            for segs in ref_segments
        ]
        checks.append(ClaimCheck(seg, spans, comparisons))
    return checks


def _reference_answers(
    item: DetectionInput,
    client: LLMClient,
    verifiers: Sequence[ModelConfig],
    budget: Budget | None,
    calls: list[LLMCall],
    warnings: list[str],
) -> list[str]:
    messages = answer_messages(item.context, item.query)
    requests = [LLMRequest(v, messages, role="verify") for v in verifiers]
    answers = []
    for cfg, outcome in zip(verifiers, client.complete_many(requests, budget), strict=True):
        if isinstance(outcome, BudgetExceeded):
            warnings.append(f"verification model {cfg.model} skipped: {outcome}")
        elif isinstance(outcome, LLMError):
            calls.append(outcome.call)
            warnings.append(f"verification model {cfg.model} failed: {outcome}")
        elif outcome.text.strip():
            calls.append(outcome.call)
            answers.append(outcome.text.strip())
        else:
            calls.append(outcome.call)
    return answers


def _ask_judge(
    item: DetectionInput,
    disputed: list[tuple[int, ClaimCheck]],
    client: LLMClient,
    judge: ModelConfig | None,
    budget: Budget | None,
    calls: list[LLMCall],
    warnings: list[str],
) -> dict[int, JudgeVerdict] | None:
    """The judge's verdicts by claim id, or None when there is no usable ruling."""
    if judge is None:
        warnings.append("no judge model configured")
        return None
    claims = [
        DisputedClaim(
            id=cid,
            text=check.segment.text,
            detector=check.evidence(),
            alternatives=tuple(c.other for c in check.comparisons if c.stance != "absent"),
        )
        for cid, check in disputed
    ]
    try:
        reply = client.complete(
            judge, judge_messages(item.context, item.query, claims), "judge", budget
        )
    except BudgetExceeded as exc:
        warnings.append(f"judge skipped: {exc}")
        return None
    except LLMError as exc:
        calls.append(exc.call)
        warnings.append(f"judge failed: {exc}")
        return None
    calls.append(reply.call)
    verdicts = parse_judge_reply(reply.text, [cid for cid, _ in disputed])
    if verdicts is None:
        warnings.append("judge reply was not usable JSON")
    return verdicts


def _apply(
    answer: str,
    checks: list[ClaimCheck],
    disputed: list[tuple[int, ClaimCheck]],
    verdicts: dict[int, JudgeVerdict] | None,
    settings: PremiumSettings,
) -> tuple[str, list[Change]]:
    edits: list[tuple[int, int, str]] = []
    changes: list[Change] = []
    for cid, check in disputed:
        seg = check.segment
        verdict = verdicts.get(cid) if verdicts is not None else None
        if verdict is None:
            # No ruling: a failed judge always qualifies; a silent one only under consensus.
            if verdicts is None or settings.require_consensus:
                new = qualify(seg.text, settings.qualifier)
                tier = "fallback" if verdicts is None else "consensus"
                edits.append((seg.start, seg.end, new))
                changes.append(
                    Change("qualified", seg.start, seg.end, seg.text, new, "unresolved", tier)
                )
            else:
                changes.append(
                    Change("kept", seg.start, seg.end, seg.text, seg.text, "unresolved", "primary")
                )
        elif verdict.action == "keep":
            changes.append(
                Change("kept", seg.start, seg.end, seg.text, seg.text, verdict.reason, "judge")
            )
        elif verdict.action == "replace":
            edits.append((seg.start, seg.end, verdict.replacement))
            changes.append(
                Change(
                    "replaced",
                    seg.start,
                    seg.end,
                    seg.text,
                    verdict.replacement,
                    verdict.reason,
                    "judge",
                )
            )
        else:
            edits.append((seg.start, seg.end, ""))
            changes.append(
                Change("removed", seg.start, seg.end, seg.text, "", verdict.reason, "judge")
            )
    removed = {e[0] for e in edits if e[2] == ""}
    if checks and len(removed) == len(checks):
        # Removing every claim leaves no answer; qualify the last one instead.
        last = max(removed)
        seg = next(c.segment for c in checks if c.segment.start == last)
        edits = [e for e in edits if e[0] != last] + [
            (last, seg.end, qualify(seg.text, settings.qualifier))
        ]
    return replace_segments(answer, edits), changes


def cross_check(
    item: DetectionInput,
    initial: DetectionResult,
    redetect: Redetect,
    client: LLMClient,
    verifiers: Sequence[ModelConfig],
    judge: ModelConfig | None,
    settings: PremiumSettings | None = None,
    budget: Budget | None = None,
    similarity: Similarity = lexical_similarity,
) -> MitigationResult:
    """Premium mitigation of `item.response` (the primary answer); never raises on LLM trouble."""
    cfg = settings or PremiumSettings()
    redetect = unscored(redetect, cfg.qualifier)  # our qualifier is never scored
    calls: list[LLMCall] = []
    warnings: list[str] = []
    changes: list[Change] = []
    iterations = [Iteration(0, item.response, initial.score, list(initial.spans), note="original")]
    # The other models' answers do not depend on the primary's revisions: ask once.
    references = _reference_answers(item, client, verifiers, budget, calls, warnings)
    ref_calls = list(calls)

    answer, current = item.response, initial
    stop_reason = "max_iterations"
    for index in range(1, cfg.max_iterations + 1):
        round_calls = ref_calls if index == 1 else []
        checks = check_claims(answer, current, references, cfg, similarity)
        disputed = [(cid, c) for cid, c in enumerate(checks, 1) if c.disputed]
        if not disputed:
            stop_reason = "agreement" if index == 1 else "resolved"
            if index == 1:
                iterations.append(
                    Iteration(
                        1, answer, current.score, list(current.spans), round_calls, "agreement"
                    )
                )
            break
        before = len(calls)
        verdicts = _ask_judge(item, disputed, client, judge, budget, calls, warnings)
        round_calls = round_calls + calls[before:]
        answer, round_changes = _apply(answer, checks, disputed, verdicts, cfg)
        changes.extend(round_changes)
        current = redetect(replace(item, response=answer))  # the final detection pass
        note = "judge" if verdicts is not None else "judge_fallback"
        iterations.append(
            Iteration(index, answer, current.score, list(current.spans), round_calls, note)
        )
        if verdicts is None:
            stop_reason = "judge_failed"
            break
        if current.score is not None and current.score < cfg.threshold:
            stop_reason = "resolved"
            break

    # Unlike self-refine, the last answer stands even if it scores worse: the judge's rulings
    # and the qualifications are the product, and the detector may penalise qualifier text.
    if score_of(current) > score_of(initial):
        warnings.append("the revised answer scores worse than the original")
    converged = current.score is not None and current.score < cfg.threshold
    return MitigationResult(
        mode="premium",
        original_response=item.response,
        final_response=answer,
        final_score=current.score,
        converged=converged,
        stop_reason=stop_reason,
        iterations=iterations,
        calls=calls,
        changes=changes,
        diagnostics=warnings,
        final_spans=list(current.spans),
    )


def run_mode(request: ModeRequest) -> MitigationResult | None:
    """The registry's runner (`engine/modes.py`); None without verifier and judge
    models, so the registry's fallback (standard) runs instead."""
    models = request.models
    if request.client is None or not models.verifiers or models.judge is None:
        return None
    settings = PremiumSettings(
        max_iterations=request.policy.premium.max_iterations,
        require_consensus=request.policy.premium.require_consensus,
        threshold=request.threshold,
    )
    return cross_check(
        request.item,
        request.detection,
        request.redetect,
        request.client,
        models.verifiers,
        models.judge,
        settings,
        request.budget,
    )
