"""The asynchronous client: `AsyncTruthLens`, the same calls as `TruthLens`, awaited."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
from tenacity import AsyncRetrying

from ._core import (
    SERVER_MAX_WAIT,
    Settings,
    list_params,
    new_idempotency_key,
    next_params,
    raise_for_problem,
    upload_parts,
    verification_body,
)
from .errors import IndexingError, VerificationTimeout
from .models import Document, Feedback, KnowledgeBase, UsageReport, Verification
from .polling import Poll


class AsyncTruthLens:
    """Async TruthLens client; `async with AsyncTruthLens(...) as client:` closes it."""

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float = 60.0,
        max_retries: int = 3,
        http_client: httpx.AsyncClient | None = None,
    ):
        self.settings = Settings.resolve(api_key, base_url, timeout, max_retries)
        self._http = http_client or httpx.AsyncClient(timeout=timeout)
        self._own_http = http_client is None
        self.verifications = AsyncVerifications(self)
        self.knowledge_bases = AsyncKnowledgeBases(self)
        self.usage = AsyncUsageAPI(self)
        self.billing = AsyncBilling(self)

    async def verify(self, *, timeout: float = 120.0, **fields: Any) -> Verification:
        """See `TruthLens.verify`."""
        idempotency_key = fields.pop("idempotency_key", None)
        started = time.monotonic()
        job = await self.verifications.create(
            wait=min(timeout, SERVER_MAX_WAIT), idempotency_key=idempotency_key, **fields
        )
        if job.is_final:
            return job
        remaining = timeout - (time.monotonic() - started)
        return await self.verifications.wait(job.id, timeout=remaining)

    async def request(
        self, method: str, path: str, *, idempotency_key: str | None = None, **kwargs: Any
    ) -> httpx.Response:
        headers = self.settings.headers()
        if method == "POST":
            headers["Idempotency-Key"] = idempotency_key or new_idempotency_key()
        headers.update(kwargs.pop("headers", {}))
        url = self.settings.base_url + path
        async for attempt in AsyncRetrying(**self.settings.retry.tenacity_kwargs()):
            with attempt:
                response = await self._http.request(method, url, headers=headers, **kwargs)
                raise_for_problem(response)
        return response

    async def close(self) -> None:
        if self._own_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncTruthLens:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class AsyncVerifications:
    def __init__(self, client: AsyncTruthLens):
        self._c = client

    async def create(
        self, *, wait: float = 0, idempotency_key: str | None = None, **fields: Any
    ) -> Verification:
        body = verification_body(wait=wait or None, **fields)
        response = await self._c.request(
            "POST", "/v1/verifications", json=body, idempotency_key=idempotency_key
        )
        return Verification.model_validate(response.json())

    async def get(self, verification_id: str) -> Verification:
        response = await self._c.request("GET", f"/v1/verifications/{verification_id}")
        return Verification.model_validate(response.json())

    async def wait(self, verification_id: str, *, timeout: float = 120.0) -> Verification:
        poll = Poll(timeout)
        while True:
            job = await self.get(verification_id)
            if job.is_final:
                return job
            if not poll.due():
                raise VerificationTimeout(verification_id, poll.waited)
            await asyncio.sleep(poll.next_delay())

    async def list(
        self, *, limit: int | None = None, **filters: Any
    ) -> AsyncIterator[Verification]:
        params: dict[str, str] | None = list_params({"limit": limit, **filters})
        while params is not None:
            page = (await self._c.request("GET", "/v1/verifications", params=params)).json()
            for item in page["results"]:
                yield Verification.model_validate(item)
            params = next_params(page)

    async def feedback(self, verification_id: str, outcome: str, comment: str = "") -> Feedback:
        response = await self._c.request(
            "POST",
            f"/v1/verifications/{verification_id}/feedback",
            json={"outcome": outcome, "comment": comment},
        )
        return Feedback.model_validate(response.json())


class AsyncKnowledgeBases:
    def __init__(self, client: AsyncTruthLens):
        self._c = client

    async def create(self, name: str, description: str = "") -> KnowledgeBase:
        response = await self._c.request(
            "POST", "/v1/knowledge-bases", json={"name": name, "description": description}
        )
        return KnowledgeBase.model_validate(response.json())

    async def get(self, kb_id: str) -> KnowledgeBase:
        response = await self._c.request("GET", f"/v1/knowledge-bases/{kb_id}")
        return KnowledgeBase.model_validate(response.json())

    async def list(self) -> AsyncIterator[KnowledgeBase]:
        async for item in self._pages("/v1/knowledge-bases"):
            yield KnowledgeBase.model_validate(item)

    async def delete(self, kb_id: str) -> None:
        await self._c.request("DELETE", f"/v1/knowledge-bases/{kb_id}")

    async def upload(
        self,
        kb_id: str,
        file: Any,
        *,
        name: str | None = None,
        content_type: str | None = None,
        wait: bool = True,
        timeout: float = 300.0,
    ) -> Document:
        files, data = upload_parts(file, name, content_type)
        response = await self._c.request(
            "POST", f"/v1/knowledge-bases/{kb_id}/documents", files=files, data=data
        )
        document = Document.model_validate(response.json())
        if not wait:
            return document
        return await self.wait_for_document(kb_id, document.id, timeout=timeout)

    async def documents(self, kb_id: str) -> AsyncIterator[Document]:
        async for item in self._pages(f"/v1/knowledge-bases/{kb_id}/documents"):
            yield Document.model_validate(item)

    async def get_document(self, kb_id: str, document_id: str) -> Document:
        path = f"/v1/knowledge-bases/{kb_id}/documents/{document_id}"
        return Document.model_validate((await self._c.request("GET", path)).json())

    async def delete_document(self, kb_id: str, document_id: str) -> None:
        await self._c.request("DELETE", f"/v1/knowledge-bases/{kb_id}/documents/{document_id}")

    async def wait_for_document(
        self, kb_id: str, document_id: str, *, timeout: float = 300.0
    ) -> Document:
        poll = Poll(timeout)
        while True:
            document = await self.get_document(kb_id, document_id)
            if document.status == "ready":
                return document
            if document.status == "failed":
                raise IndexingError(f"{document.name}: {document.error}")
            if not poll.due():
                raise IndexingError(f"{document.name} not indexed after {poll.waited:.0f}s")
            await asyncio.sleep(poll.next_delay())

    async def _pages(self, path: str) -> AsyncIterator[dict[str, Any]]:
        params: dict[str, str] | None = {}
        while params is not None:
            page = (await self._c.request("GET", path, params=params)).json()
            for item in page["results"]:
                yield item
            params = next_params(page)


class AsyncUsageAPI:
    def __init__(self, client: AsyncTruthLens):
        self._c = client

    async def get(self, month: str | None = None) -> UsageReport:
        params = {"month": month} if month else {}
        response = await self._c.request("GET", "/v1/usage", params=params)
        return UsageReport.model_validate(response.json())


class AsyncBilling:
    def __init__(self, client: AsyncTruthLens):
        self._c = client

    async def report(self, month: str) -> dict[str, Any]:
        return (await self._c.request("GET", f"/v1/billing/reports/{month}")).json()

    async def report_csv(self, month: str) -> str:
        response = await self._c.request(
            "GET", f"/v1/billing/reports/{month}", headers={"Accept": "text/csv"}
        )
        return response.text
