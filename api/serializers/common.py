"""Checks several serializers share: NUL characters in JSON values, and the outbound address
guard for callback and webhook URLs."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers

from security.urlguard import UnsafeUrl, check_url


def has_nul(value: Any) -> bool:
    """NUL anywhere in a JSON value, keys included (jsonb refuses \u0000: a 500 otherwise)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def refuse_unsafe_url(value: str) -> None:
    """SSRF guard shared by per-request callbacks and webhook endpoints."""
    try:
        check_url(value, settings.TRUTHLENS["WEBHOOK_ALLOWED_HOSTS"])
    except UnsafeUrl as exc:
        raise serializers.ValidationError(f"refused: {exc}") from exc
