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
