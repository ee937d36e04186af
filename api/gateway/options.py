"""The client's explicit TruthLens options: the `truthlens` body field, or headers.

`extra_body={"truthlens": {"context": [...], "mode": ..., "decision": ...,
"policy_threshold": ...}}` with the official SDKs, or for simple cases the
headers `X-TruthLens-Context` (one passage, or a JSON list of passages),
`X-TruthLens-Mode`, `X-TruthLens-Decision` and `X-TruthLens-Threshold`. The
body wins over a header; explicit context always wins over context found in
the conversation. Invalid values are 400s naming the field (`truthlens.context.0`).
"""

from __future__ import annotations

import json

from rest_framework import serializers
from rest_framework.exceptions import APIException, ValidationError

from engine import AUTO, MODE_NAMES, PolicyDocument
from verification.gateway import Options
from verification.tenant_config import request_errors

MAX_PASSAGES = 200
MAX_PASSAGE_CHARS = 100_000
#: The largest `X-TruthLens-Context` header read. Proxies and servers refuse larger
#: header lines (nginx and gunicorn at 8 KiB by default), so longer context goes in the body.
MAX_CONTEXT_HEADER_BYTES = 8192


class HeaderTooLarge(APIException):
    """431 in the SDKs' error shape, naming the body field to use instead."""

    status_code = 431
    problem_slug = "header-too-large"
    param = "truthlens.context"

    def __init__(self, size: int):
        super().__init__(
            f"the X-TruthLens-Context header is {size} bytes, over the gateway's limit of "
            f"{MAX_CONTEXT_HEADER_BYTES}; send the context in the body as `truthlens.context` "
            '(with the SDKs: extra_body={"truthlens": {"context": [...]}}).'
        )


class TruthLensSerializer(serializers.Serializer):
    context = serializers.ListField(
        child=serializers.CharField(max_length=MAX_PASSAGE_CHARS, trim_whitespace=True),
        required=False,
        allow_empty=False,
        max_length=MAX_PASSAGES,
    )
    mode = serializers.ChoiceField(choices=[AUTO, *MODE_NAMES], required=False)
    decision = serializers.CharField(required=False, allow_blank=True, max_length=100)
    policy_threshold = serializers.FloatField(required=False, min_value=0, max_value=1)

    def to_internal_value(self, data):
        if isinstance(data, dict) and isinstance(data.get("context"), str):
            data = {**data, "context": [data["context"]]}  # one passage as a plain string
        if isinstance(data, dict) and (unknown := sorted(set(data) - set(self.fields))):
            raise ValidationError({name: ["unknown option."] for name in unknown})
        return super().to_internal_value(data)


def _header_options(headers) -> dict:
    out: dict = {}
    # Django reads header values as Latin-1: one character is one byte on the wire
    if (size := len(headers.get("X-TruthLens-Context", ""))) > MAX_CONTEXT_HEADER_BYTES:
        raise HeaderTooLarge(size)
    if raw := headers.get("X-TruthLens-Context", "").strip():
        try:
            value = json.loads(raw) if raw.startswith("[") else raw
        except ValueError:
            raise ValidationError(
                {"X-TruthLens-Context": ["a JSON list of passages must be valid JSON."]}
            ) from None
        out["context"] = value
    if mode := headers.get("X-TruthLens-Mode", "").strip():
        out["mode"] = mode
    if decision := headers.get("X-TruthLens-Decision", "").strip():
        out["decision"] = decision
    if threshold := headers.get("X-TruthLens-Threshold", "").strip():
        out["policy_threshold"] = threshold
    return out


def options_from(body: dict, headers, policy: PolicyDocument) -> Options:
    """The request's validated options; raises `ValidationError` (a 400) naming the field."""
    given = body.get("truthlens")
    if given is not None and not isinstance(given, dict):
        raise ValidationError({"truthlens": ["must be an object."]})
    header_values = _header_options(headers)
    merged = {**header_values, **(given or {})}
    checked = TruthLensSerializer(data=merged)
    if not checked.is_valid():
        # name the field where the client put it: `truthlens.<option>`, or the header
        errors: dict = {}
        for name, problems in checked.errors.items():
            if given and name in given:
                errors.setdefault("truthlens", {})[name] = problems
            else:
                errors[_HEADERS.get(name, "truthlens")] = problems
        raise ValidationError(errors)
    v = checked.validated_data
    mode = v.get("mode", "auto")
    if errors := request_errors(policy, mode, v.get("decision") or None):
        raise ValidationError(errors)
    return Options(
        context=tuple(p for p in v.get("context", ()) if p),
        mode=mode,
        decision=v.get("decision", ""),
        threshold=v.get("policy_threshold"),
    )


_HEADERS = {
    "context": "X-TruthLens-Context",
    "mode": "mode",
    "decision": "X-TruthLens-Decision",
    "policy_threshold": "X-TruthLens-Threshold",
}
