"""Throttle API key guessing per client address.

Every failed authentication (no key, a malformed, unknown, wrong or revoked key) counts
against the client's address. `BAD_KEY_LIMIT` failures within `BAD_KEY_WINDOW_SECONDS`
lock the address for `BAD_KEY_LOCKOUT_SECONDS`: each of its requests then gets 429 with
`Retry-After` *before* its key is looked at, so the lock cannot be used to test keys.
The counters live in the Redis cache; without Redis the throttle fails open, as the
tenant rate limit does.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.cache import cache
from redis.exceptions import RedisError
from rest_framework import exceptions

from tenants.audit import client_ip

log = logging.getLogger(__name__)


class GuessingThrottled(exceptions.Throttled):
    default_detail = "Too many failed authentications from this address."


def _keys(request) -> tuple[str, str] | None:
    ip = client_ip(request)
    return (f"badkey:count:{ip}", f"badkey:lock:{ip}") if ip else None


def refuse_if_locked(request) -> None:
    """Raise `GuessingThrottled` (429 + Retry-After) while the client's address is locked."""
    keys = _keys(request)
    if keys is None:
        return
    try:
        until = cache.get(keys[1])
    except (RedisError, OSError) as exc:
        log.warning("guessing throttle store unavailable, allowing request: %s", exc)
        return
    if until is not None:
        raise GuessingThrottled(wait=max(1.0, until - time.time()))


def note_failure(request) -> None:
    """Count one failed authentication; lock the address when it reaches the limit."""
    keys = _keys(request)
    if keys is None:
        return
    conf = settings.TRUTHLENS
    try:
        cache.add(keys[0], 0, timeout=conf["BAD_KEY_WINDOW_SECONDS"])
        failures = cache.incr(keys[0])
        if failures >= conf["BAD_KEY_LIMIT"]:
            lockout = conf["BAD_KEY_LOCKOUT_SECONDS"]
            cache.set(keys[1], time.time() + lockout, timeout=lockout)
            cache.delete(keys[0])
            log.warning(
                "API key guessing: %d failed authentications from %s, locked for %d s",
                failures,
                client_ip(request),
                lockout,
            )
    except (RedisError, OSError, ValueError) as exc:  # ValueError: the counter expired
        log.warning("guessing throttle store unavailable: %s", exc)
