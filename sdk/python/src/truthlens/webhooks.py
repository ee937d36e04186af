"""Check that a webhook came from TruthLens: `truthlens.webhooks.verify(payload, headers, secret)`.

The server signs `"<t>.<body>"` with HMAC-SHA256 and sends
`X-TruthLens-Signature: t=<unix>,v1=<hex>[,v1=<hex>]`. While a rotated endpoint secret's overlap
window is open, there is one `v1` per live secret (newest first), so a receiver holding either
the old or the new secret accepts the event. A receiver that holds both during its own switch
passes both: `secret=[new, old]`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import TruthLensError

HEADER = "X-TruthLens-Signature"
#: how far the signature's timestamp may be from the receiver's clock (replays, clock skew)
DEFAULT_TOLERANCE_S = 300


class WebhookVerificationError(TruthLensError):
    """The signature is missing, malformed, too old or does not match any secret."""


def _header(headers: Mapping[str, str]) -> str:
    for name, value in headers.items():
        if name.lower() == HEADER.lower():
            return value
    raise WebhookVerificationError(f"no {HEADER} header")


def _parse(value: str) -> tuple[int, list[str]]:
    timestamp: int | None = None
    signatures: list[str] = []
    for item in value.split(","):
        key, sep, part = item.strip().partition("=")
        if not sep:
            raise WebhookVerificationError(f"malformed {HEADER} header")
        if key == "t":
            try:
                timestamp = int(part)
            except ValueError as exc:
                raise WebhookVerificationError("the timestamp is not an integer") from exc
        elif key == "v1":
            signatures.append(part)
    if timestamp is None or not signatures:
        raise WebhookVerificationError(f"{HEADER} lacks t= or v1=")
    return timestamp, signatures


def verify(
    payload: bytes | str,
    headers: Mapping[str, str],
    secret: str | Sequence[str],
    *,
    tolerance: float = DEFAULT_TOLERANCE_S,
    now: float | None = None,
) -> dict[str, Any]:
    """Return the event (parsed JSON) if its signature is valid and recent, else raise
    `WebhookVerificationError`. `payload` must be the raw body, byte for byte.
    `secret` may be a list: any of them matching any `v1` is enough."""
    body = payload.encode() if isinstance(payload, str) else payload
    timestamp, received = _parse(_header(headers))
    current = time.time() if now is None else now
    if abs(current - timestamp) > tolerance:
        raise WebhookVerificationError(
            f"the timestamp is {abs(current - timestamp):.0f}s from now (tolerance {tolerance}s)"
        )
    secrets = [secret] if isinstance(secret, str) else list(secret)
    signed = f"{timestamp}.".encode() + body
    expected = [hmac.new(s.encode(), signed, hashlib.sha256).hexdigest() for s in secrets]
    # compare every pair, so the time taken does not tell which secret or signature matched
    matches = sum(hmac.compare_digest(e, r) for e in expected for r in received)
    if not matches:
        raise WebhookVerificationError("no signature matches the secret")
    return json.loads(body)
