"""`POST /v1/messages`: the gateway for Anthropic-style clients (same verification as chat)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers

from verification.engine.mitigation import LLMError
from verification.engine.mitigation.llm_forward import forward
from verification.tenant_config import client_for

from ..authentication import ApiKeyOrXApiKeyAuthentication
from ..gateway.anthropic import to_anthropic, to_openai
from ..gateway.anthropic_stream import messages_stream_response
from ..gateway.completion import verify_completion
from ..gateway.errors import late_response, upstream_error_response
from ..gateway.grounding import grounding_for
from ..gateway.params import split_params
from ..gateway.verdicts import VerdictLate
from .gateway import GatewayView, with_headers


class MessagesRequestSerializer(serializers.Serializer):
    """The fields the gateway reads itself; the rest is translated and forwarded."""

    model = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)
    max_tokens = serializers.IntegerField(min_value=1)
    messages = serializers.ListField(child=serializers.DictField(), allow_empty=False)
    stream = serializers.BooleanField(required=False, default=False)


class Messages(GatewayView):
    serializer_class = MessagesRequestSerializer
    authentication_classes = [ApiKeyOrXApiKeyAuthentication]

    @extend_schema(request=MessagesRequestSerializer, responses={200: None})
    def post(self, request):
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
        try:
            reply = forward(client_for(self.tenant.pk), config, messages, params, extra_body)
        except LLMError as exc:
            return upstream_error_response(exc)
        try:
            completion, headers = verify_completion(
                self.tenant, request.auth, reply.response, reply.call, model, messages,
                options, grounding, params, policy,
            )  # fmt: skip
        except VerdictLate as exc:
            return late_response([v.truthlens["id"] for v in exc.late])
        return with_headers(to_anthropic(completion, tool_names), headers)
