"""`POST /v1/chat/completions`: an OpenAI-compatible gateway that verifies what it forwards.

The request goes to the tenant's upstream model through litellm; the answer
is verified against `role=tool` messages and system-prompt context (as
HaluGate does), the tenant policy applies (warning, refinement, premium),
and the (possibly mitigated) completion comes back with the `X-TruthLens-*`
headers and a `truthlens` object. A conversation without context passes
through with `X-TruthLens-Detected: unknown`.
"""

from __future__ import annotations

import json
import time
import uuid
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.http import StreamingHttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from tenants.models import LLMSettings
from verification.actions.create import NewVerification, create_verification
from verification.engine.mitigation import LLMError
from verification.engine.modes import AUTO, MODE_NAMES
from verification.engine.text.messages import MessagesError, inputs_from_messages
from verification.models import LLMCallRecord, VerificationJob
from verification.serializers import VerificationSerializer, verification_headers
from verification.tenant_config import client_for, model_config, policy_for, request_errors

from ..errors import ServiceUnavailable
from ..serializers import MessageSerializer
from .base import TenantScopedView
from .verifications import jobs_with_details, wait_until_final


class ChatRequestSerializer(serializers.Serializer):
    model = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)
    messages = MessageSerializer(many=True, allow_empty=False)
    max_tokens = serializers.IntegerField(
        required=False, min_value=1, max_value=32_000, default=1024
    )
    stream = serializers.BooleanField(required=False, default=False)


def _completion(reply_text: str, model: str, usage: dict, truthlens: dict) -> dict:
    return {
        "id": "chatcmpl-" + uuid.uuid4().hex,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply_text},
                "finish_reason": "stop",
            }
        ],
        "usage": usage,
        "truthlens": truthlens,
    }


class ChatCompletions(TenantScopedView):
    # Also what OPTIONS describes: without it DRF's metadata answered OPTIONS with a 500.
    serializer_class = ChatRequestSerializer

    def base_queryset(self):
        return VerificationJob.objects.all()

    @extend_schema(request=ChatRequestSerializer, responses={200: None})
    def post(self, request):
        data = ChatRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        llm = LLMSettings.objects.filter(tenant=self.tenant).first()
        if llm is None:
            raise ValidationError({"model": "this tenant has no upstream LLM configured."})
        model = v["model"] or llm.default_model
        messages = [{k: m[k] for k in m if m[k] is not None} for m in v["messages"]]
        mode = request.headers.get("X-TruthLens-Mode", "auto").strip() or "auto"
        # Checked before the upstream call: a refused mode must not cost the tenant an LLM call.
        if mode != AUTO and mode not in MODE_NAMES:
            raise ValidationError(
                {"mode": [f"X-TruthLens-Mode must be auto or one of {', '.join(MODE_NAMES)}."]}
            )
        if errors := request_errors(policy_for(self.tenant), mode):
            raise ValidationError(errors)
        if v["stream"]:
            return _stream_response(self.tenant, request.auth, llm, model, messages, v, mode)
        try:
            reply = client_for(llm).complete(
                model_config(llm, model, max_tokens=v["max_tokens"]), messages, role="gateway"
            )
        except LLMError as exc:
            raise ServiceUnavailable(f"the upstream model failed: {exc}") from exc
        usage = {
            "prompt_tokens": reply.call.prompt_tokens,
            "completion_tokens": reply.call.completion_tokens,
            "total_tokens": reply.call.prompt_tokens + reply.call.completion_tokens,
        }
        item = _context_of(messages, reply.text)
        if item is None:
            response = Response(
                _completion(reply.text, model, usage, {"verified": False, "reason": "no context"})
            )
            response["X-TruthLens-Enabled"] = "false"
            response["X-TruthLens-Detected"] = "unknown"
            return response
        job = _verify(self.tenant, request.auth, item, messages, model, mode, reply.call)
        verification = VerificationSerializer(job).data
        content = job.final_response if job.is_final and job.final_response else reply.text
        if job.is_final and job.warning and job.mode == "lightweight":
            content = f"{content}\n\n{job.warning}"
        truthlens = _truthlens(verification)
        response = Response(_completion(content, model, usage, truthlens))
        for name, value in verification_headers(job).items():
            response[name] = value
        return response


TRUTHLENS_FIELDS = (
    "id",
    "status",
    "verification_status",
    "score",
    "final_score",
    "detected",
    "risk_level",
    "mode",
    "iterations",
    "warning",
    "final_response",
    "spans",
)


def _context_of(messages: list[dict], answer: str):
    """The verification input for `answer`, or None when the conversation has no context."""
    try:
        item = inputs_from_messages([*messages, {"role": "assistant", "content": answer}])
    except MessagesError:
        return None
    return item if item.context else None


def _truthlens(verification: dict) -> dict:
    return {k: verification[k] for k in TRUTHLENS_FIELDS}


def _verify(tenant, api_key, item, messages, model, mode, call) -> VerificationJob:
    """Create the verification of an upstream answer, bill the upstream call to it, wait for it."""
    with transaction.atomic():
        job, _ = create_verification(
            tenant,
            NewVerification(
                context=list(item.context),
                response=item.response,
                query=item.query or "",
                messages=messages,
                model=model,
                mode=mode,
                metadata={"source": "gateway"},
            ),
            api_key=api_key,
        )
        LLMCallRecord.objects.create(
            job=job,
            tenant=tenant,
            model=model,
            role="gateway",
            prompt_tokens=call.prompt_tokens,
            completion_tokens=call.completion_tokens,
            cost_usd=Decimal(str(round(call.cost_usd, 8))),
            latency_ms=int(call.latency_ms),
        )
    wait_until_final(job, settings.TRUTHLENS["GATEWAY_WAIT_SECONDS"])
    return jobs_with_details().get(pk=job.pk)


def _sse(payload: dict | str) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload, default=str)
    return f"data: {data}\n\n".encode()


def _stream_response(tenant, api_key, llm, model, messages, v, mode) -> StreamingHttpResponse:
    """Stream the upstream answer as it comes, then verify it and send the verdict last.

    The chunks reach the client before verification, so the final event carries the
    `truthlens` verdict (and, when mitigation changed the answer, the corrected text in
    `truthlens.final_response`); the `X-TruthLens-*` headers say only that it is enabled.
    """
    client = client_for(llm)
    config = model_config(llm, model, max_tokens=v["max_tokens"])
    chunk_id = "chatcmpl-" + uuid.uuid4().hex

    def chunk(delta: dict, finish: str | None = None, **extra) -> dict:
        return {
            "id": chunk_id,
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }

    def events():
        parts: list[str] = []
        try:
            gen = client.stream(config, messages, role="gateway")  # returns its LLMCall
            while True:
                try:
                    text = next(gen)
                except StopIteration as stop:
                    call = stop.value
                    break
                parts.append(text)
                yield _sse(chunk({"content": text}))
        except LLMError as exc:
            yield _sse(
                {"error": {"message": f"the upstream model failed: {exc}", "type": "upstream"}}
            )
            yield _sse("[DONE]")
            return
        item = _context_of(messages, "".join(parts))
        if item is None:
            verdict = {"verified": False, "reason": "no context", "detected": None}
        else:
            verdict = _truthlens(
                VerificationSerializer(
                    _verify(tenant, api_key, item, messages, model, mode, call)
                ).data
            )
        yield _sse(chunk({}, "stop", truthlens=verdict))
        yield _sse("[DONE]")

    response = StreamingHttpResponse(events(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-TruthLens-Enabled"] = "true"
    response["X-TruthLens-Detected"] = "pending"
    return response
