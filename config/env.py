"""Typed environment helpers that fail loudly.

Every setting comes from the environment (12-factor). A malformed value
raises `ImproperlyConfigured` at start-up rather than misbehaving later.
`NAME_FILE` is read instead of `NAME` when set, so secrets can come from
mounted files (Kubernetes/Docker secrets).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _raw(name: str) -> str | None:
    path = os.environ.get(f"{name}_FILE")
    if path:
        try:
            with open(path, encoding="utf-8") as fh:
                return fh.read().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE={path!r} cannot be read: {exc}") from exc
    return os.environ.get(name)


def env_str(name: str, default: str) -> str:
    value = _raw(name)
    return default if value is None else value


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = env_str(name, default).strip()
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def env_bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false), got {value!r}")


def _env_number(name: str, default, minimum, parse: Callable[[str], Any], kind: str):
    """`parse(NAME)` (int or float), `default` when unset, refused below `minimum`."""
    value = _raw(name)
    if value is None:
        return default
    try:
        number = parse(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be {kind}, got {value!r}") from exc
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name} must be >= {minimum}, got {number}")
    return number


def env_int(name: str, default: int, minimum: int | None = None) -> int:
    return _env_number(name, default, minimum, int, "an integer")


def env_float(name: str, default: float, minimum: float | None = None) -> float:
    return _env_number(name, default, minimum, float, "a number")


def env_list(name: str, default: list[str]) -> list[str]:
    value = _raw(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]
