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
