"""Helpers shared by the fault tests: HTTP calls that record everything, final-state checks."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import httpx

FINAL = ("completed", "failed")
# Short leases and sweeps so a lost message or a dead worker is noticed within seconds.
FAST_RECOVERY = {
    "TRUTHLENS_JOB_LEASE_SECONDS": "4",
    "TRUTHLENS_SWEEP_INTERVAL_SECONDS": "1",
    "TRUTHLENS_OUTBOX_RELAY_AFTER_SECONDS": "1",
}


@dataclass
class Call:
    status: int | None
    elapsed: float
    headers: dict[str, str] = field(default_factory=dict)
    body: dict | None = None
    error: str = ""


def post(base_url: str, token: str, payload: dict, timeout: float = 40) -> Call:
    started = time.monotonic()
    try:
        response = httpx.post(
            base_url + "/v1/verifications",
            json=payload,
            headers={"Authorization": f"Bearer {token}"},
            timeout=timeout,
        )
    except httpx.HTTPError as exc:
        return Call(None, time.monotonic() - started, error=f"{type(exc).__name__}: {exc}")
    try:
        body = response.json()
    except ValueError:
        body = None
    return Call(response.status_code, time.monotonic() - started, dict(response.headers), body)


def assert_clean_answer(call: Call, accepted: tuple[int, ...] = (200, 202)) -> None:
    """Success, or a 503 problem with Retry-After; never a hang, a 500 or a trace."""
    assert call.status is not None, f"no answer: {call.error}"
    if call.status in accepted:
        return
    assert call.status == 503, (call.status, call.body)
    assert call.headers.get("content-type", "").startswith("application/problem+json")
    assert int(call.headers["retry-after"]) >= 1
    assert call.body
    assert call.body["type"].endswith("/unavailable")
    assert "Traceback" not in str(call.body)
