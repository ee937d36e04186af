"""Staff create a tenant and invite its owner (plan optional)."""

from __future__ import annotations

import re

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.text import slugify

from tenants import members as actions
from tenants.audit import record
from tenants.models import Membership, Plan, Tenant

from ..invitation_mail import send_invitation
from ..scoping import resolve_scope

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


class NewTenantForm(forms.Form):
    name = forms.CharField(max_length=200)
    slug = forms.SlugField(max_length=50, help_text="Lower-case letters, digits and dashes.")
    plan = forms.ModelChoiceField(
        queryset=Plan.objects.order_by("name"), required=False, empty_label="no plan"
    )
    owner_email = forms.EmailField(label="Owner's e-mail")

    def clean_slug(self) -> str:
        slug = self.cleaned_data["slug"]
        if not SLUG.match(slug):
            # refused, not quietly changed: the slug names the tenant everywhere
            suggestion = slugify(slug.replace("_", "-"))
            hint = f" (for example {suggestion!r})" if SLUG.match(suggestion) else ""
            raise forms.ValidationError(
                f"Use lower-case letters, digits and single dashes only{hint}."
            )
        if Tenant.objects.filter(slug=slug).exists():
            raise forms.ValidationError("A tenant with this slug exists.")
        return slug


@login_required
def new_tenant(request):
    # Not a tenant_view: on a fresh install staff belong to no tenant yet, and this page
    # is how the first one is made.
    if not request.user.is_staff:
        request.scope = resolve_scope(request)
        reason = "Only TruthLens staff create tenants."
        return render(
            request, "dashboard/error.html", {"status": 403, "reason": reason}, status=403
        )
    request.scope = resolve_scope(request)  # the side bar, once tenants exist
    form = NewTenantForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            tenant, invitation, token = actions.create_tenant(
                data["name"], data["slug"], data["plan"], data["owner_email"], request.user
            )
        except actions.MemberError as exc:
            form.add_error("slug", str(exc))
        else:
            plan = data["plan"].name if data["plan"] else None
            record(request, "tenant.created", tenant, tenant=tenant, details={"plan": plan})
            details = {"email": invitation.email, "role": Membership.OWNER}
            record(request, "member.invited", invitation, tenant=tenant, details=details)
            if send_invitation(invitation, token, request.user.get_username()):
                messages.success(
                    request, f"{tenant.name} created; {invitation.email} is invited as owner."
                )
            else:
                messages.warning(
                    request,
                    f"{tenant.name} created, but the mail to {invitation.email} failed: invite again from Members.",
                )
            return redirect("dashboard:tenant-new")
    recent = Tenant.objects.select_related("plan").order_by("-created_at")[:20]
    return render(
        request,
        "dashboard/tenant_new.html",
        {"nav": "tenant-new", "form": form, "recent": recent},
        status=400 if request.method == "POST" else 200,
    )
