"""OpenAPI pieces drf-spectacular cannot infer: the API-key security scheme."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "api.authentication.ApiKeyAuthentication"
    name = "ApiKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "tl_<prefix>_<secret>",
            "description": "An API key: `Authorization: Bearer tl_<prefix>_<secret>`.",
        }


class ApiKeyOrXApiKeyScheme(OpenApiAuthenticationExtension):
    """`/v1/messages` takes the key as a bearer token or as `x-api-key`, as the Anthropic
    SDK sends it."""

    target_class = "api.authentication.ApiKeyOrXApiKeyAuthentication"
    name = "XApiKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "x-api-key",
            "description": "An API key in `x-api-key` (or `Authorization: Bearer tl_…`).",
        }


# a month as the usage and billing reports take it (verification.billing.report: 2000..2100)
MONTH_PATTERN = r"^(20[0-9]{2}|2100)-(0[1-9]|1[0-2])$"


# --- error responses --------------------------------------------------------------------
# drf-spectacular documents the success codes it can infer; every operation can also
# answer these errors, each in the API's problem+json (api/errors.py). The gateways render
# the errors their views raise in the SDKs' shapes (OpenAI's `error` object beside the
# problem fields; Anthropic's `{"type": "error", ...}`), but the body limit is checked
# before any view, so their 413 stays problem+json.

_FIELD_ERROR = {
    "type": "object",
    "properties": {"field": {"type": "string"}, "message": {"type": "string"}},
    "required": ["field", "message"],
}
PROBLEM = {
    "type": "object",
    "description": "RFC 7807 problem details; `type` is a stable URI (docs/api.md, Errors).",
    "properties": {
        "type": {"type": "string", "format": "uri"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "instance": {"type": "string"},
        "errors": {"type": "array", "items": {"$ref": "#/components/schemas/FieldError"}},
    },
    "required": ["type", "title", "status", "detail"],
}
OPENAI_ERROR = {
    "allOf": [
        {"$ref": "#/components/schemas/Problem"},
        {
            "type": "object",
            "properties": {
                "error": {
                    "type": "object",
                    "properties": {
                        "message": {"type": "string"},
                        "type": {"type": "string"},
                        "param": {"type": "string", "nullable": True},
                        "code": {"type": "string", "nullable": True},
                    },
                    "required": ["message", "type"],
                }
            },
            "required": ["error"],
        },
    ]
}
ANTHROPIC_ERROR = {
    "type": "object",
    "properties": {
        "type": {"type": "string", "enum": ["error"]},
        "error": {
            "type": "object",
            "properties": {"type": {"type": "string"}, "message": {"type": "string"}},
            "required": ["type", "message"],
        },
        "errors": {"type": "array", "items": {"$ref": "#/components/schemas/FieldError"}},
    },
    "required": ["type", "error"],
}

ERRORS = {
    "400": "Invalid request: malformed JSON, a field or query parameter (`errors` names it).",
    "401": "Missing, unknown or revoked API key.",
    "403": "The key may not do this (read-only), or a plan limit refuses it.",
    "404": "No such resource; another tenant's is the same.",
    "406": "No representation matches the `Accept` header.",
    "429": "Rate limit or monthly quota exceeded (`Retry-After`).",
    "500": "Unexpected error; it is logged, no detail leaves the server.",
    "503": "A dependency (the database) is briefly unavailable (`Retry-After`).",
}
BODY_ERRORS = {
    "409": "Conflict: an Idempotency-Key reused with another body, or a name taken.",
    "413": "The body exceeds the size limit.",
    "415": "Unsupported Content-Type.",
}
# the requests that create verifications, which a hard monthly budget refuses
BUDGET_ERRORS = {
    "402": "The tenant's hard monthly budget is spent (`budget-exceeded`; `Retry-After`).",
}
_CREATES_JOBS = {"/v1/verifications", "/v1/chat/completions", "/v1/messages"}
GATEWAY_ERRORS = {
    "502": "The upstream model failed.",
    "504": "The upstream model timed out.",
}
_GATEWAYS = {"/v1/chat/completions": "GatewayError", "/v1/messages": "AnthropicError"}


def _response(description: str, schema: str, media_type: str) -> dict:
    ref = {"$ref": f"#/components/schemas/{schema}"}
    return {"description": description, "content": {media_type: {"schema": ref}}}


def document_errors(result, generator, request, public):
    """drf-spectacular postprocessing hook: every operation's error statuses, in the
    shape and content type it answers them (a status the view documents itself stays)."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(
        FieldError=_FIELD_ERROR,
        Problem=PROBLEM,
        GatewayError=OPENAI_ERROR,
        AnthropicError=ANTHROPIC_ERROR,
    )
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            errors = dict(ERRORS)
            if method in ("post", "put", "patch"):
                errors.update(BODY_ERRORS)
            if method == "post" and path in _CREATES_JOBS:
                errors.update(BUDGET_ERRORS)
            gateway = _GATEWAYS.get(path)
            if gateway:
                errors.update(GATEWAY_ERRORS)
            responses = operation.setdefault("responses", {})
            for status, description in errors.items():
                if gateway and status != "413":
                    documented = _response(description, gateway, "application/json")
                else:
                    documented = _response(description, "Problem", "application/problem+json")
                own = responses.setdefault(status, documented)
                # a status a view documents with words only gets the body it has
                own.setdefault("content", documented["content"])
    return result
