"""Strict JSON types for request serializers, and strict query parameters.

DRF coerces: a `FloatField` takes `true` as 1.0, a `CharField` takes `0` as "0", a
`BooleanField` takes "yes". A JSON client that sends the wrong type has a bug, and
guessing what it meant hides it; `StrictTypes` refuses every value whose JSON type is
not the field's (form and multipart bodies, where every value is a string, keep
DRF's parsing). `query_int` reads a numeric query parameter or answers 400.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.http import QueryDict
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

# Checked in order (a subclass before its base): field class -> JSON types it may come as.
_EXPECTED: list[tuple[type, tuple[type, ...], str]] = [
    (serializers.BooleanField, (bool,), "a boolean"),
    (serializers.IntegerField, (int,), "an integer"),
    (serializers.FloatField, (int, float), "a number"),
    # a decimal's own output is a string ("0.0100"): it may come back as one
    (serializers.DecimalField, (int, float, str), "a number"),
    (serializers.ChoiceField, (str,), "a string"),
    (serializers.CharField, (str,), "a string"),  # also Email, URL, Slug, Regex fields
    (serializers.DateTimeField, (str,), "a string"),
    (serializers.ListField, (list,), "a list"),
    (serializers.ListSerializer, (list,), "a list"),
    (serializers.DictField, (dict,), "an object"),
    (serializers.Serializer, (dict,), "an object"),
]


def type_error(field: serializers.Field, value: Any) -> Any:
    """None when `value` has the JSON type `field` takes, else DRF's error detail for it
    (a message list, or `{index: [...]}` for a list item, so paths read `passage_ids.1`)."""
    if value is None:
        return None  # allow_null is the field's own business
    for cls, kinds, label in _EXPECTED:
        if isinstance(field, cls):
            if isinstance(value, bool) and bool not in kinds:
                return [f"must be {label}, not a boolean."]
            if not isinstance(value, kinds):
                return [f"must be {label}."]
            break
    child = getattr(field, "child", None)
    if isinstance(field, serializers.ListField) and child is not None:
        errors = {i: e for i, item in enumerate(value) if (e := type_error(child, item))}
        return errors or None
    return None


class StrictTypes(serializers.Serializer):
    """Mix in first: `class X(StrictTypes, serializers.Serializer)`. Nested serializers
    that mix it in check their own fields when DRF validates them."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping) and not isinstance(data, QueryDict):
            errors = {}
            for name, field in self.fields.items():
                if field.read_only or name not in data:
                    continue
                if (error := type_error(field, data[name])) is not None:
                    errors[name] = error
            if errors:
                raise ValidationError(errors)
        return super().to_internal_value(data)


_DIGITS = re.compile(r"^[0-9]{1,16}$")


def query_int(request, name: str, *, low: int, high: int | None = None) -> int | None:
    """The integer query parameter `name` (None when absent); 400 naming it otherwise."""
    raw = request.query_params.get(name)
    if raw is None:
        return None
    value = int(raw) if _DIGITS.match(raw) else None
    if value is None or value < low or (high is not None and value > high):
        bounds = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise ValidationError({name: [f"must be an integer {bounds}."]})
    return value
