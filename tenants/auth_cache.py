"""A short per-process cache of what authenticating an API key reads: the key, its
tenant, the tenant's plan and policy.

The hot path (`POST /v1/verifications`) used to read these with two or three queries
per request. Here they are kept for `TRUTHLENS_AUTH_CACHE_SECONDS` (default 5 s) in
the memory of the process, as plain field values: every request builds fresh model
instances from them, so no request can change what another one sees.

Invalidation: saving or deleting an `ApiKey`, `Tenant`, `Plan` or `Policy` empties this
process's cache at once (signals, connected in `TenantsConfig.ready`), and so does
`invalidate()` (called after the queryset `.update()`s that bypass signals). Other
processes (the other gunicorn workers, other pods) keep their copy until it expires:
a revoked key, a deactivated tenant or a changed plan takes effect immediately in the
process that made the change and within `TRUTHLENS_AUTH_CACHE_SECONDS` everywhere else.
Set it to 0 to read the database on every request.

The secret is still checked on every request (constant-time, against the cached
digest); only keys found active are cached, never an unknown prefix.
"""

from __future__ import annotations

import copy
import threading
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Model

MAX_ENTRIES = 10_000
_lock = threading.Lock()
_entries: dict[str, _Entry] = {}
_generation = 0  # bumped by invalidate(): a fill that started before it is not stored
#: last time this process wrote a key's last_used_at (monotonic seconds), by key id
_touched: dict[int, float] = {}


@dataclass(frozen=True)
class _Entry:
    expires: float
    key: tuple[type[Model], dict[str, Any]]
    tenant: tuple[type[Model], dict[str, Any]]
    plan: tuple[type[Model], dict[str, Any]] | None
    policy: tuple[type[Model], dict[str, Any]] | None


def ttl() -> float:
    return float(settings.TRUTHLENS["AUTH_CACHE_SECONDS"])


def _values(obj: Model) -> tuple[type[Model], dict[str, Any]]:
    return type(obj), {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


def _build(saved: tuple[type[Model], dict[str, Any]]) -> Model:
    model, values = saved
    # from_db: an instance as loaded (not "adding"); JSON values copied per request
    fresh = [copy.deepcopy(v) if isinstance(v, dict | list) else v for v in values.values()]
    return model.from_db("default", list(values), fresh)


def generation() -> int:
    return _generation


def get(prefix: str):
    """A fresh `ApiKey` (with `.tenant`, `.tenant.plan` and `.tenant.policy` loaded) for
    an active key seen in the last few seconds, else None."""
    entry = _entries.get(prefix)
    if entry is None or entry.expires <= time.monotonic():
        return None
    from .models import Policy, Tenant

    key = _build(entry.key)
    tenant = _build(entry.tenant)
    tenant.plan = _build(entry.plan) if entry.plan is not None else None
    policy = _build(entry.policy) if entry.policy is not None else None
    Tenant.policy.related.set_cached_value(tenant, policy)
    if policy is not None:
        Policy.tenant.field.set_cached_value(policy, tenant)
    key.tenant = tenant
    return key


def put(prefix: str, key, seen_generation: int) -> None:
    """Keep `key` (loaded with its tenant, plan and policy) for `ttl()` seconds, unless
    something was invalidated since the caller read it (`seen_generation`)."""
    seconds = ttl()
    if seconds <= 0:
        return
    from .models import Policy

    tenant = key.tenant
    try:
        policy = tenant.policy
    except Policy.DoesNotExist:
        policy = None
    entry = _Entry(
        expires=time.monotonic() + seconds,
        key=_values(key),
        tenant=_values(tenant),
        plan=_values(tenant.plan) if tenant.plan is not None else None,
        policy=_values(policy) if policy is not None else None,
    )
    with _lock:
        if seen_generation == _generation:
            if len(_entries) >= MAX_ENTRIES:  # keys seen once long ago: drop the expired
                now = time.monotonic()
                for stale in [p for p, e in _entries.items() if e.expires <= now]:
                    del _entries[stale]
            _entries[prefix] = entry


def invalidate(*_args, **_kwargs) -> None:
    """Forget everything cached in this process (a signal receiver too)."""
    global _generation
    with _lock:
        _generation += 1
        _entries.clear()


def should_touch(key_id: int, resolution_s: float) -> bool:
    """Whether this process should write the key's last_used_at now (at most once per
    `resolution_s`; the cached key's own last_used_at is as old as the cache entry)."""
    now = time.monotonic()
    last = _touched.get(key_id)
    if last is not None and now - last < resolution_s:
        return False
    _touched[key_id] = now
    return True


def connect_signals() -> None:
    from django.db.models.signals import post_delete, post_save

    from .models import ApiKey, Plan, Policy, Tenant

    for model in (ApiKey, Tenant, Plan, Policy):
        post_save.connect(invalidate, sender=model, dispatch_uid=f"auth_cache_{model.__name__}")
        post_delete.connect(
            invalidate, sender=model, dispatch_uid=f"auth_cache_del_{model.__name__}"
        )
