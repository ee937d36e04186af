"""A LangChain runnable that verifies a chain's answer against its retrieved documents.

    chain = (
        RunnableParallel(context=retriever, question=RunnablePassthrough())
        | RunnablePassthrough.assign(answer=prompt | llm | StrOutputParser())
        | TruthLensVerifier(client=TruthLens())
    )
    out = chain.invoke("When was the Eiffel Tower built?")
    out["verification"].detected, out["verification"].spans

The input is a dict holding the documents (`context`), the question (`question`) and the
answer (`answer`; a string or a message); the output is the same dict plus `verification`.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import Runnable, RunnableConfig

from ..aio import AsyncTruthLens
from ..client import TruthLens
from ._text import passages, text_of


class TruthLensVerifier(Runnable[dict[str, Any], dict[str, Any]]):
    def __init__(
        self,
        client: TruthLens | None = None,
        *,
        async_client: AsyncTruthLens | None = None,
        context_key: str = "context",
        question_key: str = "question",
        answer_key: str = "answer",
        output_key: str = "verification",
        timeout: float = 120.0,
        **verify_options: Any,
    ):
        self.client = client
        self.async_client = async_client
        self.keys = (context_key, question_key, answer_key)
        self.output_key = output_key
        self.timeout = timeout
        self.options = verify_options  # mode, threshold, metadata... for every call

    def _fields(self, value: dict[str, Any]) -> dict[str, Any]:
        context_key, question_key, answer_key = self.keys
        if not isinstance(value, dict) or answer_key not in value:
            raise ValueError(f"TruthLensVerifier takes a dict with {answer_key!r}")
        question = value.get(question_key)
        return {
            "context": passages(value.get(context_key)),
            "query": text_of(question) if question is not None else None,
            "response": text_of(value[answer_key]),
            "timeout": self.timeout,
            **self.options,
        }

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        client = self.client or TruthLens()
        result = client.verify(**self._fields(input))
        return {**input, self.output_key: result}

    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        if self.async_client is None:
            async with AsyncTruthLens(**_settings_of(self.client) if self.client else {}) as client:
                result = await client.verify(**self._fields(input))
        else:
            result = await self.async_client.verify(**self._fields(input))
        return {**input, self.output_key: result}


def _settings_of(client: TruthLens) -> dict[str, Any]:
    settings = client.settings
    return {
        "api_key": settings.api_key,
        "base_url": settings.base_url,
        "timeout": settings.timeout,
        "max_retries": settings.retry.max_retries,
    }
