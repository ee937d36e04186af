"""Content negotiation that refuses a `?format=` it cannot serve, with a 400 naming it.

DRF ignores an empty `format=` and answers an unknown one with a 404 that reads like a
missing resource; either way the client did not get what it asked for.
"""

from __future__ import annotations

from rest_framework.exceptions import ValidationError
from rest_framework.negotiation import DefaultContentNegotiation


class StrictFormatNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        name = self.settings.URL_FORMAT_OVERRIDE
        if name and not format_suffix and name in request.query_params:
            formats = [renderer.format for renderer in renderers]
            if request.query_params[name] not in formats:
                raise ValidationError({name: [f"must be one of: {', '.join(formats)}."]})
        return super().select_renderer(request, renderers, format_suffix)
