from rest_framework.permissions import SAFE_METHODS, BasePermission

from .authentication import TenantPrincipal


class HasTenantKey(BasePermission):
    """Any valid key reads; only write-scoped keys change anything."""

    message = "This API key is read-only."

    def has_permission(self, request, view) -> bool:
        principal = request.user
        if not isinstance(principal, TenantPrincipal):
            return False
        return request.method in SAFE_METHODS or principal.can_write
