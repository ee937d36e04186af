"""`POST /v1/chat/completions`: an OpenAI-compatible gateway that verifies what it forwards.

The request goes to the tenant's upstream model through litellm with every
parameter the client sent (`api.gateway.params`); each prose answer is verified
against explicit context (`truthlens.context` / `X-TruthLens-Context`) or the
context found in the conversation (`verification.engine.grounding`), the tenant
policy applies (warning, refinement, premium), and the completion comes back
with the `X-TruthLens-*` headers and a `truthlens` object. Tool-call turns come
back intact and unverified. Errors use OpenAI's error shape (`api.gateway.errors`).
"""

from __future__ import annotations

import copy

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from tenants.models import LLMSettings
from verification.engine.mitigation import LLMError
from verification.engine.mitigation.llm_forward import forward
from verification.llm_access import client_for, model_config
from verification.models import VerificationJob
from verification.policies import policy_for

from ..gateway.answers import checkable_text
from ..gateway.errors import gateway_exception_handler, upstream_error_response
from ..gateway.grounding import Grounding, grounding_for
from ..gateway.options import options_from
from ..gateway.params import split_params, wants_json
from ..gateway.streaming import stream_response
from ..gateway.verdicts import Verdict, finish_jobs, start_jobs, unverified, verdict_of
from ..serializers import MessageSerializer
from .base import TenantScopedView


class ChatRequestSerializer(serializers.Serializer):
    """The fields the gateway reads itself; every other field is forwarded as sent."""

    model = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)
    messages = MessageSerializer(many=True, allow_empty=False)
    stream = serializers.BooleanField(required=False, default=False)


class GatewayView(TenantScopedView):
    """Errors in the SDKs' shape (`error.message`), for auth and validation failures too."""

    def base_queryset(self):
        return VerificationJob.objects.all()

    def get_exception_handler(self):
        return gateway_exception_handler

    def upstream(self) -> LLMSettings:
        llm = LLMSettings.objects.filter(tenant=self.tenant).first()
        if llm is None:
            raise ValidationError({"model": "this tenant has no upstream LLM configured."})
        return llm


class ChatCompletions(GatewayView):
    # Also what OPTIONS describes: without it DRF's metadata answered OPTIONS with a 500.
    serializer_class = ChatRequestSerializer

    @extend_schema(request=ChatRequestSerializer, responses={200: None})
    def post(self, request):
        if not isinstance(request.data, dict):
            raise ValidationError({"messages": ["the body must be a JSON object."]})
        data = ChatRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        llm = self.upstream()
        model = data.validated_data["model"] or llm.default_model
        # Forwarded as sent: the serializer would drop assistant `tool_calls` and the like.
        messages = copy.deepcopy(request.data["messages"])
        policy = policy_for(self.tenant)
        # All checked before the upstream call: a refused request must not cost an LLM call.
        options = options_from(request.data, request.headers, policy)
        grounding = grounding_for(messages, options, policy)
        params, extra_body = split_params(request.data)
        config = model_config(llm, model)
        if data.validated_data["stream"]:
            return stream_response(
                self.tenant, request.auth, llm, config, messages, params, extra_body,
                options, grounding, policy,
            )  # fmt: skip
        try:
            reply = forward(client_for(llm), config, messages, params, extra_body)
        except LLMError as exc:
            return upstream_error_response(exc)
        return self._verified(
            reply.response, reply.call, model, messages, options, grounding, params
        )

    def _verified(self, completion, call, model, messages, options, grounding: Grounding, params):
        choices = completion.get("choices") or []
        json_mode = wants_json(params)
        texts = [checkable_text(c.get("message") or {}, json_mode) for c in choices]
        verdicts: list[Verdict | None] = [None] * len(choices)
        if grounding.passages:
            todo = [i for i, (text, _) in enumerate(texts) if text is not None]
            jobs = start_jobs(
                self.tenant, self.request.auth, grounding, [texts[i][0] for i in todo],
                messages, model, options, call,
            )  # fmt: skip
            for i, job in zip(todo, finish_jobs(jobs), strict=True):
                verdicts[i] = verdict_of(job, grounding)
        reason = "context missing" if grounding.status == "missing" else "no context"
        for i, (_, why) in enumerate(texts):
            if verdicts[i] is None:
                verdicts[i] = unverified(why or reason, grounding)
        for choice, verdict, (text, _) in zip(choices, verdicts, texts, strict=True):
            message = choice.setdefault("message", {})
            message.pop("provider_specific_fields", None)
            choice.pop("provider_specific_fields", None)
            rewritable = text is not None and not json_mode and not message.get("tool_calls")
            if rewritable:
                message["content"] = verdict.content(message["content"], True)
        first = verdicts[0] if verdicts else unverified("no choices", grounding)
        truthlens = dict(first.truthlens)
        if len(verdicts) > 1:
            truthlens["choices"] = [{"index": i, **v.truthlens} for i, v in enumerate(verdicts)]
            truthlens["detected"] = any(v.truthlens.get("detected") for v in verdicts)
        completion.update(model=model, truthlens=truthlens)
        completion.setdefault("object", "chat.completion")
        response = Response(completion)
        for name, value in first.headers.items():
            response[name] = value
        response["X-TruthLens-Context-Status"] = grounding.status
        return response
