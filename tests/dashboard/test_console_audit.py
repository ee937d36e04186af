"""The audit log names targets by their name, filters by actor, and says so when a date or a
page is out of range instead of quietly showing an empty log."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tenants.audit import AuditEvent, record
from tenants.models import ApiKey

pytestmark = pytest.mark.django_db

PAGE = "/dashboard/audit/"


def test_targets_are_named_not_numbered(client, owner_a, tenant_a):
    client.force_login(owner_a)
    client.post(reverse("dashboard:keys"), {"name": "ci-runner", "scope": "read"})
    key = ApiKey.objects.get(name="ci-runner")
    client.post("/dashboard/members/", {"email": "new@example.com", "role": "viewer"})
    created = AuditEvent.objects.get(action="api_key.created")
    assert created.target_name == f"tl_{key.prefix}_… (ci-runner)"
    invited = AuditEvent.objects.get(action="member.invited")
    assert invited.target_name == "new@example.com"
    html = client.get(PAGE).content.decode()
    assert f"tl_{key.prefix}_… (ci-runner)" in html
    assert f'apikey <span class="mono">{key.pk}</span>' not in html


def test_filter_by_actor(client, owner_a, admin_a, tenant_a):
    client.force_login(admin_a)
    client.post(reverse("dashboard:keys"), {"name": "by-admin", "scope": "read"})
    client.force_login(owner_a)
    client.post(reverse("dashboard:keys"), {"name": "by-owner", "scope": "read"})
    page = client.get(PAGE)
    assert ("admin-a", "admin-a") in page.context["filters"].fields["actor"].choices
    html = client.get(PAGE, {"actor": "admin-a"}).content.decode()
    assert "by-admin" in html
    assert "by-owner" not in html
    unknown = client.get(PAGE, {"actor": "someone-else"})
    assert "Select a valid choice" in unknown.content.decode()


def test_another_tenants_actors_are_not_offered(client, owner_a, owner_b, tenant_a, tenant_b):
    client.force_login(owner_b)
    client.post(reverse("dashboard:keys"), {"name": "b-key", "scope": "read"})
    client.force_login(owner_a)
    choices = client.get(PAGE).context["filters"].fields["actor"].choices
    assert all("owner-b" not in value for value, _ in choices)
    assert "Select a valid choice" in client.get(PAGE, {"actor": "owner-b"}).content.decode()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"start": "9999-12-31"}, "Pick a date between 2000 and 2100."),
        ({"end": "9999-12-31"}, "Pick a date between 2000 and 2100."),
        ({"start": "garbage"}, "Enter a valid date."),
        ({"start": "2026-05-02", "end": "2026-05-01"}, "must not be before the start date"),
    ],
)
def test_a_bad_date_is_an_error_not_an_empty_log(client, owner_a, tenant_a, params, message):
    record(None, "api_key.created", tenant=tenant_a.tenant, details={"prefix": "visible1"})
    client.force_login(owner_a)
    page = client.get(PAGE, params)
    assert page.status_code == 200
    html = page.content.decode()
    assert message in html
    assert 'role="alert"' in html
    assert "visible1" in html  # the log is still there, with the error said


def test_a_page_past_the_end_shows_page_one_and_says_so(client, owner_a, tenant_a):
    record(None, "api_key.created", tenant=tenant_a.tenant, details={"prefix": "visible1"})
    client.force_login(owner_a)
    for raw, said in (("999", "There is no page 999"), ("x", "&#x27;x&#x27; is not a page number")):
        html = client.get(PAGE, {"page": raw}).content.decode()
        assert said in html
        assert "visible1" in html
