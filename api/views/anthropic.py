"""`POST /v1/messages`: the gateway for Anthropic-style clients (same verification as chat)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers

from verification.gateway import GatewayReply

from ..authentication import ApiKeyOrXApiKeyAuthentication
from ..gateway.anthropic import to_anthropic, to_openai
from ..gateway.anthropic_request import (
    MAX_MESSAGES,
    anthropic_exception_handler,
    check_messages_request,
)
from ..gateway.anthropic_stream import messages_stream_response
from .gateway import GatewayView, with_headers


class MessagesRequestSerializer(serializers.Serializer):
    """The fields the gateway reads itself; the rest is translated and forwarded."""

    model = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)
    max_tokens = serializers.IntegerField(min_value=1)
    messages = serializers.ListField(
        child=serializers.DictField(), allow_empty=False, min_length=1, max_length=MAX_MESSAGES
    )
    stream = serializers.BooleanField(required=False, default=False)


class Messages(GatewayView):
    serializer_class = MessagesRequestSerializer
    authentication_classes = [ApiKeyOrXApiKeyAuthentication]

    def get_exception_handler(self):
        return anthropic_exception_handler

    @extend_schema(request=MessagesRequestSerializer, responses={200: None})
    def post(self, request):
        check_messages_request(request.data)  # litellm's adapter assumes a valid shape
        validated = self.validated(request, MessagesRequestSerializer)
        model = self.upstream(validated["model"])
        chat, tool_names = to_openai({**request.data, "model": model})
        result, error = self.run(self.gateway_call(request, model, validated["stream"], chat))
        if error is not None:
            return error
        if isinstance(result, GatewayReply):
            return with_headers(to_anthropic(result.completion, tool_names), result.headers)
        return messages_stream_response(result, tool_names)
