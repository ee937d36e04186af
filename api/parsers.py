"""The JSON parser of the API: DRF's, hardened against hostile nesting and lone surrogates."""

from __future__ import annotations

import re

from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 64

# JSON may spell a UTF-16 half (`"\ud83d"`) that no UTF-8 text can hold; Python keeps it
# as a lone surrogate, which every later encode (fingerprint, jsonb, the renderer) fails on.
_SURROGATE = re.compile("[\ud800-\udfff]")


def depth_exceeds(value: object, limit: int = MAX_DEPTH) -> bool:
    """True when `value` nests lists/objects deeper than `limit` (iterative: no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def printable(text: str) -> str:
    """`text` with any lone surrogate written as `\\udXXX`, safe to encode and to echo."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def surrogate_path(value: object) -> str | None:
    """The dotted path (`messages.0.content`) of the first string or key in `value` that
    holds an unpaired UTF-16 surrogate, or None. A key that holds one is named escaped."""
    stack: list[tuple[object, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return path
        elif isinstance(item, dict):
            for key, child in item.items():
                child_path = f"{path}.{printable(key)}".lstrip(".")
                if _SURROGATE.search(key):
                    return child_path
                stack.append((child, child_path))
        elif isinstance(item, list):
            stack.extend((child, f"{path}.{index}".lstrip(".")) for index, child in enumerate(item))
    return None


class BoundedJSONParser(JSONParser):
    """`[[[[...]]]]` thousands deep made the stdlib decoder raise RecursionError (a 500);
    anything deeper than MAX_DEPTH is refused as malformed before it reaches a serializer,
    the database (jsonb) or the request fingerprint. A lone surrogate anywhere (a value or
    a key) is a 400 naming the field, here once rather than in every serializer."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels") from exc
        if depth_exceeds(data):
            raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels")
        path = surrogate_path(data)
        if path is not None:
            raise ValidationError(
                {path: ["contains an unpaired UTF-16 surrogate; send valid Unicode text."]}
            )
        return data
