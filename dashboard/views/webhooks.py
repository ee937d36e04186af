"""Webhook endpoints (create, rotate secret, send a test event, pause, delete) and the delivery
log with replay.

A new secret is shown once through POST → 303 → GET (`one_time`), so a refresh neither
rotates again nor shows it again. Rotating an endpoint's secret opens an overlap window
(`WEBHOOK_SECRET_OVERLAP_SECONDS`) in which deliveries carry both signatures.
"""

from __future__ import annotations

import json

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from security.urlguard import UnsafeUrl, check_url
from tenants.audit import record
from tenants.models import WebhookEndpoint
from verification.models import WebhookDelivery
from verification.webhooks.delivery import RESPONSE_BODY_BYTES
from verification.webhooks.dispatch import replay
from verification.webhooks.probe import send_test_event

from .. import one_time
from ..paging import page_or_first
from ..scoping import tenant_view

CREATED, ROTATED = "endpoint-created", "webhook-secret"

EVENT_TYPES = [
    ("verification.completed", "verification.completed"),
    ("verification.failed", "verification.failed"),
    ("quality.drift", "quality.drift (agreement with labels dropped)"),
    ("usage.threshold", "usage.threshold"),
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
    if request.method == "POST" and form.is_valid():
        endpoint = WebhookEndpoint(
            tenant=scope.tenant,
            url=form.cleaned_data["url"],
            events=list(form.cleaned_data["events"]),
        )
        secret = endpoint.set_new_secret()
        endpoint.save()
        record(request, "webhook.created", endpoint, details={"url": endpoint.url})
        one_time.keep(request, CREATED, secret, scope.tenant.pk)
        return one_time.see_other(reverse("dashboard:webhooks"))
    shown = one_time.take(request, CREATED, scope.tenant.pk) if request.method == "GET" else None
    shown_secret: str | None = shown["secret"] if shown else None
    endpoints = scope.filter(WebhookEndpoint.objects.all()).order_by("-created_at")
    filters = DeliveryFilterForm(request.GET or None)
    deliveries = scope.filter(WebhookDelivery.objects.all()).order_by("-created_at", "-id")
    if filters.is_valid() and filters.cleaned_data["status"]:
        deliveries = deliveries.filter(status=filters.cleaned_data["status"])
    page, page_error = page_or_first(
        Paginator(deliveries.select_related("endpoint").defer("payload"), 20),
        request.GET.get("page"),
    )
    response = render(
        request,
        "dashboard/webhooks.html",
        {
            "nav": "webhooks",
            "form": form,
            "endpoints": endpoints,
            "secret": shown_secret,
            "page": page,
            "page_error": page_error,
            "filters": filters,
            "tenant_secret_set": bool(scope.tenant.webhook_secret_encrypted),
            "overlap_hours": round(settings.TRUTHLENS["WEBHOOK_SECRET_OVERLAP_SECONDS"] / 3600, 1),
        },
    )
    return one_time.no_store(response) if shown_secret else response


@tenant_view
def secret_shown(request, scope):
    """The GET after a rotation: the new secret once; a refresh goes back to the list."""
    shown = one_time.take(request, ROTATED, scope.tenant.pk)
    if shown is None:
        messages.info(request, "A new secret is shown only once; rotate again if it was lost.")
        return redirect("dashboard:webhooks")
    response = render(request, "dashboard/secret_shown.html", {"nav": "webhooks", **shown})
    return one_time.no_store(response)


@require_POST
@tenant_view(edit=True)
def rotate(request, scope, pk: int):
    endpoint = scope.get_or_404(WebhookEndpoint.objects.all(), pk=pk)
    secret = endpoint.rotate_secret(settings.TRUTHLENS["WEBHOOK_SECRET_OVERLAP_SECONDS"])
    endpoint.save(
        update_fields=[
            "secret_encrypted",
            "previous_secret_encrypted",
            "previous_secret_expires_at",
        ]
    )
    record(request, "webhook.secret_rotated", endpoint, details={"url": endpoint.url})
    expires = endpoint.previous_secret_expires_at
    one_time.keep(
        request,
        ROTATED,
        secret,
        scope.tenant.pk,
        what=endpoint.url,
        old_expires=f"{expires:%Y-%m-%d %H:%M}" if expires else "",
    )
    return one_time.see_other(reverse("dashboard:secret-shown"))


@require_POST
@tenant_view(edit=True)
def rotate_tenant_secret(request, scope):
    tenant = scope.tenant
    secret = tenant.rotate_webhook_secret()
    tenant.save(update_fields=["webhook_secret_encrypted"])
    record(request, "webhook.secret_rotated", tenant, details={"secret": "per-request callbacks"})
    one_time.keep(request, ROTATED, secret, tenant.pk, what="per-request callback URLs")
    return one_time.see_other(reverse("dashboard:secret-shown"))


@require_POST
@tenant_view(edit=True)
def test_event(request, scope, pk: int):
    """Send a signed `webhook.test` now, through the normal delivery path; show its result."""
    endpoint = scope.get_or_404(WebhookEndpoint.objects.select_related("tenant"), pk=pk)
    item = send_test_event(endpoint)
    if item.status == WebhookDelivery.SUCCEEDED:
        messages.success(request, f"Test event delivered: HTTP {item.last_status_code}.")
    elif item.status == WebhookDelivery.FAILED:
        attempt = item.log.last()
        why = attempt.error if attempt else "no answer"
        messages.error(request, f"Test event failed: {why}.")
    else:
        messages.info(request, "Test event queued; its result appears below when sent.")
    return one_time.see_other(reverse("dashboard:delivery", kwargs={"pk": item.pk}))


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
    item = scope.get_or_404(WebhookDelivery.objects.select_related("job", "endpoint"), pk=pk)
    return render(
        request,
        "dashboard/delivery.html",
        {
            "nav": "webhooks",
            "delivery": item,
            "attempts": list(item.log.all()),
            "payload_json": json.dumps(item.payload, indent=2, sort_keys=True),
            "endpoint_paused": item.endpoint is not None and not item.endpoint.is_active,
            "body_limit_kb": RESPONSE_BODY_BYTES // 1024,
        },
    )


@require_POST
@tenant_view(edit=True)
def replay_delivery(request, scope, pk: int):
    item = scope.get_or_404(
        WebhookDelivery.objects.select_related("endpoint", "tenant", "job"), pk=pk
    )
    copy = replay(item)
    if item.endpoint is not None and not item.endpoint.is_active:
        messages.warning(
            request,
            "This endpoint is paused: the replay is sent anyway, but new events are not "
            "until you resume it.",
        )
    messages.success(request, f"Replay queued as {copy.event_id}.")
    return redirect("dashboard:delivery", pk=copy.pk)
