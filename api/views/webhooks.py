"""`/v1/webhook-endpoints`: per-tenant endpoints; the signing secret is shown once."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from tenants.audit import record
from tenants.models import WebhookEndpoint

from ..serializers.webhooks import WebhookEndpointSerializer
from .base import TenantScopedView


class WebhookEndpointList(TenantScopedView):
    serializer_class = WebhookEndpointSerializer

    def base_queryset(self):
        return WebhookEndpoint.objects.order_by("id")

    @extend_schema(
        operation_id="webhook_endpoints_list", responses=WebhookEndpointSerializer(many=True)
    )
    def get(self, request):
        return Response(WebhookEndpointSerializer(self.get_queryset(), many=True).data)

    @extend_schema(responses={201: WebhookEndpointSerializer})
    def post(self, request):
        data = WebhookEndpointSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        endpoint = WebhookEndpoint(tenant=self.tenant, **data.validated_data)
        secret = endpoint.set_new_secret()
        endpoint.save()
        record(request, "webhook.created", endpoint, details={"url": endpoint.url})
        body = {**WebhookEndpointSerializer(endpoint).data, "secret": secret}
        return Response(body, status=status.HTTP_201_CREATED)


class WebhookEndpointDetail(TenantScopedView):
    serializer_class = WebhookEndpointSerializer

    def base_queryset(self):
        return WebhookEndpoint.objects.all()

    # get_object() looks `pk` up in the tenant-scoped get_queryset(): another
    # tenant's endpoint is a 404, exactly like a missing one.
    def get(self, request, pk: int):
        return Response(WebhookEndpointSerializer(self.get_object()).data)

    def delete(self, request, pk: int):
        endpoint = self.get_object()
        record(request, "webhook.deleted", endpoint, details={"url": endpoint.url})
        endpoint.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookEndpointRotate(WebhookEndpointDetail):
    http_method_names = ["post", "options"]

    @extend_schema(request=None, responses={200: WebhookEndpointSerializer})
    def post(self, request, pk: int):
        endpoint = self.get_object()
        # the old secret keeps signing beside the new one for the overlap window (docs/api.md "Webhooks")
        secret = endpoint.rotate_secret(settings.TRUTHLENS["WEBHOOK_SECRET_OVERLAP_SECONDS"])
        endpoint.save(
            update_fields=[
                "secret_encrypted", "previous_secret_encrypted", "previous_secret_expires_at"
            ]
        )  # fmt: skip
        record(request, "webhook.secret_rotated", endpoint, details={"url": endpoint.url})
        return Response({**WebhookEndpointSerializer(endpoint).data, "secret": secret})
