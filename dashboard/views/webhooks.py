"""Webhook endpoints (create, rotate secret, pause, delete) and the delivery log with replay."""

from __future__ import annotations

import json

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from tenants.audit import record
from tenants.models import WebhookEndpoint
from verification.models import WebhookDelivery
from verification.webhooks.dispatch import replay
from verification.webhooks.urlguard import UnsafeUrl, check_url

from ..scoping import tenant_view

EVENT_TYPES = [
    ("verification.completed", "verification.completed"),
    ("verification.failed", "verification.failed"),
]


class EndpointForm(forms.Form):
    url = forms.URLField(
        max_length=2000,
        label="Endpoint URL",
        assume_scheme="https",
        widget=forms.URLInput(attrs={"placeholder": "https://example.com/hooks/truthlens"}),
    )
    events = forms.MultipleChoiceField(
        required=False,
        choices=EVENT_TYPES,
        widget=forms.CheckboxSelectMultiple,
        help_text="None ticked = all events.",
    )

    def clean_url(self):
        url = self.cleaned_data["url"]
        try:
            check_url(url, settings.TRUTHLENS["WEBHOOK_ALLOWED_HOSTS"])
        except UnsafeUrl as exc:
            raise forms.ValidationError(str(exc)) from exc
        return url


class DeliveryFilterForm(forms.Form):
    status = forms.ChoiceField(required=False, choices=[("", "any")] + WebhookDelivery.STATUSES)


@tenant_view(edit=True)
def webhooks(request, scope):
    form = EndpointForm(request.POST or None)
    secret = None
    if request.method == "POST" and form.is_valid():
        endpoint = WebhookEndpoint(
            tenant=scope.tenant,
            url=form.cleaned_data["url"],
            events=list(form.cleaned_data["events"]),
        )
        secret = endpoint.set_new_secret()
        endpoint.save()
        record(request, "webhook.created", endpoint, details={"url": endpoint.url})
        form = EndpointForm()
    endpoints = scope.filter(WebhookEndpoint.objects.all()).order_by("-created_at")
    filters = DeliveryFilterForm(request.GET or None)
    deliveries = scope.filter(WebhookDelivery.objects.all()).order_by("-created_at", "-id")
    if filters.is_valid() and filters.cleaned_data["status"]:
        deliveries = deliveries.filter(status=filters.cleaned_data["status"])
    page = Paginator(deliveries.defer("payload"), 20).get_page(request.GET.get("page"))
    response = render(
        request,
        "dashboard/webhooks.html",
        {
            "nav": "webhooks",
            "form": form,
            "endpoints": endpoints,
            "secret": secret,
            "page": page,
            "filters": filters,
            "tenant_secret_set": bool(scope.tenant.webhook_secret_encrypted),
        },
    )
    if secret:
        response["Cache-Control"] = "no-store"
    return response


def _secret_shown_once(request, secret: str, what: str):
    """The page with a new signing secret; its only copy, so no cache may keep it."""
    response = render(
        request,
        "dashboard/secret_shown.html",
        {"nav": "webhooks", "secret": secret, "what": what},
    )
    response["Cache-Control"] = "no-store"
    return response


@require_POST
@tenant_view(edit=True)
def rotate(request, scope, pk: int):
    endpoint = scope.get_or_404(WebhookEndpoint.objects.all(), pk=pk)
    secret = endpoint.set_new_secret()
    endpoint.save(update_fields=["secret_encrypted"])
    record(request, "webhook.secret_rotated", endpoint, details={"url": endpoint.url})
    return _secret_shown_once(request, secret, endpoint.url)


@require_POST
@tenant_view(edit=True)
def rotate_tenant_secret(request, scope):
    tenant = scope.tenant
    secret = tenant.rotate_webhook_secret()
    tenant.save(update_fields=["webhook_secret_encrypted"])
    record(request, "webhook.secret_rotated", tenant, details={"secret": "per-request callbacks"})
    return _secret_shown_once(request, secret, "per-request callback URLs")


@require_POST
@tenant_view(edit=True)
def toggle(request, scope, pk: int):
    endpoint = scope.get_or_404(WebhookEndpoint.objects.all(), pk=pk)
    endpoint.is_active = not endpoint.is_active
    endpoint.save(update_fields=["is_active"])
    record(request, "webhook.changed", endpoint, details={"is_active": endpoint.is_active})
    messages.success(request, f"Endpoint {'resumed' if endpoint.is_active else 'paused'}.")
    return redirect("dashboard:webhooks")


@require_POST
@tenant_view(edit=True)
def delete(request, scope, pk: int):
    endpoint = scope.get_or_404(WebhookEndpoint.objects.all(), pk=pk)
    record(request, "webhook.deleted", endpoint, details={"url": endpoint.url})
    endpoint.delete()
    messages.success(request, "Endpoint deleted; its past deliveries stay in the log.")
    return redirect("dashboard:webhooks")


@tenant_view
def delivery(request, scope, pk: int):
    item = scope.get_or_404(WebhookDelivery.objects.select_related("job"), pk=pk)
    return render(
        request,
        "dashboard/delivery.html",
        {
            "nav": "webhooks",
            "delivery": item,
            "attempts": list(item.log.all()),
            "payload_json": json.dumps(item.payload, indent=2, sort_keys=True),
        },
    )


@require_POST
@tenant_view(edit=True)
def replay_delivery(request, scope, pk: int):
    item = scope.get_or_404(
        WebhookDelivery.objects.select_related("endpoint", "tenant", "job"), pk=pk
    )
    copy = replay(item)
    messages.success(request, f"Replay queued as {copy.event_id}.")
    return redirect("dashboard:delivery", pk=copy.pk)
