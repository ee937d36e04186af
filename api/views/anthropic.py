"""`POST /v1/messages`: the gateway for Anthropic-style clients (same verification as chat)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema

from verification.gateway import GatewayReply

from ..authentication import ApiKeyOrXApiKeyAuthentication
from ..gateway.anthropic import to_anthropic, to_openai
from ..gateway.anthropic_request import anthropic_exception_handler, check_messages_request
from ..gateway.anthropic_stream import messages_stream_response
from ..serializers.anthropic import MessagesRequestSerializer
from .gateway import GatewayView, with_headers


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
