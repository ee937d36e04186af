"""The dashboard account: sign in by e-mail, reset a forgotten password by e-mail, and
viewers see no provider controls they cannot use."""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup
from django.core import mail

from tenants.provider_actions import save_provider

from .conftest import PASSWORD

pytestmark = pytest.mark.django_db


def test_the_sign_in_field_is_labelled_e_mail(client):
    page = BeautifulSoup(client.get("/dashboard/login/").content, "html.parser")
    assert page.find("label", attrs={"for": "id_username"}).get_text(strip=True) == "E-mail"
    assert page.find("a", href="/dashboard/password-reset/")


@pytest.mark.parametrize("typed", ["owner-a@example.com", "Owner-A@Example.com", "owner-a"])
def test_sign_in_by_e_mail_or_user_name(client, owner_a, typed):
    response = client.post("/dashboard/login/", {"username": typed, "password": PASSWORD})
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(owner_a.pk)


def test_a_wrong_password_for_an_e_mail_is_refused(client, owner_a):
    response = client.post(
        "/dashboard/login/", {"username": "owner-a@example.com", "password": "nope"}
    )
    assert response.status_code == 200
    assert "_auth_user_id" not in client.session


def _reset_link(settings) -> str:
    body = mail.outbox[-1].body
    base = re.escape(settings.TRUTHLENS["PUBLIC_BASE_URL"].rstrip("/"))
    return re.search(base + r"(/dashboard/password-reset/\S+/\S+/)", body).group(1)


def test_a_forgotten_password_is_reset_by_e_mail(client, owner_a, settings):
    # given a reset asked for the account's e-mail (from a forged Host)
    asked = client.post(
        "/dashboard/password-reset/", {"email": "OWNER-A@example.com"}, HTTP_HOST="localhost"
    )
    assert asked.status_code == 302
    assert asked["Location"] == "/dashboard/password-reset/sent/"
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["owner-a@example.com"]
    # when its link (on the public base URL) sets a new password
    link = _reset_link(settings)
    form = client.get(link, follow=True)
    assert b"Set a new password" in form.content
    new = "a-brand-new-passphrase-42"
    done = client.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert done["Location"] == "/dashboard/password-reset/done/"
    # then the new password signs in, the old one does not, and the link is spent
    assert (
        client.post(
            "/dashboard/login/", {"username": "owner-a@example.com", "password": PASSWORD}
        ).status_code
        == 200
    )
    assert (
        client.post(
            "/dashboard/login/", {"username": "owner-a@example.com", "password": new}
        ).status_code
        == 302
    )
    client.logout()
    assert b"no longer works" in client.get(link, follow=True).content


def test_an_unknown_address_gets_the_same_answer_and_no_mail(client, owner_a):
    response = client.post("/dashboard/password-reset/", {"email": "nobody@example.com"})
    assert response["Location"] == "/dashboard/password-reset/sent/"
    assert mail.outbox == []


def test_a_reset_lifts_a_sign_in_lock(client, owner_a, settings):
    settings.AXES_FAILURE_LIMIT = 3
    for _ in range(3):
        client.post("/dashboard/login/", {"username": "owner-a", "password": "wrong"})
    assert (
        client.post("/dashboard/login/", {"username": "owner-a", "password": PASSWORD}).status_code
        == 429
    )
    client.post("/dashboard/password-reset/", {"email": "owner-a@example.com"})
    form = client.get(_reset_link(settings), follow=True)
    new = "a-brand-new-passphrase-42"
    client.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert (
        client.post("/dashboard/login/", {"username": "owner-a", "password": new}).status_code
        == 302
    )


def _provider_controls(client) -> list[str]:
    page = BeautifulSoup(client.get("/dashboard/llm-providers/").content, "html.parser")
    return sorted(
        b.get_text(strip=True) for b in page.select("main button, main a.btn") if b.get_text()
    )


def test_viewers_see_no_provider_controls(client, tenant_a, owner_a, viewer_a):
    save_provider(
        tenant_a.tenant,
        {"name": "Local", "model_prefix": "openai/", "model_names": ["m"], "api_key": "sk-x"},
    )
    client.force_login(owner_a)
    owner_sees = _provider_controls(client)
    assert {"Test connection", "Edit", "Delete", "Add provider"} <= set(owner_sees)
    client.force_login(viewer_a)
    page = client.get("/dashboard/llm-providers/").content.decode()
    assert _provider_controls(client) == []
    assert "Viewers cannot add, edit, delete or test providers." in page
    assert "Local" in page  # the list itself stays readable
