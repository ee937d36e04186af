"""The synchronous client: `TruthLens(api_key=..., base_url=...)`."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
from tenacity import Retrying

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


class TruthLens:
    """A TruthLens API client (thread-safe; reuse one per process).

    `api_key` and `base_url` default to `TRUTHLENS_API_KEY` and `TRUTHLENS_BASE_URL`.
    Calls that fail with 429, 5xx or a dropped connection are retried `max_retries` times.
    """

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float = 60.0,
        max_retries: int = 3,
        http_client: httpx.Client | None = None,
    ):
        self.settings = Settings.resolve(api_key, base_url, timeout, max_retries)
        self._http = http_client or httpx.Client(timeout=timeout)
        self._own_http = http_client is None
        self.verifications = Verifications(self)
        self.knowledge_bases = KnowledgeBases(self)
        self.usage = UsageAPI(self)
        self.billing = Billing(self)

    def verify(self, *, timeout: float = 120.0, **fields: Any) -> Verification:
        """Verify an answer and return the final result (completed or failed).

        Takes the fields of `POST /v1/verifications` (`context`, `query`, `response`, or
        `messages`; `knowledge_base`, `mode`, `threshold`, `model`, `metadata`...). Raises
        `VerificationTimeout` when the job is not final after `timeout` seconds.
        """
        idempotency_key = fields.pop("idempotency_key", None)
        started = time.monotonic()
        job = self.verifications.create(
            wait=min(timeout, SERVER_MAX_WAIT), idempotency_key=idempotency_key, **fields
        )
        if job.is_final:
            return job
        return self.verifications.wait(job.id, timeout=timeout - (time.monotonic() - started))

    def request(
        self,
        method: str,
        path: str,
        *,
        idempotency_key: str | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        """One API call with retries; a POST keeps one `Idempotency-Key` across them."""
        headers = self.settings.headers()
        if method == "POST":
            headers["Idempotency-Key"] = idempotency_key or new_idempotency_key()
        headers.update(kwargs.pop("headers", {}))
        url = self.settings.base_url + path
        for attempt in Retrying(**self.settings.retry.tenacity_kwargs()):
            with attempt:
                response = self._http.request(method, url, headers=headers, **kwargs)
                raise_for_problem(response)
        return response

    def close(self) -> None:
        if self._own_http:
            self._http.close()

    def __enter__(self) -> TruthLens:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Verifications:
    def __init__(self, client: TruthLens):
        self._c = client

    def create(
        self, *, wait: float = 0, idempotency_key: str | None = None, **fields: Any
    ) -> Verification:
        """Accept a verification; returns it queued, or final if it finished within `wait`."""
        body = verification_body(wait=wait or None, **fields)
        response = self._c.request(
            "POST", "/v1/verifications", json=body, idempotency_key=idempotency_key
        )
        return Verification.model_validate(response.json())

    def get(self, verification_id: str) -> Verification:
        response = self._c.request("GET", f"/v1/verifications/{verification_id}")
        return Verification.model_validate(response.json())

    def wait(self, verification_id: str, *, timeout: float = 120.0) -> Verification:
        """Poll until the verification is final; `VerificationTimeout` after `timeout`."""
        poll = Poll(timeout)
        while True:
            job = self.get(verification_id)
            if job.is_final:
                return job
            if not poll.due():
                raise VerificationTimeout(verification_id, poll.waited)
            time.sleep(poll.next_delay())

    def list(self, *, limit: int | None = None, **filters: Any) -> Iterator[Verification]:
        """Every verification, newest first, page after page (`limit` is the page size).
        Filters: `status`, `mode`, `query_type`, `decision`, `detected`, `created_after`,
        `created_before`."""
        params: dict[str, str] | None = list_params({"limit": limit, **filters})
        while params is not None:
            page = self._c.request("GET", "/v1/verifications", params=params).json()
            for item in page["results"]:
                yield Verification.model_validate(item)
            params = next_params(page)

    def feedback(self, verification_id: str, outcome: str, comment: str = "") -> Feedback:
        """Tell whether the verdict was right: `outcome` is "correct" or "hallucinated"."""
        response = self._c.request(
            "POST",
            f"/v1/verifications/{verification_id}/feedback",
            json={"outcome": outcome, "comment": comment},
        )
        return Feedback.model_validate(response.json())


class KnowledgeBases:
    def __init__(self, client: TruthLens):
        self._c = client

    def create(self, name: str, description: str = "") -> KnowledgeBase:
        response = self._c.request(
            "POST", "/v1/knowledge-bases", json={"name": name, "description": description}
        )
        return KnowledgeBase.model_validate(response.json())

    def get(self, kb_id: str) -> KnowledgeBase:
        return KnowledgeBase.model_validate(
            self._c.request("GET", f"/v1/knowledge-bases/{kb_id}").json()
        )

    def list(self) -> Iterator[KnowledgeBase]:
        yield from (KnowledgeBase.model_validate(i) for i in self._pages("/v1/knowledge-bases"))

    def delete(self, kb_id: str) -> None:
        self._c.request("DELETE", f"/v1/knowledge-bases/{kb_id}")

    def upload(
        self,
        kb_id: str,
        file: Any,
        *,
        name: str | None = None,
        content_type: str | None = None,
        wait: bool = True,
        timeout: float = 300.0,
    ) -> Document:
        """Upload a document (a path, bytes or a binary file); with `wait`, return it once
        indexed (`IndexingError` if indexing fails or outlasts `timeout`)."""
        files, data = upload_parts(file, name, content_type)
        response = self._c.request(
            "POST", f"/v1/knowledge-bases/{kb_id}/documents", files=files, data=data
        )
        document = Document.model_validate(response.json())
        return self.wait_for_document(kb_id, document.id, timeout=timeout) if wait else document

    def documents(self, kb_id: str) -> Iterator[Document]:
        path = f"/v1/knowledge-bases/{kb_id}/documents"
        yield from (Document.model_validate(i) for i in self._pages(path))

    def get_document(self, kb_id: str, document_id: str) -> Document:
        path = f"/v1/knowledge-bases/{kb_id}/documents/{document_id}"
        return Document.model_validate(self._c.request("GET", path).json())

    def delete_document(self, kb_id: str, document_id: str) -> None:
        self._c.request("DELETE", f"/v1/knowledge-bases/{kb_id}/documents/{document_id}")

    def wait_for_document(self, kb_id: str, document_id: str, *, timeout: float = 300.0):
        poll = Poll(timeout)
        while True:
            document = self.get_document(kb_id, document_id)
            if document.status == "ready":
                return document
            if document.status == "failed":
                raise IndexingError(f"{document.name}: {document.error}")
            if not poll.due():
                raise IndexingError(f"{document.name} not indexed after {poll.waited:.0f}s")
            time.sleep(poll.next_delay())

    def _pages(self, path: str) -> Iterator[dict[str, Any]]:
        params: dict[str, str] | None = {}
        while params is not None:
            page = self._c.request("GET", path, params=params).json()
            yield from page["results"]
            params = next_params(page)


class UsageAPI:
    def __init__(self, client: TruthLens):
        self._c = client

    def get(self, month: str | None = None) -> UsageReport:
        """Verifications, tokens, cost and price for `month` (YYYY-MM; default: this one)."""
        params = {"month": month} if month else {}
        return UsageReport.model_validate(self._c.request("GET", "/v1/usage", params=params).json())


class Billing:
    def __init__(self, client: TruthLens):
        self._c = client

    def report(self, month: str) -> dict[str, Any]:
        """The monthly billing report (YYYY-MM, UTC) as JSON."""
        return self._c.request("GET", f"/v1/billing/reports/{month}").json()

    def report_csv(self, month: str) -> str:
        """The same report as CSV text."""
        response = self._c.request(
            "GET", f"/v1/billing/reports/{month}", headers={"Accept": "text/csv"}
        )
        return response.text
