"""`POST /v1/chat/completions`: an OpenAI-compatible gateway that verifies what it forwards.

The request goes to the tenant's upstream model through litellm with every
parameter the client sent (`api.gateway.params`); each prose answer is verified
against explicit context (`truthlens.context` / `X-TruthLens-Context`) or the
context found in the conversation (`engine.grounding`), the tenant
policy applies (warning, refinement, premium), and the completion comes back
with the `X-TruthLens-*` headers and a `truthlens` object. Tool-call turns come
back intact and unverified. Errors use OpenAI's error shape (`api.gateway.errors`).
"""

from __future__ import annotations

import copy
from typing import NamedTuple

from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response

from engine import LLMError, ModelConfig, PolicyDocument, forward
from tenants.llm_providers import provider_for
from verification.models import VerificationJob
from verification.tenant_config import client_for, default_model, model_config, policy_for

from ..gateway.completion import verify_completion
from ..gateway.errors import gateway_exception_handler, late_response, upstream_error_response
from ..gateway.grounding import grounding_for
from ..gateway.options import Options, options_from
from ..gateway.params import split_params
from ..gateway.streaming import stream_response
from ..gateway.verdicts import VerdictLate
from ..serializers.gateway import ChatRequestSerializer
from .base import TenantScopedView


class ModelNotServed(NotFound):
    """OpenAI's answer for a model the key cannot use: a 404 the SDKs do not retry."""

    problem_slug = "model-not-found"
    openai_code = "model_not_found"


class GatewayView(TenantScopedView):
    """Errors in the SDKs' shape (`error.message`), for auth and validation failures too."""

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

    def answer(self, request, started: Started, messages, params, extra_body, grounding):
        """The non-streamed round both gateways share: the upstream call, then the
        verdict. `(completion, headers)`, or the error `Response` to send instead."""
        try:
            reply = forward(
                client_for(self.tenant.pk), started.config, messages, params, extra_body
            )
        except LLMError as exc:
            return upstream_error_response(exc)
        try:
            return verify_completion(
                self.tenant, request.auth, reply.response, reply.call, started.model, messages,
                started.options, grounding, params, started.policy,
            )  # fmt: skip
        except VerdictLate as exc:
            return late_response([v.truthlens["id"] for v in exc.late])

    def start(self, request, serializer_class) -> Started:
        """What both gateways check before the upstream call (a refused request must
        not cost an LLM call): the body, the model, policy, options."""
        if not isinstance(request.data, dict):
            raise ValidationError({"messages": ["the body must be a JSON object."]})
        data = serializer_class(data=request.data)
        data.is_valid(raise_exception=True)
        model = self.upstream(data.validated_data["model"])
        policy = policy_for(self.tenant)
        return Started(
            data.validated_data,
            model_config(self.tenant.pk, model),
            model,
            policy,
            options_from(request.data, request.headers, policy),
        )


class Started(NamedTuple):
    validated: dict
    config: ModelConfig
    model: str
    policy: PolicyDocument
    options: Options


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
        started = self.start(request, ChatRequestSerializer)
        config, policy, options = started.config, started.policy, started.options
        # Forwarded as sent: the serializer would drop assistant `tool_calls` and the like.
        messages = copy.deepcopy(request.data["messages"])
        grounding = grounding_for(messages, options, policy)
        params, extra_body = split_params(request.data)
        if started.validated["stream"]:
            return stream_response(
                self.tenant, request.auth, config, messages, params, extra_body,
                options, grounding, policy,
            )  # fmt: skip
        answered = self.answer(request, started, messages, params, extra_body, grounding)
        if isinstance(answered, Response):
            return answered
        completion, headers = answered
        return with_headers(completion, headers)
