import logging

from redis.exceptions import RedisError
from rest_framework.throttling import SimpleRateThrottle

from .authentication import TenantPrincipal

log = logging.getLogger(__name__)


class TenantRateThrottle(SimpleRateThrottle):
    """Per-tenant request rate from the tenant's plan (shared by all its keys)."""

    scope = "tenant"

    def get_rate(self):  # the rate depends on the tenant, set in allow_request
        return None

    def allow_request(self, request, view) -> bool:
        principal = request.user
        if not isinstance(principal, TenantPrincipal):
            return True
        self.rate = principal.tenant.rate_limit
        self.num_requests, self.duration = self.parse_rate(self.rate)
        try:
            return super().allow_request(request, view)
        except (RedisError, OSError) as exc:
            # Rate limiting fails open: losing the counter for a moment must not
            # turn every request into a 500 while Redis restarts.
            log.warning("throttle store unavailable, allowing request: %s", exc)
            return True

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": request.user.tenant.pk}
