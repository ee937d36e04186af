"""Response headers every page and API answer gets (the CSP itself is django-csp's).

* `Permissions-Policy`: no page of ours uses the camera, the microphone, geolocation,
  payments, USB or sensors, so none may, nor anything framed or injected into it.
* `Cache-Control: no-store` (Django's `add_never_cache_headers`) on every page a
  signed-in user sees and on every API answer: they are one tenant's data, and some
  carry a secret shown once (a new API key, a webhook signing secret). A response that
  already says how to cache it (streams, static files) is left alone.
"""

from __future__ import annotations

from django.utils.cache import add_never_cache_headers

PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer", "camera", "display-capture", "geolocation", "gyroscope",
        "magnetometer", "microphone", "midi", "payment", "usb", "browsing-topics",
    )
)  # fmt: skip
_PUBLIC_API = ("/v1/schema", "/v1/docs")  # the same for everyone: cacheable


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        if not response.has_header("Cache-Control") and _private(request):
            add_never_cache_headers(response)
        return response


def _private(request) -> bool:
    path = request.path
    if path.startswith("/v1/"):
        return not path.startswith(_PUBLIC_API)
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated)
