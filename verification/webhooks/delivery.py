"""Send one signed webhook attempt to a vetted address."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass

import httpx

from security.urlguard import Unresolvable, UnsafeUrl, check_url

from . import signing

USER_AGENT = "TruthLens-Webhooks/1.0"
RESPONSE_BODY_BYTES = 2048  # how much of the receiver's answer the delivery log keeps


@dataclass(frozen=True)
class AttemptResult:
    ok: bool
    status_code: int | None
    error: str
    duration_ms: int
    response_body: str = ""  # the first RESPONSE_BODY_BYTES, decoded leniently
    # the address guard refused the URL itself (a private address, a bad scheme): no retry
    # can succeed, so the delivery fails at once
    permanent: bool = False


def encode(payload: dict) -> bytes:
    return json.dumps(payload, separators=(",", ":"), sort_keys=True, default=str).encode()


def _read_start(response: httpx.Response) -> str:
    """The first RESPONSE_BODY_BYTES of the body, without reading a huge answer whole."""
    kept = b""
    for chunk in response.iter_bytes():
        kept += chunk
        if len(kept) >= RESPONSE_BODY_BYTES:
            break
    text = kept[:RESPONSE_BODY_BYTES].decode("utf-8", errors="replace")
    return text.replace("\x00", "")  # Postgres text cannot hold NUL


def send(
    url: str,
    secret: str | Sequence[str],
    payload: dict,
    timeout_s: float,
    allowed_hosts: list[str],
) -> AttemptResult:
    """POST the payload once, signed with each secret given (the newest first); any 2xx is
    success, everything else (3xx included) is a failure."""
    started = time.monotonic()

    def elapsed() -> int:
        return int((time.monotonic() - started) * 1000)

    try:
        checked = check_url(url, allowed_hosts)
    except UnsafeUrl as exc:
        permanent = not isinstance(exc, Unresolvable)
        return AttemptResult(False, None, f"refused: {exc}", elapsed(), permanent=permanent)
    body = encode(payload)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Host": checked.host_header,
        signing.HEADER: signing.sign(secret, body),
        "X-TruthLens-Event-Id": str(payload.get("id", "")),
    }
    try:
        with (
            httpx.Client(timeout=timeout_s, follow_redirects=False, trust_env=False) as client,
            client.stream(
                "POST",
                checked.pinned_url(),
                content=body,
                headers=headers,
                extensions=checked.extensions,
            ) as response,
        ):
            answer = _read_start(response)
    except httpx.HTTPError as exc:
        return AttemptResult(False, None, f"{type(exc).__name__}: {exc}"[:500], elapsed())
    ok = 200 <= response.status_code < 300
    return AttemptResult(
        ok, response.status_code, "" if ok else f"HTTP {response.status_code}", elapsed(), answer
    )
