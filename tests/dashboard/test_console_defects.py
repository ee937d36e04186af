"""Small console defects: the 403 page of a user without a tenant, a tenant slug that is
refused rather than lower-cased, internal plans hidden from tenants. (The premium tables at
390 px are checked in Chromium: `pages.premium_job` in test_browser_layout.)"""

from __future__ import annotations

import pytest

from tenants.models import Plan, Tenant

from .conftest import make_user

pytestmark = pytest.mark.django_db


def test_the_403_page_of_a_user_without_a_tenant_reads_well(client):
    client.force_login(make_user("loner"))
    answer = client.get("/dashboard/tenants/new/")
    assert answer.status_code == 403
    html = answer.content.decode()
    assert "Your role in" not in html
    assert "Only TruthLens staff create tenants." in html
    assert "not a member of any tenant yet" in html


def test_the_403_page_of_a_member_names_the_tenant_and_role(client, viewer_a):
    client.force_login(viewer_a)
    answer = client.post("/dashboard/keys/", {"name": "x", "scope": "read"})
    assert answer.status_code == 403
    assert "Your role in <strong>Tenant-A</strong> is <strong>viewer</strong>" in (
        answer.content.decode()
    )


@pytest.mark.parametrize(
    ("slug", "hint"),
    [
        ("Walk_Upper", "'walk-upper'"),
        ("UPPER", "'upper'"),
        ("under_score", "'under-score'"),
        ("-lead", "'lead'"),
        ("two--dashes", "'two-dashes'"),
    ],
)
def test_a_slug_that_is_not_lower_case_dashes_is_refused_not_changed(
    client, staff_user, slug, hint
):
    client.force_login(staff_user)
    data = {"name": "Walk", "slug": slug, "owner_email": "boss@walk.test"}
    answer = client.post("/dashboard/tenants/new/", data)
    assert answer.status_code == 400
    html = answer.content.decode()
    assert "Use lower-case letters, digits and single dashes only" in html
    assert hint.replace("'", "&#x27;") in html
    assert not Tenant.objects.exists()


def test_a_good_slug_is_kept_as_typed(client, staff_user):
    client.force_login(staff_user)
    data = {"name": "Walk", "slug": "walk-upper-2", "owner_email": "boss@walk.test"}
    assert client.post("/dashboard/tenants/new/", data).status_code == 302
    assert Tenant.objects.filter(slug="walk-upper-2").exists()


def test_billing_hides_internal_plans_from_tenants_but_not_from_staff(
    client, owner_a, tenant_a, staff_user
):
    public = Plan.objects.create(name="growth", is_public=True)
    own = Plan.objects.create(name="deal-for-tenant-a")
    Plan.objects.create(name="deal-for-someone-else")
    tenant_a.tenant.plan = own
    tenant_a.tenant.save()
    client.force_login(owner_a)
    shown = {p.name for p in client.get("/dashboard/billing/").context["plans"]}
    assert shown == {public.name, own.name}
    client.force_login(staff_user)
    client.post("/dashboard/tenant/", {"tenant": tenant_a.tenant.pk})
    page = client.get("/dashboard/billing/")
    assert {p.name for p in page.context["plans"]} == {
        "growth",
        "deal-for-tenant-a",
        "deal-for-someone-else",
    }
    assert '<span class="badge">internal</span>' in page.content.decode()
