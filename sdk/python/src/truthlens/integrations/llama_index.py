"""A LlamaIndex evaluator: a Response and its source nodes in, pass/fail with spans out.

evaluator = TruthLensEvaluator(api_key=..., base_url=...)
result = evaluator.evaluate_response(query="...", response=query_engine.query("..."))
result.passing, result.score, result.spans
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.evaluation import BaseEvaluator, EvaluationResult
from llama_index.core.prompts.mixin import PromptDictType
from pydantic import Field

from ..aio import AsyncTruthLens
from ..models import Span, Verification
from ._text import describe


class TruthLensEvaluationResult(EvaluationResult):
    """An `EvaluationResult` with the flagged spans and the whole verification."""

    spans: list[Span] = Field(default_factory=list)
    verification: Verification | None = None


class TruthLensEvaluator(BaseEvaluator):
    """`passing` when TruthLens completed and flagged nothing; `score` is 1 minus the
    hallucination score (higher is better, as in LlamaIndex's other evaluators)."""

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float = 120.0,
        **verify_options: Any,
    ):
        self._client_args = {"api_key": api_key, "base_url": base_url}
        self._timeout = timeout
        self._options = verify_options

    def _get_prompts(self) -> PromptDictType:
        return {}

    def _update_prompts(self, prompts_dict: PromptDictType) -> None:
        pass

    async def aevaluate(
        self,
        query: str | None = None,
        response: str | None = None,
        contexts: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> TruthLensEvaluationResult:
        if response is None:
            raise ValueError("TruthLensEvaluator needs a response")
        # one client per call: `evaluate()` runs each call in an event loop of its own
        async with AsyncTruthLens(**self._client_args) as client:
            result = await client.verify(
                context=list(contexts or []),
                query=query,
                response=response,
                timeout=self._timeout,
                **self._options,
            )
        return TruthLensEvaluationResult(
            query=query,
            contexts=list(contexts or []),
            response=response,
            passing=result.passed,
            score=None if result.score is None else round(1.0 - result.score, 6),
            feedback=describe(result),
            invalid_result=result.status != "completed",
            invalid_reason=None if result.status == "completed" else describe(result),
            spans=list(result.spans),
            verification=result,
        )
