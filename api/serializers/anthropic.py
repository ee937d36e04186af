"""`POST /v1/messages` (`api/views/anthropic.py`): the fields the gateway reads of an
Anthropic-style request."""

from __future__ import annotations

from rest_framework import serializers

from ..gateway.anthropic_request import (
    MAX_MESSAGES,
)


class MessagesRequestSerializer(serializers.Serializer):
    """The fields the gateway reads itself; the rest is translated and forwarded."""

    model = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)
    max_tokens = serializers.IntegerField(min_value=1)
    messages = serializers.ListField(
        child=serializers.DictField(), allow_empty=False, min_length=1, max_length=MAX_MESSAGES
    )
    stream = serializers.BooleanField(required=False, default=False)
