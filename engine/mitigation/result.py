"""What every mitigation mode returns, so workers store and the dashboard draws one shape."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ..types import DetectionInput, DetectionResult, Span
from .llm_types import LLMCall

#: The re-detection function a mode calls on each candidate answer. The worker
#: binds it to the real pipeline, e.g. `lambda item: verify(item, config, detector)`;
#: tests bind a fake one.
Redetect = Callable[[DetectionInput], DetectionResult]

ChangeKind = Literal["removed", "qualified", "replaced", "kept"]


def score_of(result: DetectionResult | None) -> float:
    """A result's score for ranking answers: an unscorable answer ranks worst."""
    if result is None or result.score is None:
        return 1.0
    return result.score


@dataclass
class Change:
    """One edit to the answer; offsets are in the text the edit was applied to."""

    kind: ChangeKind
    start: int
    end: int
    before: str
    after: str
    reason: str = ""
    tier: str = ""  # who decided: "repair", "judge", "fallback", "consensus"


@dataclass
class Iteration:
    """One step of the trajectory the dashboard plots: the answer and what it cost."""

    index: int
    answer: str
    score: float | None
    spans: list[Span] = field(default_factory=list)
    calls: list[LLMCall] = field(default_factory=list)
    note: str = ""

    @property
    def cost_usd(self) -> float:
        return sum(c.cost_usd for c in self.calls)


@dataclass
class MitigationResult:
    """The outcome of one mitigation mode.

    `calls` is every LLM call made, failed ones included; `cost_usd` and the
    token totals are derived from it so they always add up.
    """

    mode: str
    original_response: str
    final_response: str
    final_score: float | None
    converged: bool
    stop_reason: str
    iterations: list[Iteration] = field(default_factory=list)
    calls: list[LLMCall] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    #: For the end user: the policy's warning text (lightweight), never internal notes.
    warnings: list[str] = field(default_factory=list)
    disclaimer: str | None = None
    #: For operators: fallbacks, failed or unusable LLM calls ("judge reply was not
    #: usable JSON"); stored as the verification's `diagnostics`, never as its warning.
    diagnostics: list[str] = field(default_factory=list)
    final_spans: list[Span] = field(default_factory=list)

    @property
    def cost_usd(self) -> float:
        return sum(c.cost_usd for c in self.calls)

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.calls)

    @property
    def completion_tokens(self) -> int:
        return sum(c.completion_tokens for c in self.calls)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(
            cost_usd=self.cost_usd,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            llm_calls=len(self.calls),
        )
        for it, raw in zip(self.iterations, data["iterations"], strict=True):
            raw["cost_usd"] = it.cost_usd
        return data
