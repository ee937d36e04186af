"""`/v1/llm-providers`: a tenant's LLM provider credentials, their test, and model roles."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from tenants.audit import record
from tenants.llm_providers import LLMProvider, served_models
from tenants.models import Tenant
from tenants.provider_actions import delete_provider, save_provider
from verification.provider_checks import check_connection
from verification.tenant_config import policy_for

from ..serializers.llm_providers import (
    ConnectionCheckSerializer,
    ConnectionTestRequestSerializer,
    LLMProviderSerializer,
    RolesSerializer,
)
from .base import TenantScopedView


class LLMProviderList(TenantScopedView):
    """`GET`: the tenant's providers. `POST`: add one (its key is never shown again)."""

    serializer_class = LLMProviderSerializer

    def base_queryset(self):
        return LLMProvider.objects.all()

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "tenant": self.tenant}

    @extend_schema(responses=LLMProviderSerializer(many=True), operation_id="llm_providers_list")
    def get(self, request):
        return Response(self.get_serializer(self.get_queryset(), many=True).data)

    @extend_schema(responses={201: LLMProviderSerializer})
    def post(self, request):
        data = self.get_serializer(data=request.data)
        data.is_valid(raise_exception=True)
        provider = save_provider(self.tenant, data.validated_data)
        record(request, "llm_provider.created", provider, details={"name": provider.name})
        body = self.get_serializer(provider).data
        return Response(body, status=status.HTTP_201_CREATED)


class LLMProviderDetail(TenantScopedView):
    """`GET`/`PATCH`/`DELETE` one provider (another tenant's is a 404)."""

    serializer_class = LLMProviderSerializer
    http_method_names = ["get", "patch", "delete", "options"]

    def base_queryset(self):
        return LLMProvider.objects.all()

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "tenant": self.tenant}

    def get(self, request, pk: int):
        return Response(self.get_serializer(self.get_object()).data)

    def patch(self, request, pk: int):
        provider = self.get_object()
        data = self.get_serializer(provider, data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        save_provider(self.tenant, data.validated_data, provider)
        action = "llm_provider.key_replaced" if "api_key" in data.validated_data else None
        record(request, action or "llm_provider.changed", provider, details={"name": provider.name})
        return Response(self.get_serializer(provider).data)

    @extend_schema(responses={204: None})
    def delete(self, request, pk: int):
        provider = self.get_object()
        delete_provider(self.tenant, provider)
        record(request, "llm_provider.deleted", provider, details={"name": provider.name})
        return Response(status=status.HTTP_204_NO_CONTENT)


class LLMProviderTest(TenantScopedView):
    """`POST {"model"?}`: one real, tiny call through litellm with the provider's
    credentials, to `model` (any model it serves; default: its first)."""

    serializer_class = ConnectionCheckSerializer

    def base_queryset(self):
        return LLMProvider.objects.all()

    @extend_schema(request=ConnectionTestRequestSerializer)
    def post(self, request, pk: int):
        provider = self.get_object()
        asked = ConnectionTestRequestSerializer(data=request.data)
        asked.is_valid(raise_exception=True)
        model = asked.validated_data.get("model")
        if model and provider.model_id(str(model)) not in provider.model_ids:
            raise ValidationError({"model": [f"{model!r} is not one of this provider's models."]})
        check = check_connection(provider, str(model) if model else None)
        record(request, "llm_provider.tested", provider, details={"ok": check.ok})
        return Response(check.__dict__)


class LLMRoles(TenantScopedView):
    """`GET`: which model does what. `PUT {"refine_model"}`: the default refinement
    model (one a provider serves). Premium's verifier models and judge are the
    policy's (`premium.verification_models`, `premium.judge_model`), edited in the
    dashboard's policy editor; each may come from another provider."""

    serializer_class = RolesSerializer
    http_method_names = ["get", "put", "options"]

    def base_queryset(self):
        return Tenant.objects.all()

    def get_queryset(self):  # the tenant row itself: scoped by its own key
        if getattr(self, "swagger_fake_view", False):  # schema generation has no tenant
            return self.base_queryset().none()
        return self.base_queryset().filter(pk=self.tenant.pk)

    def get_object(self) -> Tenant:  # used by OPTIONS (DRF's metadata) for PUT
        return self.tenant

    def _roles(self) -> dict:
        premium = policy_for(self.tenant).premium
        return {
            "refine_model": self.get_queryset().values_list("default_model", flat=True).first(),
            "verifier_models": list(premium.verification_models),
            "judge_model": premium.judge_model,
            "served_models": served_models(self.tenant.pk),
        }

    def get(self, request):
        return Response(self._roles())

    def put(self, request):
        data = RolesSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        model = data.validated_data["refine_model"]
        if model not in served_models(self.tenant.pk):
            raise ValidationError(
                {"refine_model": [f"{model!r} is not served by any of your LLM providers."]}
            )
        self.get_queryset().update(default_model=model)
        record(request, "llm_roles.changed", self.tenant, details={"refine_model": model})
        return Response(self._roles())
