"""Every dashboard URL: sign-in required, tenant-scoped (not yours = 404), viewers read only."""

from __future__ import annotations

import pytest
from django.urls import reverse

from dashboard import urls as dashboard_urls
from dashboard.models import PolicyChange
from dashboard.policy.actions import save_policy
from engine.policy import PolicyDocument
from knowledge.models import Document, DocumentVersion, KnowledgeBase
from quality.models import Dataset, Evaluation, ReviewItem
from tenants.models import ApiKey, Invitation, Membership
from tenants.provider_actions import save_provider
from verification.models import Feedback, WebhookDelivery

from .conftest import PASSWORD, member, month_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def objects_a(tenant_a, job_a, endpoint_a, delivery_a):
    review = ReviewItem.objects.get_or_create(
        tenant=tenant_a.tenant, job=job_a, defaults={"reason": "flagged"}
    )[0]
    dataset = Dataset.objects.create(tenant=tenant_a.tenant, name="a-set", source="upload")
    evaluation = Evaluation.objects.create(tenant=tenant_a.tenant, dataset=dataset)
    key = ApiKey.objects.filter(tenant=tenant_a.tenant).first()
    kb = KnowledgeBase.objects.create(tenant=tenant_a.tenant, name="A's base")
    doc = Document.objects.create(
        tenant=tenant_a.tenant, knowledge_base=kb, name="a.txt", content_type="text/plain",
        size_bytes=1, sha256="", raw=b"x", text="x", status="ready",
    )  # fmt: skip
    DocumentVersion.objects.create(
        document=doc, tenant=tenant_a.tenant, number=1, name="a.txt", content_type="text/plain",
        size_bytes=1, sha256="", raw=b"x", text="x", status="ready",
    )  # fmt: skip
    user = member(tenant_a.tenant, "member-of-a", Membership.VIEWER)
    invitation, _ = Invitation.issue(tenant_a.tenant, "invitee@a.test", "viewer", None)
    change = save_policy(tenant_a.tenant, None, PolicyDocument(threshold=0.4), PolicyChange.EDITOR)
    provider = save_provider(
        tenant_a.tenant,
        {"name": "A's", "model_prefix": "openai/", "model_names": ["m"], "api_key": "sk-a"},
    )
    return {
        "provider": provider,
        "job": job_a, "key": key, "endpoint": endpoint_a, "delivery": delivery_a, "kb": kb,
        "doc": doc, "membership": user.memberships.get(), "invitation": invitation,
        "policy_change": change, "review": review, "dataset": dataset, "evaluation": evaluation,
    }  # fmt: skip


