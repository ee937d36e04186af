"""`POST /v1/chat/completions`: an OpenAI-compatible gateway that verifies what it forwards.

The request goes to the tenant's upstream model through litellm with every
parameter the client sent (`api.gateway.params`); each prose answer is verified
against explicit context (`truthlens.context` / `X-TruthLens-Context`) or the
context found in the conversation (`engine.grounding`), the tenant
policy applies (warning, refinement, premium), and the completion comes back
with the `X-TruthLens-*` headers and a `truthlens` object. Tool-call turns come
back intact and unverified. Errors use OpenAI's error shape (`api.gateway.errors`).

The views adapt, they do not orchestrate: a request is parsed into a
`verification.gateway.GatewayCall`, `run_call` runs it (upstream, jobs, verdict),
and the view renders the reply or the stream.
"""

from __future__ import annotations

import copy
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response

from engine import LLMError
from tenants.llm_providers import provider_for
from verification.gateway import GatewayCall, GatewayReply, VerdictLate, run_call
from verification.models import VerificationJob
from verification.tenant_config import default_model, model_config, policy_for

from ..gateway.errors import gateway_exception_handler, late_response, upstream_error_response
from ..gateway.grounding import grounding_for
from ..gateway.options import options_from
from ..gateway.params import split_params
from ..gateway.streaming import chat_stream_response
from ..serializers.gateway import ChatRequestSerializer
from .base import TenantScopedView


class ModelNotServed(NotFound):
    """OpenAI's answer for a model the key cannot use: a 404 the SDKs do not retry."""

    problem_slug = "model-not-found"
    openai_code = "model_not_found"


class GatewayView(TenantScopedView):
    """What both gateways share: parse a request into a `GatewayCall` (a refused request
    costs no LLM call), run it, and answer its errors in the SDKs' shape."""

    def base_queryset(self):
        return VerificationJob.objects.all()

    def get_exception_handler(self):
        return gateway_exception_handler

    def upstream(self, requested: str) -> str:
        """The model to call: the one requested, else the tenant's default. Only the
        tenant's providers are called, so a model none serves is a 404 at once (never
        the deployment's environment keys)."""
        model = requested or default_model(self.tenant.pk)
        if not model:
            raise ValidationError(
                {"model": "this tenant has no LLM provider: add one (POST /v1/llm-providers)."}
            )
        if provider_for(self.tenant.pk, model) is None:
            raise ModelNotServed(
                f"The model {model!r} does not exist or is not served by any of this "
                "tenant's LLM providers."
            )
        return model

    def validated(self, request, serializer_class) -> dict[str, Any]:
        if not isinstance(request.data, dict):
            raise ValidationError({"messages": ["the body must be a JSON object."]})
        data = serializer_class(data=request.data)
        data.is_valid(raise_exception=True)
        return data.validated_data

    def gateway_call(self, request, model: str, stream: bool, chat: dict[str, Any]) -> GatewayCall:
        """The call of an OpenAI chat request `chat` to `model` (`upstream()`; the Anthropic
        view translates its request first): policy, options and context checked before
        any upstream call."""
        policy = policy_for(self.tenant)
        options = options_from(request.data, request.headers, policy)
        messages = chat["messages"]
        params, extra_body = split_params(chat)
        return GatewayCall(
            tenant=self.tenant,
            api_key=request.auth,
            config=model_config(self.tenant.pk, model),
            policy=policy,
            options=options,
            messages=messages,
            grounding=grounding_for(messages, options, policy),
            params=params,
            extra_body=extra_body,
            stream=stream,
        )

    def run(self, call: GatewayCall):
        """`run_call`, its errors as responses: (the result, None) or (None, the response)."""
        try:
            return run_call(call), None
        except LLMError as exc:
            return None, upstream_error_response(exc)
        except VerdictLate as exc:
            return None, late_response([v.truthlens["id"] for v in exc.late])


def with_headers(body: dict, headers: dict[str, str]) -> Response:
    response = Response(body)
    for name, value in headers.items():
        response[name] = value
    return response


class ChatCompletions(GatewayView):
    # Also what OPTIONS describes: without it DRF's metadata answered OPTIONS with a 500.
    serializer_class = ChatRequestSerializer

    @extend_schema(request=ChatRequestSerializer, responses={200: None})
    def post(self, request):
        validated = self.validated(request, ChatRequestSerializer)
        # Forwarded as sent: the serializer would drop assistant `tool_calls` and the like.
        chat = {**request.data, "messages": copy.deepcopy(request.data["messages"])}
        model = self.upstream(validated["model"])
        result, error = self.run(self.gateway_call(request, model, validated["stream"], chat))
        if error is not None:
            return error
        if isinstance(result, GatewayReply):
            return with_headers(result.completion, result.headers)
        return chat_stream_response(result)
