"""The JSON parser of the API: DRF's, hardened against hostile nesting."""

from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 64


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


class BoundedJSONParser(JSONParser):
    """`[[[[...]]]]` thousands deep made the stdlib decoder raise RecursionError (a 500);
    anything deeper than MAX_DEPTH is refused as malformed before it reaches a serializer,
    the database (jsonb) or the request fingerprint."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels") from exc
        if depth_exceeds(data):
            raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels")
        return data
