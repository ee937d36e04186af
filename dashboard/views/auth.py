"""Sign-in (by e-mail), sign-out, password reset by e-mail and switching the tenant."""

from __future__ import annotations

from axes.utils import reset as axes_reset
from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm
from django.http import Http404, HttpResponseRedirect
from django.urls import reverse, reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from ..scoping import switch_tenant, tenant_view
from . import two_factor


class EmailAuthenticationForm(AuthenticationForm):
    """Sign in with the account's e-mail (the user name still works: older accounts)."""

    username = forms.CharField(
        label="E-mail",
        max_length=254,
        widget=forms.TextInput(attrs={"autofocus": True, "autocomplete": "email"}),
    )

    def clean(self):
        typed = (self.cleaned_data.get("username") or "").strip()
        account = (
            get_user_model()
            .objects.filter(email__iexact=typed, is_active=True)
            .order_by("pk")
            .values_list("username", flat=True)
            .first()
        )
        if account is not None:
            self.cleaned_data["username"] = account
        return super().clean()


class LoginView(auth_views.LoginView):
    template_name = "dashboard/login.html"
    form_class = EmailAuthenticationForm
    redirect_authenticated_user = True
    next_page = "dashboard:overview"

    def form_valid(self, form):
        user = form.get_user()
        if two_factor.has_two_factor(user):  # the password was right: now the code
            return two_factor.park(self.request, user, self.get_success_url())
        return super().form_valid(form)


class LogoutView(auth_views.LogoutView):
    next_page = "dashboard:login"


class ResetForm(PasswordResetForm):
    email = forms.EmailField(
        label="E-mail", max_length=254, widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )


def _reset_context() -> dict:
    return {
        # the link names our public address, never the Host header a requester chose
        "base_url": settings.TRUTHLENS["PUBLIC_BASE_URL"].rstrip("/"),
        "timeout_hours": settings.PASSWORD_RESET_TIMEOUT // 3600,
    }


class PasswordResetView(auth_views.PasswordResetView):
    """Always "check your e-mail", whether or not an account uses the address."""

    form_class = ResetForm
    template_name = "dashboard/password_reset_form.html"
    email_template_name = "dashboard/password_reset_email.txt"
    subject_template_name = "dashboard/password_reset_subject.txt"
    success_url = reverse_lazy("dashboard:password-reset-done")

    @property
    def extra_email_context(self):
        return _reset_context()


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "dashboard/password_reset_done.html"
    extra_context = _reset_context()


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "dashboard/password_reset_confirm.html"
    success_url = reverse_lazy("dashboard:password-reset-complete")

    def render_to_response(self, context, **kwargs):
        if not context.get("validlink"):
            kwargs["status"] = 404  # a spent, expired or made-up link
        return super().render_to_response(context, **kwargs)

    def form_valid(self, form):
        response = super().form_valid(form)
        # a new password lifts a sign-in lock on the account: its owner proved the mailbox
        axes_reset(username=form.user.get_username())
        return response


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "dashboard/password_reset_complete.html"


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
