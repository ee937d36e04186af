"""Webhook signatures (docs/api.md "Webhooks"): `X-TruthLens-Signature: t=<unix>,v1=<hex>[,v1=<hex>]`.

`v1` is HMAC-SHA256 of `"<t>.<body>"` with the endpoint's secret, so a
receiver can reject replays by checking `t` and tampering by checking `v1`.
While a rotated secret's overlap window is open the header carries one `v1`
per live secret, the newest first (Stripe-style): a receiver that still holds
the old secret and one that already has the new one both accept the event.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Sequence

HEADER = "X-TruthLens-Signature"


def _mac(secret: str, body: bytes, t: int) -> str:
    return hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()


def sign(secret: str | Sequence[str], body: bytes, timestamp: int | None = None) -> str:
    """The header value: one timestamp, one `v1` per secret (in the order given)."""
    t = int(time.time()) if timestamp is None else timestamp
    secrets = [secret] if isinstance(secret, str) else list(secret)
    return ",".join([f"t={t}"] + [f"v1={_mac(s, body, t)}" for s in secrets])


def verify(
    secret: str, body: bytes, header: str, tolerance_s: int = 300, now: float | None = None
) -> bool:
    """What a receiver does: check the timestamp window, then whether any `v1` is the HMAC
    with `secret` (constant-time comparison)."""
    t: int | None = None
    received: list[str] = []
    try:
        for item in header.split(","):
            key, value = item.strip().split("=", 1)
            if key == "t":
                t = int(value)
            elif key == "v1":
                received.append(value)
    except ValueError:
        return False
    if t is None or not received:
        return False
    current = time.time() if now is None else now
    if abs(current - t) > tolerance_s:
        return False
    expected = _mac(secret, body, t)
    # every candidate is compared, so the time taken does not say which one matched
    return sum(hmac.compare_digest(expected, r) for r in received) > 0