# name -> (kwargs from tenant A's objects, methods)
OBJECT_URLS = {
    "verification": (lambda o: {"public_id": o["job"].public_id}, ("get", "post")),
    "key-revoke": (lambda o: {"pk": o["key"].pk}, ("post",)),
    "endpoint-rotate": (lambda o: {"pk": o["endpoint"].pk}, ("post",)),
    "endpoint-test": (lambda o: {"pk": o["endpoint"].pk}, ("post",)),
    "endpoint-toggle": (lambda o: {"pk": o["endpoint"].pk}, ("post",)),
    "endpoint-delete": (lambda o: {"pk": o["endpoint"].pk}, ("post",)),
    "delivery": (lambda o: {"pk": o["delivery"].pk}, ("get",)),
    "delivery-replay": (lambda o: {"pk": o["delivery"].pk}, ("post",)),
    "knowledge-base": (lambda o: {"kb_id": o["kb"].public_id}, ("get", "post")),
    "knowledge-document": (
        lambda o: {"kb_id": o["kb"].public_id, "doc_id": o["doc"].public_id},
        ("get",),
    ),
    "knowledge-document-delete": (
        lambda o: {"kb_id": o["kb"].public_id, "doc_id": o["doc"].public_id},
        ("post",),
    ),
    "knowledge-version-restore": (
        lambda o: {"kb_id": o["kb"].public_id, "doc_id": o["doc"].public_id, "number": 1},
        ("post",),
    ),
    "member-role": (lambda o: {"pk": o["membership"].pk}, ("post",)),
    "member-remove": (lambda o: {"pk": o["membership"].pk}, ("post",)),
    "invitation-revoke": (lambda o: {"pk": o["invitation"].pk}, ("post",)),
    "invitation-link": (lambda o: {"pk": o["invitation"].pk}, ("post",)),
    "invitation-resend": (lambda o: {"pk": o["invitation"].pk}, ("post",)),
    "policy-restore": (lambda o: {"version": o["policy_change"].version}, ("post",)),
    "llm-provider-edit": (lambda o: {"pk": o["provider"].pk}, ("get", "post")),
    "llm-provider-delete": (lambda o: {"pk": o["provider"].pk}, ("post",)),
    "llm-provider-test": (lambda o: {"pk": o["provider"].pk}, ("post",)),
    "review-item": (lambda o: {"public_id": o["job"].public_id}, ("get",)),
    "review-label": (lambda o: {"public_id": o["job"].public_id}, ("post",)),
    "dataset": (lambda o: {"dataset_id": o["dataset"].public_id}, ("get",)),
    "dataset-download": (lambda o: {"dataset_id": o["dataset"].public_id}, ("get",)),
    "dataset-delete": (lambda o: {"dataset_id": o["dataset"].public_id}, ("post",)),
    "dataset-evaluate": (lambda o: {"dataset_id": o["dataset"].public_id}, ("post",)),
    "evaluation": (lambda o: {"evaluation_id": o["evaluation"].pk}, ("get",)),
    "evaluation-calibrate": (lambda o: {"evaluation_id": o["evaluation"].pk}, ("get", "post")),
    "evaluation-rerun": (lambda o: {"evaluation_id": o["evaluation"].pk}, ("post",)),
}
TENANT_PAGES = {
    "overview": {},
    "history": {},
    "policy": {},
    "policy-export": {},
    "policy-import": {},
    "policy-history": {},
    "policy-test": {},
    "modes": {},
    "knowledge": {},
    "keys": {},
    "webhooks": {},
    "billing": {},
    "billing-month": "month",
    "billing-csv": "month",
    "billing-json": "month",
    "members": {},
    "setup": {},
    "review": {},
    "datasets": {},
    "request-log": {},
}
EDIT_POSTS = [
    "policy", "policy-import", "keys", "webhooks", "tenant-secret-rotate", "knowledge", "members",
    "datasets", "review-settings", "budget",
]  # fmt: skip
# tenant-new: staff only; invitation: the public link page; audit-log: owners and admins
# (all three in test_members.py, test_invitations.py, test_audit_log.py); secret-shown only
# shows a secret its own tenant's POST kept (test_webhook_pages.py); llm-providers and
# llm-roles: owners and admins only (test_llm_provider_pages.py); the password-reset pages:
# public, no tenant (test_account.py); login-code and two-factor: test_two_factor.py; budget:
# a POST of the billing page (EDIT_POSTS, and test_console_budget.py)
OTHER = {
    "budget",
    "login", "logout", "switch-tenant", "revenue", "tenant-secret-rotate", "tenant-new",
    "invitation", "audit-log", "secret-shown", "llm-providers", "llm-roles",
    "password-reset", "password-reset-done", "password-reset-confirm", "password-reset-complete",
    "login-code", "two-factor",
    # the quality app's pages (tests/quality): the review settings form (editors), and the
    # comparison of two evaluations (ids in the query string, 404 for another tenant's)
    "review-settings", "evaluation-compare",
}  # fmt: skip


def _url(name, spec, objects=None):
    if callable(spec):
        return reverse(f"dashboard:{name}", kwargs=spec(objects))
    if spec == "month":
        return reverse(f"dashboard:{name}", kwargs={"month": month_of(objects["job"].created_at)})
    return reverse(f"dashboard:{name}")


def test_every_dashboard_url_is_walked_by_these_tests():
    names = {p.name for p in dashboard_urls.urlpatterns}
    assert names == set(OBJECT_URLS) | set(TENANT_PAGES) | OTHER


