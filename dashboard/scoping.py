"""The one tenant chokepoint of the dashboard.

Every dashboard view is wrapped by `tenant_view`, which resolves a `Scope`:
the signed-in user, the tenant they are looking at, and their role in it.
Every queryset a view touches goes through `scope.filter()` or
`scope.get_or_404()`; another tenant's object therefore answers 404 exactly
like a missing one. Members see only their own tenants; staff see every
tenant and switch between them (the choice lives in the session). Viewers
read; only owners, admins and staff may change anything (`edit=True`). The
one cross-tenant page, staff revenue, is a `tenant_view(staff=True)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from tenants.models import Membership, Tenant

SESSION_KEY = "dashboard_tenant_id"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
STAFF_ROLE = "staff"


@dataclass(frozen=True)
class Scope:
    """Who is looking, at which tenant, with which role."""

    user: Any
    tenant: Tenant
    role: str  # owner | admin | reviewer | viewer | staff
    tenants: tuple[Tenant, ...]  # the tenants this user may switch to

    @property
    def is_staff(self) -> bool:
        return bool(self.user.is_staff)

    @property
    def can_review(self) -> bool:
        """Owners, admins, reviewers and staff label answers in the review queue."""
        return self.can_edit or self.role == Membership.REVIEWER

    @property
    def can_edit(self) -> bool:
        return self.role in (STAFF_ROLE, Membership.OWNER, Membership.ADMIN)

    def filter(self, queryset: QuerySet, field: str = "tenant") -> QuerySet:
        """`queryset` restricted to the current tenant; `field` is the path to the tenant."""
        return queryset.filter(**{field: self.tenant})

    def get_or_404(self, queryset: QuerySet, field: str = "tenant", **lookup: Any) -> Model:
        """One object of the current tenant, or 404 (also when it belongs to another tenant)."""
        try:
            return self.filter(queryset, field).get(**lookup)
        except (queryset.model.DoesNotExist, ValueError, TypeError) as exc:
            raise Http404 from exc


def _tenants_for(user) -> tuple[list[Tenant], dict[int, str]]:
    if user.is_staff:
        # Staff start on a tenant they belong to (if any), then see all the others.
        own = set(Membership.objects.filter(user=user).values_list("tenant_id", flat=True))
        return sorted(Tenant.objects.all(), key=lambda t: (t.pk not in own, t.slug)), {}
    memberships = (
        Membership.objects.filter(user=user).select_related("tenant").order_by("tenant__slug")
    )
    return [m.tenant for m in memberships], {m.tenant_id: m.role for m in memberships}


def resolve_scope(request: HttpRequest) -> Scope | None:
    """The scope of a signed-in user, or None when they belong to no tenant."""
    tenants, roles = _tenants_for(request.user)
    if not tenants:
        return None
    wanted = request.session.get(SESSION_KEY)
    tenant = next((t for t in tenants if t.pk == wanted), tenants[0])
    role = STAFF_ROLE if request.user.is_staff else roles[tenant.pk]
    return Scope(user=request.user, tenant=tenant, role=role, tenants=tuple(tenants))


def switch_tenant(request: HttpRequest, tenant_id: int) -> bool:
    """Remember the tenant to look at; False when the user may not see it."""
    tenants, _ = _tenants_for(request.user)
    if not any(t.pk == tenant_id for t in tenants):
        return False
    request.session[SESSION_KEY] = tenant_id
    return True


View = Callable[..., HttpResponse]


def tenant_view(view: View | None = None, *, edit: bool = False, staff: bool = False):
    """Sign-in required; resolves the scope and passes it as the view's second argument.

    `edit=True`: unsafe methods (POST...) need an editing role, else 403.
    `staff=True`: the whole view is for staff only, else 403.
    """

    def decorate(func: View) -> View:
        @login_required
        @wraps(func)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            scope = resolve_scope(request)
            if scope is None:
                return render(request, "dashboard/no_tenant.html", status=403)
            request.scope = scope  # type: ignore[attr-defined]  # templates read it
            # Pages answer in HTML inside the dashboard's frame; the project-wide
            # handlers answer problem+json, which suits the API, not a browser.
            try:
                if staff and not scope.is_staff:
                    raise PermissionDenied
                if edit and request.method not in SAFE_METHODS and not scope.can_edit:
                    raise PermissionDenied
                return func(request, scope, *args, **kwargs)
            except Http404:
                return render(request, "dashboard/error.html", {"status": 404}, status=404)
            except PermissionDenied:
                return render(request, "dashboard/error.html", {"status": 403}, status=403)

        return wrapper

    return decorate(view) if view is not None else decorate
