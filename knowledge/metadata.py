"""Document metadata (the tenant's key/value pairs) and filters on it.

A filter is a mapping of keys to values: a document matches when its metadata holds
every pair (Postgres `@>`, GIN-indexed), and a list of values matches any of them
(`{"team": ["hr", "legal"]}`). Retrieval then searches only the matching documents.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Mapping, Sequence
from itertools import product
from typing import Any

from django.db.models import Q

from .models import Document

MAX_KEYS = 32
MAX_KEY = 64
MAX_VALUE = 256
MAX_ALTERNATIVES = 64  # documents matching a filter's combinations of listed values
Scalar = str | int | float | bool


class MetadataError(ValueError):
    pass


def _scalar(key: str, value: Any) -> Scalar:
    if isinstance(value, float) and not math.isfinite(value):  # JSON has no NaN (Postgres neither)
        raise MetadataError(f"{key!r}: a number must be finite")
    if isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        if len(value) > MAX_VALUE:
            raise MetadataError(f"{key!r}: a value is at most {MAX_VALUE} characters")
        if "\x00" in value:
            raise MetadataError(f"{key!r}: must not contain NUL characters")
        return value
    raise MetadataError(f"{key!r}: a value is a string, a number or a boolean")


def _key(key: Any) -> str:
    if not isinstance(key, str) or not key.strip() or len(key) > MAX_KEY or "\x00" in key:
        raise MetadataError(f"keys are non-empty strings of at most {MAX_KEY} characters")
    return key


def clean_metadata(value: Any) -> dict[str, Scalar]:
    """A document's metadata, checked: a flat object of at most `MAX_KEYS` pairs."""
    if not isinstance(value, Mapping):
        raise MetadataError("metadata is an object of keys and values")
    if len(value) > MAX_KEYS:
        raise MetadataError(f"at most {MAX_KEYS} keys")
    return {_key(k): _scalar(k, v) for k, v in value.items()}


def merge_metadata(current: Mapping[str, Scalar], patch: Any) -> dict[str, Scalar]:
    """`current` with `patch` applied (PATCH semantics: a null value removes the key)."""
    if not isinstance(patch, Mapping):
        raise MetadataError("metadata is an object of keys and values")
    merged = dict(current)
    for key, value in patch.items():
        if value is None:
            merged.pop(_key(key), None)
        else:
            merged[_key(key)] = value
    return clean_metadata(merged)


def clean_filter(value: Any) -> dict[str, list[Scalar]]:
    """A metadata filter: each key one value or a list of alternatives."""
    if not isinstance(value, Mapping):
        raise MetadataError("a metadata filter is an object of keys and values")
    if len(value) > MAX_KEYS:
        raise MetadataError(f"at most {MAX_KEYS} keys")
    out: dict[str, list[Scalar]] = {}
    for key, wanted in value.items():
        options = wanted if isinstance(wanted, list) else [wanted]
        if not options:
            raise MetadataError(f"{key!r}: an empty list matches nothing")
        out[_key(key)] = [_scalar(key, v) for v in options]
    combinations = 1
    for options in out.values():
        combinations *= len(options)
    if combinations > MAX_ALTERNATIVES:
        raise MetadataError(f"at most {MAX_ALTERNATIVES} combinations of listed values")
    return out


def matching_documents(
    tenant_id: int, knowledge_bases: Sequence[uuid.UUID], wanted: Mapping[str, list[Scalar]]
) -> list[uuid.UUID] | None:
    """Ids of the documents whose metadata match `wanted` (None: no filter, all match)."""
    if not wanted:
        return None
    keys = list(wanted)
    match = Q()
    for values in product(*(wanted[k] for k in keys)):
        match |= Q(metadata__contains=dict(zip(keys, values, strict=True)))
    return list(
        Document.objects.filter(tenant_id=tenant_id, knowledge_base_id__in=knowledge_bases)
        .filter(match)
        .values_list("pk", flat=True)
    )
