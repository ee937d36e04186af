"""Webhook signatures (DESIGN §4): `X-TruthLens-Signature: t=<unix>,v1=<hex>`.

`v1` is HMAC-SHA256 of `"<t>.<body>"` with the endpoint's secret, so a
receiver can reject replays by checking `t` and tampering by checking `v1`.
"""

from __future__ import annotations

import hashlib
import hmac
import time

HEADER = "X-TruthLens-Signature"


def sign(secret: str, body: bytes, timestamp: int | None = None) -> str:
    t = int(time.time()) if timestamp is None else timestamp
    mac = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={t},v1={mac}"


def verify(
    secret: str, body: bytes, header: str, tolerance_s: int = 300, now: float | None = None
) -> bool:
    """What a receiver does: check the timestamp window and the HMAC in constant time."""
    try:
        parts = dict(item.split("=", 1) for item in header.split(","))
        t = int(parts["t"])
        received = parts["v1"]
    except (KeyError, ValueError):
        return False
    current = time.time() if now is None else now
    if abs(current - t) > tolerance_s:
        return False
    expected = sign(secret, body, t).split("v1=", 1)[1]
    return hmac.compare_digest(expected, received)
