"""The one tenant chokepoint of the API.

Every tenant-owned queryset goes through `TenantScopedView.get_queryset`,
which filters by the tenant of the authenticated key. Subclasses provide
`base_queryset()` and cannot return an unscoped queryset by accident;
the only escape hatch is named `dangerously_unscoped_queryset`.
"""

from __future__ import annotations

from django.db.models import QuerySet
from rest_framework import generics

from tenants.models import Tenant

from ..authentication import TenantPrincipal


class TenantScopedView(generics.GenericAPIView):
    tenant_field = "tenant"

    @property
    def tenant(self) -> Tenant:
        principal = self.request.user
        assert isinstance(principal, TenantPrincipal)  # guaranteed by HasTenantKey
        return principal.tenant

    def base_queryset(self) -> QuerySet:
        raise NotImplementedError

    def get_queryset(self) -> QuerySet:
        if getattr(self, "swagger_fake_view", False):  # schema generation has no tenant
            return self.base_queryset().none()
        return self.base_queryset().filter(**{self.tenant_field: self.tenant})

    def dangerously_unscoped_queryset(self) -> QuerySet:
        return self.base_queryset()
