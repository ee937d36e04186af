"""API key authentication that resists enumeration.

Unknown prefix, wrong secret, revoked key and inactive tenant all answer
the same 401; the secret comparison is constant-time and a dummy hash is
compared when the prefix is unknown so timing does not reveal prefixes.
The key, its tenant, plan and policy come from a per-process cache of a few seconds
(`tenants.auth_cache`: a revocation takes effect at once in the process that made it,
within `TRUTHLENS_AUTH_CACHE_SECONDS` in the others). Each failure counts against the client's address (`api.guessing`): too many
and the address gets 429 before any key it sends is looked at.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone
from rest_framework import authentication, exceptions

from observability.logcontext import tenant_id_var
from tenants import auth_cache
from tenants.keys import hash_secret, parse_key, secret_matches
from tenants.models import ApiKey, Tenant

from . import guessing

_DUMMY_HASH = hash_secret("not-a-real-secret")
LAST_USED_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True)
class TenantPrincipal:
    """The `request.user` of an API call: a tenant acting through one key."""

    tenant: Tenant
    key: ApiKey
    is_authenticated: bool = True

    @property
    def can_write(self) -> bool:
        return self.key.scope == ApiKey.SCOPE_WRITE


class ApiKeyAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        guessing.refuse_if_locked(request)
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        scheme, _, token = header.partition(" ")
        if scheme.lower() != self.keyword.lower() or not token.strip():
            guessing.note_failure(request)
            raise exceptions.AuthenticationFailed("Use 'Authorization: Bearer <api key>'.")
        return self.authenticate_key(token, request)

    def authenticate_key(self, token: str, request=None):
        try:
            return self._authenticate_key(token)
        except exceptions.AuthenticationFailed:
            if request is not None:
                guessing.note_failure(request)
            raise

    def _authenticate_key(self, token: str):
        parsed = parse_key(token)
        if parsed is None:
            raise exceptions.AuthenticationFailed("Invalid API key.")
        prefix, secret = parsed
        key = auth_cache.get(prefix)
        if key is None:
            seen = auth_cache.generation()
            key = (
                ApiKey.objects.active()
                .select_related("tenant", "tenant__plan", "tenant__policy")
                .filter(prefix=prefix)
                .first()
            )
            if key is not None and secret_matches(secret, key.secret_hash):
                auth_cache.put(prefix, key, seen)
        stored = key.secret_hash if key is not None else _DUMMY_HASH
        if not secret_matches(secret, stored) or key is None:
            raise exceptions.AuthenticationFailed("Invalid API key.")
        self._touch(key)
        tenant_id_var.set(str(key.tenant_id))
        return TenantPrincipal(tenant=key.tenant, key=key), key

    def authenticate_header(self, request) -> str:
        return self.keyword

    @staticmethod
    def _touch(key: ApiKey) -> None:
        """Write last_used_at at most once a minute (one conditional UPDATE, no read)."""
        now = timezone.now()
        if key.last_used_at and now - key.last_used_at < LAST_USED_RESOLUTION:
            return
        if not auth_cache.should_touch(key.pk, LAST_USED_RESOLUTION.total_seconds()):
            return  # this process wrote it less than a minute ago (its cached copy is older)
        ApiKey.objects.filter(pk=key.pk).exclude(
            last_used_at__gte=now - LAST_USED_RESOLUTION
        ).update(last_used_at=now)


class ApiKeyOrXApiKeyAuthentication(ApiKeyAuthentication):
    """Also `x-api-key: <api key>`, the header Anthropic's clients send (`/v1/messages`)."""

    def authenticate(self, request):
        token = request.headers.get("x-api-key", "").strip()
        if token and not authentication.get_authorization_header(request):
            guessing.refuse_if_locked(request)
            return self.authenticate_key(token, request)
        return super().authenticate(request)
