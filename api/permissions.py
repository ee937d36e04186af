from rest_framework.permissions import SAFE_METHODS, BasePermission

from . import guessing
from .authentication import TenantPrincipal


class HasTenantKey(BasePermission):
    """Any valid key reads; only write-scoped keys change anything."""

    message = "This API key is read-only."

    def has_permission(self, request, view) -> bool:
        principal = request.user
        if not isinstance(principal, TenantPrincipal):
            guessing.note_failure(request)  # no key at all: a 401 that counts as a guess
            return False
        return request.method in SAFE_METHODS or principal.can_write
