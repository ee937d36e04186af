"""The audit log: every change made in the dashboard or the API writes one event for the
right tenant and actor; the page shows a tenant only its own events."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from knowledge.models import Document, KnowledgeBase
from tenants import members
from tenants.audit import AuditEvent, record
from tenants.models import ApiKey, Membership, WebhookEndpoint

from .test_policy_editor import editor_post

pytestmark = pytest.mark.django_db

TEXT = "The Eiffel Tower is in Paris. It was built from 1887 to 1889."


def _actions(tenant) -> list[str]:
    return list(
        AuditEvent.objects.filter(tenant=tenant).order_by("id").values_list("action", flat=True)
    )


def test_dashboard_changes_are_recorded_for_the_tenant_and_the_user(
    client, owner_a, viewer_a, tenant_a, tenant_b, mailoutbox
):
    # given an owner of tenant A signed in
    tenant = tenant_a.tenant
    client.force_login(owner_a)

    # when they change keys, webhooks, the policy, knowledge and members
    client.post("/dashboard/keys/", {"name": "ci", "scope": "read"})
    key = ApiKey.objects.get(tenant=tenant, name="ci")
    client.post(f"/dashboard/keys/{key.pk}/revoke/")
    client.post("/dashboard/webhooks/", {"url": "http://127.0.0.1:9/a"})
    endpoint = WebhookEndpoint.objects.get(tenant=tenant)
    client.post(f"/dashboard/webhooks/endpoints/{endpoint.pk}/rotate/")
    client.post(f"/dashboard/webhooks/endpoints/{endpoint.pk}/toggle/")
    client.post("/dashboard/webhooks/secret/rotate/")
    client.post(f"/dashboard/webhooks/endpoints/{endpoint.pk}/delete/")
    client.post(reverse("dashboard:policy"), editor_post(client, threshold=0.42))
    client.post(  # the import's second step: confirmed after the preview of version 1
        reverse("dashboard:policy-import"),
        {"yaml_text": "threshold: 0.33\n", "version": 1, "confirm": 1},
    )
    client.post("/dashboard/knowledge/", {"name": "Handbook"})
    kb = KnowledgeBase.objects.get(tenant=tenant)
    upload = SimpleUploadedFile("tower.txt", TEXT.encode(), content_type="text/plain")
    client.post(f"/dashboard/knowledge/{kb.public_id}/", {"file": upload})
    document = Document.objects.get(knowledge_base=kb)
    client.post(f"/dashboard/knowledge/{kb.public_id}/documents/{document.public_id}/delete/")
    search = {"provider": "tavily", "price_per_query_usd": "0.008", "max_results": 5}
    client.post("/dashboard/knowledge/", {**search, "api_key": "tvly-secret"})
    client.post("/dashboard/members/", {"email": "new@example.com", "role": "viewer"})
    viewer = Membership.objects.get(user=viewer_a)
    client.post(f"/dashboard/members/{viewer.pk}/role/", {"role": "admin"})
    client.post(f"/dashboard/members/{viewer.pk}/remove/")

    # then each change is one event of tenant A, by owner-a, from the client's address
    assert _actions(tenant) == [
        "api_key.created",
        "api_key.revoked",
        "webhook.created",
        "webhook.secret_rotated",
        "webhook.changed",
        "webhook.secret_rotated",
        "webhook.deleted",
        "policy.saved",
        "policy.imported",
        "knowledge_base.created",
        "document.created",
        "document.deleted",
        "web_search.changed",
        "member.invited",
        "member.role_changed",
        "member.removed",
    ]
    events = AuditEvent.objects.filter(tenant=tenant)
    assert {(e.actor_user_id, e.actor_name, e.ip) for e in events} == {
        (owner_a.pk, "owner-a", "127.0.0.1")
    }
    assert not AuditEvent.objects.filter(tenant=tenant_b.tenant).exists()
    revoked = events.get(action="api_key.revoked")
    assert (revoked.target_type, revoked.target_id) == ("apikey", str(key.pk))
    assert events.get(action="member.role_changed").details == {
        "user": "viewer-a",
        "from": "viewer",
        "to": "admin",
    }
    assert "tvly-secret" not in str(list(events.values("details")))


def test_api_changes_are_recorded_with_the_keys_prefix(client_a, tenant_a, tenant_b):
    tenant = tenant_a.tenant
    prefix = ApiKey.objects.get(tenant=tenant).prefix

    hook = client_a.post("/v1/webhook-endpoints", {"url": "http://127.0.0.1:9/x"}, format="json")
    client_a.post(f"/v1/webhook-endpoints/{hook.json()['id']}/rotate-secret")
    client_a.delete(f"/v1/webhook-endpoints/{hook.json()['id']}")
    kb = client_a.post("/v1/knowledge-bases", {"name": "Docs"}, format="json").json()["id"]
    body = {"name": "a.txt", "content": TEXT}
    doc = client_a.post(f"/v1/knowledge-bases/{kb}/documents", body, format="json").json()["id"]
    client_a.put(f"/v1/knowledge-bases/{kb}/documents/{doc}", body, format="json")
    client_a.delete(f"/v1/knowledge-bases/{kb}/documents/{doc}")
    client_a.delete(f"/v1/knowledge-bases/{kb}")
    client_a.put(
        "/v1/web-search", {"provider": "serper", "api_key": "serper-secret"}, format="json"
    )
    client_a.delete("/v1/web-search")

    assert _actions(tenant) == [
        "webhook.created",
        "webhook.secret_rotated",
        "webhook.deleted",
        "knowledge_base.created",
        "document.created",
        "document.replaced",
        "document.deleted",
        "knowledge_base.deleted",
        "web_search.changed",
        "web_search.deleted",
    ]
    events = AuditEvent.objects.filter(tenant=tenant)
    assert {(e.actor_user_id, e.actor_key_prefix) for e in events} == {(None, prefix)}
    assert events.first().actor == f"API key tl_{prefix}_…"
    assert events.get(action="knowledge_base.created").target_id == kb
    assert not AuditEvent.objects.filter(tenant=tenant_b.tenant).exists()


def test_accepting_an_invitation_and_creating_a_tenant_are_recorded(
    client, owner_a, staff_user, tenant_a
):
    _, token = members.invite(tenant_a.tenant, "new@example.com", "admin", owner_a)
    password = "an-unusual-passphrase-42"
    client.post(
        f"/dashboard/invitations/{token}/", {"new_password1": password, "new_password2": password}
    )
    accepted = AuditEvent.objects.get(action="member.accepted")
    assert accepted.tenant == tenant_a.tenant
    assert accepted.actor_name == "new@example.com"
    assert accepted.details == {"email": "new@example.com", "role": "admin"}

    client.force_login(staff_user)
    data = {"name": "Acme", "slug": "acme", "owner_email": "boss@acme.test"}
    client.post("/dashboard/tenants/new/", data)
    created = AuditEvent.objects.filter(tenant__slug="acme")
    assert [e.action for e in created.order_by("id")] == ["tenant.created", "member.invited"]
    assert created.first().actor_user == staff_user


def test_the_page_shows_only_the_tenants_own_events(client, owner_a, owner_b, tenant_a, tenant_b):
    record(None, "api_key.created", tenant=tenant_a.tenant, details={"prefix": "aaaa1111"})
    record(None, "api_key.created", tenant=tenant_b.tenant, details={"prefix": "bbbb2222"})

    client.force_login(owner_b)
    page = client.get("/dashboard/audit/").content.decode()

    assert "bbbb2222" in page
    assert "aaaa1111" not in page


def test_viewers_do_not_see_the_audit_log(client, viewer_a, admin_a):
    client.force_login(viewer_a)
    assert client.get("/dashboard/audit/").status_code == 403
    client.force_login(admin_a)
    assert client.get("/dashboard/audit/").status_code == 200


def test_the_page_filters_by_action_and_date_and_paginates(client, owner_a, tenant_a):
    tenant = tenant_a.tenant
    old = record(None, "webhook.created", tenant=tenant, details={"url": "https://old.example"})
    AuditEvent.objects.filter(pk=old.pk).update(created_at=timezone.now() - dt.timedelta(days=10))
    for i in range(55):
        record(None, "api_key.created", tenant=tenant, details={"prefix": f"k{i:07d}"})
    client.force_login(owner_a)

    by_action = client.get("/dashboard/audit/", {"action": "webhook.created"}).content.decode()
    assert "https://old.example" in by_action
    assert "k0000001" not in by_action
    today = timezone.now().date().isoformat()
    by_date = client.get("/dashboard/audit/", {"start": today}).content.decode()
    assert "https://old.example" not in by_date
    first = client.get("/dashboard/audit/").content.decode()
    assert "Page 1 of 2" in first
    assert "k0000054" in first
    assert "https://old.example" not in first
    second = client.get("/dashboard/audit/", {"page": 2}).content.decode()
    assert "https://old.example" in second


def test_record_refuses_a_malformed_action_or_no_tenant(tenant_a):
    with pytest.raises(ValueError, match="noun.verb"):
        record(None, "Created Key", tenant=tenant_a.tenant)
    with pytest.raises(ValueError, match="no tenant"):
        record(None, "api_key.created")
