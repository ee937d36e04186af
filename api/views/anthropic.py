"""`POST /v1/messages`: the gateway for Anthropic-style clients (same verification as chat)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from ..authentication import ApiKeyOrXApiKeyAuthentication
from ..gateway.anthropic import to_anthropic, to_openai
from ..gateway.anthropic_request import (
    anthropic_exception_handler,
    check_messages_request,
)
from ..gateway.anthropic_stream import messages_stream_response
from ..gateway.grounding import grounding_for
from ..gateway.params import split_params
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
        started = self.start(request, MessagesRequestSerializer)
        config, model, policy, options = (
            started.config,
            started.model,
            started.policy,
            started.options,
        )
        chat, tool_names = to_openai({**request.data, "model": model})
        messages = chat["messages"]
        grounding = grounding_for(messages, options, policy)
        params, extra_body = split_params(chat)
        if started.validated["stream"]:
            return messages_stream_response(
                self.tenant, request.auth, config, messages, params,
                extra_body, options, grounding, policy, tool_names,
            )  # fmt: skip
        answered = self.answer(request, started, messages, params, extra_body, grounding)
        if isinstance(answered, Response):
            return answered
        completion, headers = answered
        return with_headers(to_anthropic(completion, tool_names), headers)
