"""How much of an answer the detector checked, for the detail page of a truncated answer.

A detector window holds only so many answer tokens; the rest is never scored
(`Coverage.answer_truncated`, stored on the job as `coverage`). The page then
says how many tokens were checked and draws the unchecked tail apart, so an
empty list of flagged spans is not read as "the whole answer is fine".
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AnswerCoverage:
    tokens_checked: int
    tokens_given: int
    chars_checked: int | None  # None: jobs from before the offset was recorded

    @property
    def summary(self) -> str:
        return f"{self.tokens_checked:,} of {self.tokens_given:,} answer tokens checked"


def answer_coverage(coverage: dict | None, answer: str) -> AnswerCoverage | None:
    """The coverage of a truncated answer; None when the whole answer was checked."""
    if not isinstance(coverage, dict) or not coverage.get("answer_truncated"):
        return None
    chars = coverage.get("answer_chars_checked")
    if not isinstance(chars, int) or not 0 <= chars < len(answer):
        chars = None
    return AnswerCoverage(
        tokens_checked=int(coverage.get("answer_tokens_checked") or 0),
        tokens_given=int(coverage.get("answer_tokens_given") or 0),
        chars_checked=chars,
    )


def split_answer(answer: str, coverage: AnswerCoverage | None) -> tuple[str, str]:
    """(the checked prefix, the unchecked tail); the tail is "" when nothing was cut or
    where the cut was not recorded."""
    if coverage is None or coverage.chars_checked is None:
        return answer, ""
    return answer[: coverage.chars_checked], answer[coverage.chars_checked :]
