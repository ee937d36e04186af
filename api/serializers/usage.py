"""`GET /v1/usage` (`api/views/usage.py`): the month's usage, by mode."""

from __future__ import annotations

from rest_framework import serializers


class UsageByModeSerializer(serializers.Serializer):
    verifications = serializers.IntegerField()
    detector_tokens = serializers.IntegerField()
    provider_cost_usd = serializers.FloatField(help_text="what the service paid providers")
    tenant_provider_cost_usd = serializers.FloatField(
        help_text="what the tenant paid its own providers with its own keys; never billed"
    )
    price_usd = serializers.FloatField()
    web_search_queries = serializers.IntegerField()
    web_search_cost_usd = serializers.FloatField()


class _MonthSerializer(serializers.Serializer):
    month = serializers.CharField()


# The month first, then the by-mode figures in their order (DRF lists a base's fields first),
# two of them with a longer help text, then the figures by mode.
class UsageReportSerializer(_MonthSerializer, UsageByModeSerializer):
    """Output shape of `GET /v1/usage` (documentation only)."""

    web_search_queries = serializers.IntegerField(help_text="web searches answered (charged)")
    web_search_cost_usd = serializers.FloatField(
        help_text="their cost at the provider's price per query (failed searches cost nothing)"
    )
    by_mode = serializers.DictField(child=UsageByModeSerializer())
