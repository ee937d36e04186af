"""What the sync and async clients share: settings, headers, request bodies, parsing."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx

from ._retry import RetryPolicy
from ._version import __version__
from .errors import TruthLensError, error_from_response
from .models import VerificationRequest

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
#: the server's longest `wait` on `POST /v1/verifications`
SERVER_MAX_WAIT = 30.0


@dataclass(frozen=True)
class Settings:
    api_key: str
    base_url: str
    timeout: float
    retry: RetryPolicy = field(default_factory=RetryPolicy)

    @classmethod
    def resolve(
        cls, api_key: str | None, base_url: str | None, timeout: float, max_retries: int
    ) -> Settings:
        key = api_key or os.environ.get("TRUTHLENS_API_KEY", "")
        if not key:
            raise TruthLensError("no API key: pass api_key= or set TRUTHLENS_API_KEY")
        url = base_url or os.environ.get("TRUTHLENS_BASE_URL") or DEFAULT_BASE_URL
        url = url.rstrip("/")
        if url.endswith("/v1"):  # accept the gateway's base URL too
            url = url[: -len("/v1")]
        return cls(key, url, timeout, RetryPolicy(max_retries=max_retries))

    def headers(self) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {self.api_key}",
            "User-Agent": f"truthlens-python/{__version__}",
            "Accept": "application/json",
        }


def new_idempotency_key() -> str:
    return f"sdk-{uuid.uuid4().hex}"


def verification_body(**fields: Any) -> dict[str, Any]:
    """The JSON body of `POST /v1/verifications`, validated, without unset fields."""
    request = VerificationRequest.model_validate(fields)
    return request.model_dump(mode="json", exclude_none=True)


def raise_for_problem(response: httpx.Response) -> httpx.Response:
    if response.is_error:
        raise error_from_response(response)
    return response


def next_params(page: dict[str, Any]) -> dict[str, str] | None:
    """The query of a page's `next` link (followed against our own base URL, so a server
    behind a proxy that builds links with its inner host still pages correctly)."""
    link = page.get("next")
    if not link:
        return None
    return dict(parse_qsl(urlsplit(link).query))


def list_params(filters: dict[str, Any]) -> dict[str, str]:
    params: dict[str, str] = {}
    for name, value in filters.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif hasattr(value, "isoformat"):
            value = value.isoformat()
        params[name] = str(value)
    return params


def upload_parts(
    file: Any, name: str | None, content_type: str | None
) -> tuple[dict[str, Any], dict[str, str]]:
    """(files=, data=) for a multipart upload of a path, bytes or an open binary file."""
    if isinstance(file, (str, os.PathLike)):
        with open(file, "rb") as handle:
            raw = handle.read()
        name = name or os.path.basename(os.fspath(file))
    elif isinstance(file, bytes):
        raw = file
    else:
        raw = file.read()
        name = name or os.path.basename(getattr(file, "name", "") or "") or None
    if not name:
        raise TruthLensError("name= is needed for an upload of bytes")
    return {"file": (name, raw, content_type or _guess_type(name))}, {}


def _guess_type(name: str) -> str:
    import mimetypes

    return mimetypes.guess_type(name)[0] or "application/octet-stream"
