"""Sign-in, sign-out and switching the tenant being looked at."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.http import Http404, HttpResponseRedirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from ..scoping import switch_tenant, tenant_view


class LoginView(auth_views.LoginView):
    template_name = "dashboard/login.html"
    redirect_authenticated_user = True
    next_page = "dashboard:overview"


class LogoutView(auth_views.LogoutView):
    next_page = "dashboard:login"


@require_POST
@tenant_view
def switch(request, scope):
    try:
        tenant_id = int(request.POST.get("tenant", ""))
    except ValueError as exc:
        raise Http404 from exc
    if not switch_tenant(request, tenant_id):
        raise Http404
    target = request.POST.get("next") or reverse("dashboard:overview")
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        target = reverse("dashboard:overview")
    return HttpResponseRedirect(target)
