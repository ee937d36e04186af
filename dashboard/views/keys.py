"""API keys: list, create (the token is shown once, never stored), revoke.

Creating is POST → 303 → GET (`one_time`): a refresh of the page with the new token
shows the list again and creates nothing.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from tenants.audit import record
from tenants.models import ApiKey

from .. import one_time, quickstart
from ..scoping import tenant_view

KIND = "api-key"


class NewKeyForm(forms.Form):
    name = forms.CharField(max_length=100, initial="default")
    scope = forms.ChoiceField(choices=ApiKey.SCOPES, initial=ApiKey.SCOPE_WRITE)


@tenant_view(edit=True)
def keys(request, scope):
    form = NewKeyForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        key, token = ApiKey.issue(
            scope.tenant, name=form.cleaned_data["name"], scope=form.cleaned_data["scope"]
        )
        record(request, "api_key.created", key, details={"prefix": key.prefix, "scope": key.scope})
        one_time.keep(request, KIND, token, scope.tenant.pk, prefix=key.prefix)
        return one_time.see_other(reverse("dashboard:keys"))
    shown = one_time.take(request, KIND, scope.tenant.pk) if request.method == "GET" else None
    shown_token: str | None = shown["secret"] if shown else None
    listing = scope.filter(ApiKey.objects.all()).order_by("revoked_at", "-created_at")
    # the quickstart names the key just created, else the newest active one (by prefix only)
    prefix = shown.get("prefix", "") if shown else ""
    if not prefix:
        newest = listing.filter(revoked_at__isnull=True).order_by("-created_at").first()
        prefix = newest.prefix if newest else ""
    tabs = quickstart.tabs(prefix, scope.tenant.default_model) if prefix else []
    response = render(
        request,
        "dashboard/keys.html",
        {
            "nav": "keys",
            "form": form,
            "keys": listing,
            "token": shown_token,
            "quickstart": tabs,
            "quickstart_prefix": prefix,
            "env_var": quickstart.ENV_VAR,
        },
    )
    return one_time.no_store(response) if shown_token else response


@require_POST
@tenant_view(edit=True)
def revoke(request, scope, pk: int):
    key = scope.get_or_404(ApiKey.objects.all(), pk=pk)
    key.revoke()
    record(request, "api_key.revoked", key, details={"prefix": key.prefix})
    messages.success(request, f"Key tl_{key.prefix}_… revoked; requests using it now get 401.")
    return redirect("dashboard:keys")
