"""A secret shown once, across a redirect (POST → 303 → GET), so a refresh repeats nothing.

The POST that creates a key or rotates a secret keeps it here, encrypted (`security.crypto`,
like every secret at rest: the session lives in the database), and redirects; the GET
that follows takes it out and shows it. A second GET (a refresh) finds nothing: the
secret is gone for good and nothing was created twice.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

from security import crypto

SESSION_KEY = "dashboard_one_time_secret"


def keep(request: HttpRequest, kind: str, secret: str, tenant_id: int, **extra) -> None:
    request.session[SESSION_KEY] = {
        "kind": kind,
        "tenant": tenant_id,
        "secret": crypto.encrypt(secret),
        **extra,
    }


def take(request: HttpRequest, kind: str, tenant_id: int) -> dict | None:
    """The kept secret of this kind and tenant (decrypted), removed from the session."""
    kept = request.session.get(SESSION_KEY)
    if not isinstance(kept, dict) or kept.get("kind") != kind or kept.get("tenant") != tenant_id:
        return None
    del request.session[SESSION_KEY]
    return {**kept, "secret": crypto.decrypt(kept["secret"])}


def see_other(url: str) -> HttpResponse:
    """303: the browser follows with a GET, and a refresh there does not resend the POST."""
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response


def no_store(response: HttpResponse) -> HttpResponse:
    """A page holding the only copy of a secret: no cache may keep it."""
    response["Cache-Control"] = "no-store"
    return response
