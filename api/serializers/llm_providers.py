"""A tenant's LLM providers, their Test connection and the roles its models play
(`api/views/llm_providers.py`)."""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from tenants.llm_providers import LLMProvider
from verification.provider_checks import field_errors

from ..strict import StrictTypes


class LLMProviderSerializer(StrictTypes, serializers.ModelSerializer):
    """A provider; the key is write-only (never returned: `has_key` says if one is set)."""

    api_key = serializers.CharField(write_only=True, required=False, allow_blank=False)
    has_key = serializers.SerializerMethodField()
    model_names = serializers.ListField(
        child=serializers.CharField(max_length=200), min_length=1, max_length=50
    )
    model_ids = serializers.ListField(child=serializers.CharField(), read_only=True)

    class Meta:
        model = LLMProvider
        fields = [
            "id", "name", "model_prefix", "model_names", "model_ids", "api_base", "api_key",
            "has_key", "timeout_seconds", "max_retries", "price_table", "created_at", "updated_at",
        ]  # fmt: skip
        read_only_fields = ["id", "created_at", "updated_at"]
        extra_kwargs = {
            "timeout_seconds": {"min_value": 1, "max_value": 300},
            "max_retries": {"min_value": 0, "max_value": 10},
        }

    def get_has_key(self, obj: LLMProvider) -> bool:
        return bool(obj.api_key_encrypted)

    def validate_price_table(self, value) -> dict:
        if not isinstance(value, dict):
            raise ValidationError('an object: {"model": {"input": 0.1, "output": 0.4}}.')
        for model, price in value.items():
            if not isinstance(price, dict) or set(price) - {"input", "output"}:
                raise ValidationError(f"{model}: give input and output USD per 1M tokens.")
            for side, amount in price.items():
                if not isinstance(amount, int | float) or amount < 0:
                    raise ValidationError(f"{model}.{side}: a price of 0 or more.")
        return value

    def validate(self, attrs: dict) -> dict:
        tenant = self.context["tenant"]
        instance = self.instance
        name = attrs.get("name", instance.name if instance else "")
        taken = LLMProvider.objects.filter(tenant=tenant, name=name)
        if taken.exclude(pk=instance.pk if instance else None).exists():
            raise ValidationError({"name": [f"a provider named {name!r} exists."]})
        prefix = attrs.get("model_prefix", instance.model_prefix if instance else "")
        names = attrs.get("model_names", instance.model_names if instance else [])
        base = attrs.get("api_base", instance.api_base if instance else "")
        errors = field_errors(tenant, prefix, names, base, instance.pk if instance else None)
        if errors:
            raise ValidationError({field: [message] for field, message in errors.items()})
        attrs["model_names"] = list(dict.fromkeys(names))
        if instance is None and not attrs.get("api_key") and not attrs.get("api_base"):
            raise ValidationError({"api_key": ["a new provider needs its API key."]})
        return attrs


class ConnectionCheckSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    model = serializers.CharField()
    answer = serializers.CharField(help_text="the model's answer (at most 5 tokens)")
    error = serializers.CharField(help_text="the provider's error in plain words")
    latency_ms = serializers.IntegerField()


class ConnectionTestRequestSerializer(StrictTypes, serializers.Serializer):
    model = serializers.CharField(required=False, allow_blank=True, max_length=200)


class RolesSerializer(StrictTypes, serializers.Serializer):
    refine_model = serializers.CharField(max_length=200)
    verifier_models = serializers.ListField(child=serializers.CharField(), read_only=True)
    judge_model = serializers.CharField(read_only=True, allow_null=True)
    served_models = serializers.ListField(child=serializers.CharField(), read_only=True)
