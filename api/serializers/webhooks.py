"""Webhook endpoints (`api/views/webhooks.py`)."""

from __future__ import annotations

from rest_framework import serializers

from tenants.models import WebhookEndpoint

from ..strict import StrictTypes
from .common import refuse_unsafe_url


class WebhookEndpointSerializer(StrictTypes, serializers.ModelSerializer):
    id = serializers.IntegerField(read_only=True)

    class Meta:
        model = WebhookEndpoint
        fields = ["id", "url", "events", "is_active", "created_at"]
        read_only_fields = ["id", "created_at"]

    def validate_url(self, value: str) -> str:
        refuse_unsafe_url(value)
        return value

    def validate_events(self, value: list) -> list:
        allowed = {
            "verification.completed",
            "verification.failed",
            "document.ready",
            "document.failed",
            "quality.drift",
            "usage.threshold",
        }
        if not isinstance(value, list) or any(v not in allowed for v in value):
            raise serializers.ValidationError(f"events must be a list from {sorted(allowed)}.")
        return list(dict.fromkeys(value))  # each event once (also caps the list)
