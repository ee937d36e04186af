"""`POST /v1/chat/completions` (`api/views/gateway.py`): the fields the gateway reads itself."""

from __future__ import annotations

from rest_framework import serializers

from ..strict import StrictTypes
from .verifications import MAX_MESSAGES, MessageSerializer


class ChatRequestSerializer(StrictTypes, serializers.Serializer):
    """The fields the gateway reads itself; every other field is forwarded as sent."""

    model = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)
    messages = MessageSerializer(
        many=True, allow_empty=False, min_length=1, max_length=MAX_MESSAGES
    )
    stream = serializers.BooleanField(required=False, default=False)