def test_sign_in_lands_on_the_overview_or_the_page_asked_for(client, owner_a):
    login = reverse("dashboard:login")
    response = client.post(login, {"username": "owner-a", "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"] == reverse("dashboard:overview")
    assert client.get(login)["Location"] == reverse("dashboard:overview")  # already signed in
    client.logout()
    history = reverse("dashboard:history")
    response = client.post(f"{login}?next={history}", {"username": "owner-a", "password": PASSWORD})
    assert response["Location"] == history


def test_anonymous_visitors_are_sent_to_sign_in(client, objects_a):
    for name, (kwargs, methods) in OBJECT_URLS.items():
        for method in methods:
            response = getattr(client, method)(_url(name, kwargs, objects_a))
            assert response.status_code == 302, name
            assert response["Location"].startswith(reverse("dashboard:login")), name
    for name, spec in TENANT_PAGES.items():
        response = client.get(_url(name, spec, objects_a))
        assert response.status_code == 302, name
        assert "/dashboard/login/" in response["Location"], name


def test_other_tenants_member_gets_404_for_every_object_of_tenant_a(client, owner_b, objects_a):
    # given a member of tenant B
    client.force_login(owner_b)
    # when they address each of tenant A's objects, by every method the URL accepts
    for name, (kwargs, methods) in OBJECT_URLS.items():
        for method in methods:
            data = {"outcome": "hallucinated"} if name == "verification" else {}
            response = getattr(client, method)(_url(name, kwargs, objects_a), data)
            # then it is exactly as if the object did not exist
            assert response.status_code == 404, (name, method)
    # and nothing of tenant A changed
    objects_a["key"].refresh_from_db()
    objects_a["endpoint"].refresh_from_db()
    assert objects_a["key"].revoked_at is None
    assert objects_a["endpoint"].is_active
    assert WebhookDelivery.objects.count() == 1
    assert not Feedback.objects.exists()
    assert Membership.objects.get(pk=objects_a["membership"].pk).role == "viewer"
    assert Invitation.objects.pending().filter(pk=objects_a["invitation"].pk).exists()


def test_other_tenants_member_sees_none_of_tenant_a_on_list_pages(client, owner_b, objects_a):
    client.force_login(owner_b)
    secrets_of_a = [
        objects_a["job"].public_id,
        objects_a["key"].prefix,
        objects_a["endpoint"].url,
        objects_a["delivery"].event_id,
        "tenant-a",
    ]
    for name, spec in TENANT_PAGES.items():
        response = client.get(_url(name, spec, objects_a))
        assert response.status_code == 200, name
        body = response.content.decode()
        for secret in secrets_of_a:
            assert secret not in body, (name, secret)


def test_billing_export_of_other_tenant_is_its_own_empty_report(client, owner_b, objects_a):
    client.force_login(owner_b)
    url = reverse("dashboard:billing-json", kwargs={"month": month_of(objects_a["job"].created_at)})
    data = client.get(url).json()
    assert data["tenant"] == "tenant-b"
    assert data["verifications"] == 0


def test_viewer_reads_every_page_but_cannot_change_anything(client, viewer_a, objects_a):
    client.force_login(viewer_a)
    for name, spec in TENANT_PAGES.items():
        assert client.get(_url(name, spec, objects_a)).status_code == 200, name
    assert (
        client.get(_url("verification", OBJECT_URLS["verification"][0], objects_a)).status_code
        == 200
    )
    for name in EDIT_POSTS:
        assert client.post(reverse(f"dashboard:{name}"), {}).status_code == 403, name
    for name, (kwargs, methods) in OBJECT_URLS.items():
        if "post" in methods:
            assert (
                client.post(_url(name, kwargs, objects_a), {"outcome": "correct"}).status_code
                == 403
            ), name
    objects_a["key"].refresh_from_db()
    assert objects_a["key"].revoked_at is None
    assert not Feedback.objects.exists()
    assert WebhookDelivery.objects.count() == 1


def test_admin_may_edit(client, admin_a, objects_a):
    client.force_login(admin_a)
    response = client.post(reverse("dashboard:key-revoke", kwargs={"pk": objects_a["key"].pk}))
    assert response.status_code == 302
    objects_a["key"].refresh_from_db()
    assert objects_a["key"].revoked_at is not None


def test_member_cannot_switch_to_a_tenant_they_do_not_belong_to(
    client, owner_b, tenant_a, objects_a
):
    client.force_login(owner_b)
    response = client.post(reverse("dashboard:switch-tenant"), {"tenant": tenant_a.tenant.pk})
    assert response.status_code == 404
    detail = reverse("dashboard:verification", kwargs={"public_id": objects_a["job"].public_id})
    assert client.get(detail).status_code == 404


def test_staff_see_every_tenant_and_switch_between_them(
    client, staff_user, tenant_a, tenant_b, objects_a
):
    client.force_login(staff_user)
    detail = reverse("dashboard:verification", kwargs={"public_id": objects_a["job"].public_id})
    client.post(reverse("dashboard:switch-tenant"), {"tenant": tenant_b.tenant.pk})
    assert client.get(detail).status_code == 404  # scoped to the tenant being looked at
    response = client.post(
        reverse("dashboard:switch-tenant"), {"tenant": tenant_a.tenant.pk, "next": detail}
    )
    assert response.status_code == 302
    assert response["Location"] == detail
    assert client.get(detail).status_code == 200


def test_switch_ignores_offsite_next(client, staff_user, tenant_a):
    client.force_login(staff_user)
    response = client.post(
        reverse("dashboard:switch-tenant"),
        {"tenant": tenant_a.tenant.pk, "next": "https://evil.example/"},
    )
    assert response["Location"] == reverse("dashboard:overview")


def test_revenue_across_tenants_is_for_staff_only(client, owner_a, staff_user, objects_a):
    client.force_login(owner_a)
    assert client.get(reverse("dashboard:revenue")).status_code == 403
    client.force_login(staff_user)
    response = client.get(
        reverse("dashboard:revenue"), {"month": month_of(objects_a["job"].created_at)}
    )
    assert response.status_code == 200
    assert "tenant-a" in response.content.decode()


def test_user_without_membership_sees_an_explanation(client, db):
    from .conftest import make_user

    client.force_login(make_user("loner"))
    response = client.get(reverse("dashboard:overview"))
    assert response.status_code == 403
    assert b"not a member of any tenant" in response.content


def test_not_found_and_forbidden_are_pages_not_api_problems(client, owner_b, viewer_a, objects_a):
    client.force_login(owner_b)
    url = reverse("dashboard:verification", kwargs={"public_id": objects_a["job"].public_id})
    response = client.get(url)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    assert b"Not found" in response.content
    client.force_login(viewer_a)
    response = client.post(reverse("dashboard:keys"), {"name": "x"})
    assert response.status_code == 403
    assert b"viewers can read everything" in response.content
