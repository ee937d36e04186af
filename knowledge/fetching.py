"""Fetching a document from a URL, in the index worker, through the address guard.

The URL was checked when it was saved (`actions.add_from_url`); it is checked again
here and the connection goes to the very address that was checked (no second DNS
lookup), as webhook deliveries do. Redirects are not followed, the body is read up
to the plan's size limit, and the declared type picks the parser as an upload's does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

import httpx
from django.conf import settings

from security.urlguard import UnsafeUrl, check_url

USER_AGENT = "TruthLens-Indexer/1.0"
TIMEOUT_S = 20.0


class FetchError(ValueError):
    """The URL could not be fetched; the message is fit for the uploader."""


@dataclass(frozen=True)
class Fetched:
    raw: bytes
    content_type: str


def checked(url: str):
    """The URL's vetted address, or `FetchError` (an internal address, a bad URL)."""
    try:
        return check_url(url, settings.TRUTHLENS["WEBHOOK_ALLOWED_HOSTS"])
    except UnsafeUrl as exc:
        raise FetchError(f"the URL is refused: {exc}") from exc


def name_of(url: str) -> str:
    """A document name from the URL: its last path segment, else its host."""
    parts = urlsplit(url)
    return unquote(PurePosixPath(parts.path).name) or parts.hostname or "document"


def fetch(url: str, max_bytes: int) -> Fetched:
    target = checked(url)
    headers = {"User-Agent": USER_AGENT, "Host": target.host_header}
    try:
        with (
            httpx.Client(timeout=TIMEOUT_S, follow_redirects=False, trust_env=False) as client,
            client.stream(
                "GET", target.pinned_url(), headers=headers, extensions=target.extensions
            ) as response,
        ):
            if response.is_redirect:
                raise FetchError(
                    f"the URL answered {response.status_code} (a redirect to "
                    f"{response.headers.get('location', '?')}); redirects are not followed: "
                    "give the final URL"
                )
            if response.status_code != 200:
                raise FetchError(f"the URL answered HTTP {response.status_code}")
            body = bytearray()
            for part in response.iter_bytes():
                body += part
                if len(body) > max_bytes:
                    raise FetchError(f"the file is over the plan's {max_bytes} bytes per document")
            content_type = response.headers.get("content-type", "").split(";")[0].strip()
    except httpx.HTTPError as exc:
        raise FetchError(f"the URL could not be fetched ({type(exc).__name__}: {exc})") from exc
    if not body:
        raise FetchError("the URL answered an empty body")
    return Fetched(bytes(body), content_type)
