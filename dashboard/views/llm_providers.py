"""LLM providers: the tenant's own credentials for standard and premium modes, the
cascade and the gateway; add, edit, replace a key, delete, "Test connection", and the
default refinement model. Owners and admins edit; every change is audited.

Each write is POST → redirect (a refresh repeats nothing); a key is never shown.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from tenants import auth_cache
from tenants.audit import record
from tenants.llm_providers import LLMProvider, served_models
from tenants.models import Tenant
from tenants.provider_actions import delete_provider, save_provider
from verification.provider_checks import check_connection, field_errors

from ..scoping import tenant_view


class ProviderForm(forms.Form):
    name = forms.CharField(max_length=60, help_text="Your name for it, e.g. OpenAI production.")
    model_prefix = forms.CharField(
        max_length=40,
        label="litellm prefix",
        initial="openai/",
        help_text="openai/, anthropic/, azure/, … (openai/ also for OpenAI-compatible servers).",
    )
    model_names = forms.CharField(
        label="Models",
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One per line, without the prefix: gpt-4o-mini",
    )
    api_base = forms.URLField(
        required=False,
        label="API base URL",
        assume_scheme="https",
        help_text="Empty: the provider's own address.",
    )
    api_key = forms.CharField(
        required=False,
        label="API key",
        widget=forms.PasswordInput(render_value=False),
        help_text="Stored encrypted and never shown again. Editing: leave empty to keep it.",
    )
    timeout_seconds = forms.FloatField(
        min_value=1, max_value=300, initial=30, label="Timeout (seconds)"
    )
    max_retries = forms.IntegerField(min_value=0, max_value=10, initial=3, label="Retries")
    price_input = forms.DecimalField(
        required=False,
        min_value=0,
        label="Input price (USD per 1M tokens)",
        help_text="For models litellm has no price for; empty: litellm's price.",
    )
    price_output = forms.DecimalField(
        required=False, min_value=0, label="Output price (USD per 1M tokens)"
    )

    def __init__(self, *args, tenant, instance: LLMProvider | None = None, **kwargs):
        self.tenant, self.instance = tenant, instance
        if instance is not None and "initial" not in kwargs:
            price: dict = next(iter((instance.price_table or {}).values()), {})
            kwargs["initial"] = {
                "name": instance.name,
                "model_prefix": instance.model_prefix,
                "model_names": "\n".join(instance.model_names),
                "api_base": instance.api_base,
                "timeout_seconds": instance.timeout_seconds,
                "max_retries": instance.max_retries,
                "price_input": price.get("input"),
                "price_output": price.get("output"),
            }
        super().__init__(*args, **kwargs)

    def clean(self):
        data = super().clean()
        names = [n.strip() for n in (data.get("model_names") or "").splitlines() if n.strip()]
        data["model_names"] = list(dict.fromkeys(names))
        pk = self.instance.pk if self.instance else None
        errors = field_errors(
            self.tenant, data.get("model_prefix", ""), names, data.get("api_base", ""), pk
        )
        for field, message in errors.items():
            self.add_error(field, message)
        taken = LLMProvider.objects.filter(tenant=self.tenant, name=data.get("name")).exclude(pk=pk)
        if taken.exists():
            self.add_error("name", "You already have a provider with this name.")
        if self.instance is None and not data.get("api_key") and not data.get("api_base"):
            self.add_error("api_key", "A new provider needs its API key.")
        return data

    def provider_data(self) -> dict:
        data = dict(self.cleaned_data)
        p_in, p_out = data.pop("price_input"), data.pop("price_output")
        if p_in is not None or p_out is not None:
            price = {"input": float(p_in or 0), "output": float(p_out or 0)}
            data["price_table"] = {m: price for m in data["model_names"]}
        elif self.instance is None:
            data["price_table"] = {}
        return data


class RolesForm(forms.Form):
    refine_model = forms.ChoiceField(
        label="Default model (refinement)",
        help_text="Standard mode rewrites with it; the judge uses it unless the policy names one.",
    )

    def __init__(self, *args, tenant_id: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["refine_model"].choices = [(m, m) for m in served_models(tenant_id)]


def _page(request, scope, form, editing: LLMProvider | None = None, status: int = 200):
    default = Tenant.objects.filter(pk=scope.tenant.pk).values_list("default_model", flat=True)[0]
    roles = RolesForm(tenant_id=scope.tenant.pk, initial={"refine_model": default})
    return render(
        request,
        "dashboard/llm_providers.html",
        {
            "nav": "llm-providers",
            "providers": scope.filter(LLMProvider.objects.all()),
            "form": form,
            "editing": editing,
            "roles": roles,
            "default_model": default,
        },
        status=status,
    )


@tenant_view(edit=True)
def providers(request, scope):
    form = ProviderForm(request.POST or None, tenant=scope.tenant)
    if request.method == "POST":
        if not form.is_valid():
            return _page(request, scope, form, status=400)
        provider = save_provider(scope.tenant, form.provider_data())
        record(request, "llm_provider.created", provider, details={"name": provider.name})
        messages.success(request, f"Provider {provider.name} added. Test its connection below.")
        return redirect("dashboard:llm-providers")
    return _page(request, scope, form)


@tenant_view(edit=True)
def edit(request, scope, pk: int):
    provider = scope.get_or_404(LLMProvider.objects.all(), pk=pk)
    form = ProviderForm(request.POST or None, tenant=scope.tenant, instance=provider)
    if request.method == "POST":
        if not form.is_valid():
            return _page(request, scope, form, editing=provider, status=400)
        data = form.provider_data()
        save_provider(scope.tenant, data, provider)
        action = "llm_provider.key_replaced" if data.get("api_key") else "llm_provider.changed"
        record(request, action, provider, details={"name": provider.name})
        messages.success(request, f"Provider {provider.name} saved.")
        return redirect("dashboard:llm-providers")
    return _page(request, scope, form, editing=provider)


@require_POST
@tenant_view(edit=True)
def delete(request, scope, pk: int):
    provider = scope.get_or_404(LLMProvider.objects.all(), pk=pk)
    name = provider.name
    delete_provider(scope.tenant, provider)
    record(request, "llm_provider.deleted", None, tenant=scope.tenant, details={"name": name})
    messages.success(request, f"Provider {name} deleted; its models can no longer be called.")
    return redirect("dashboard:llm-providers")


@require_POST
@tenant_view(edit=True)
def test(request, scope, pk: int):
    provider = scope.get_or_404(LLMProvider.objects.all(), pk=pk)
    model = request.POST.get("model") or None
    if model and provider.model_id(model) not in provider.model_ids:
        messages.error(request, f"{provider.name} does not serve {model}.")
        return redirect("dashboard:llm-providers")
    check = check_connection(provider, model)
    record(request, "llm_provider.tested", provider, details={"ok": check.ok})
    if check.ok:
        messages.success(
            request,
            f"{provider.name}: {check.model} answered “{check.answer}” in {check.latency_ms} ms.",
        )
    else:
        messages.error(request, f"{provider.name}: {check.model or 'no model'}: {check.error}")
    return redirect("dashboard:llm-providers")


@require_POST
@tenant_view(edit=True)
def roles(request, scope):
    form = RolesForm(request.POST, tenant_id=scope.tenant.pk)
    if not form.is_valid():
        messages.error(request, "Pick one of the models your providers serve.")
        return redirect("dashboard:llm-providers")
    model = form.cleaned_data["refine_model"]
    Tenant.objects.filter(pk=scope.tenant.pk).update(default_model=model)
    auth_cache.invalidate()  # the API reads default_model from the cached tenant
    record(request, "llm_roles.changed", scope.tenant, details={"refine_model": model})
    messages.success(request, f"Default model: {model}.")
    return redirect("dashboard:llm-providers")
