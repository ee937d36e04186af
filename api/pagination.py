"""The API's pages: a malformed `limit`, `offset` or `cursor` is a 400 naming it.

DRF's paginators fall back to their defaults on a bad `limit` or `offset` (the client
silently gets another page than it asked for) and answer a bad cursor with a 404.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import CursorPagination, LimitOffsetPagination

from .strict import query_int

MAX_OFFSET = 10**15

_BAD_CURSOR = {"cursor": ["is not a cursor this API handed out; follow `next` or `previous`."]}


def _bounded(parameters: list[dict], name: str, low: int, high: int | None) -> list[dict]:
    """The paginator's documented parameters, with the bounds it now enforces."""
    for parameter in parameters:
        if parameter["name"] == name:
            parameter["schema"] = {"type": "integer", "minimum": low}
            if high is not None:
                parameter["schema"]["maximum"] = high
    return parameters


class StrictCursorPagination(CursorPagination):
    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        return _bounded(parameters, self.page_size_query_param, 1, self.max_page_size)

    def get_page_size(self, request):
        size = query_int(request, self.page_size_query_param, low=1, high=self.max_page_size)
        return size or self.page_size

    def decode_cursor(self, request):
        try:
            return super().decode_cursor(request)
        except NotFound as exc:
            raise ValidationError(_BAD_CURSOR) from exc

    def paginate_queryset(self, queryset, request, view=None):
        try:
            return super().paginate_queryset(queryset, request, view)
        except DjangoValidationError as exc:  # a well-formed cursor with a position of junk
            raise ValidationError(_BAD_CURSOR) from exc


class StrictLimitOffsetPagination(LimitOffsetPagination):
    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        _bounded(parameters, self.limit_query_param, 1, self.max_limit)
        return _bounded(parameters, self.offset_query_param, 0, MAX_OFFSET)

    def get_limit(self, request):
        limit = query_int(request, self.limit_query_param, low=1, high=self.max_limit)
        return limit or self.default_limit

    def get_offset(self, request):
        return query_int(request, self.offset_query_param, low=0, high=MAX_OFFSET) or 0
