"""Tenant isolation: every API (and dashboard) URL, walked as tenant B against tenant A's objects.

A new URL with a parameter this walk does not know fails the test until someone
says which of tenant A's objects it should be pointed at.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from dashboard.policy.actions import save_policy
from engine.policy import PolicyDocument
from knowledge.models import Document, DocumentVersion, KnowledgeBase
from quality.models import Dataset, Evaluation
from tenants.invitations import Invitation
from tenants.llm_providers import LLMProvider
from tenants.models import ApiKey, Membership, Policy, WebhookEndpoint
from tenants.request_log import RequestLogEntry
from tests.conftest import client_for
from verification.models import VerificationJob, WebhookDelivery

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "put", "patch", "delete")
WALKED_PREFIXES = ("v1/", "dashboard/")


def _walk(patterns, prefix: str = ""):
    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from _walk(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry


def _routes() -> list[tuple[str, URLPattern]]:
    return [(p, e) for p, e in _walk(get_resolver().url_patterns) if p.startswith(WALKED_PREFIXES)]


def _methods(entry: URLPattern) -> list[str]:
    view = getattr(entry.callback, "view_class", None)
    if view is None:  # a function view: try everything
        return list(METHODS)
    allowed = getattr(view, "http_method_names", METHODS)
    return [m for m in METHODS if m in allowed and hasattr(view, m)]


@pytest.fixture
def a_objects(tenant_a, client_a, eiffel) -> dict[str, str]:
    """One of each of tenant A's objects, by the URL parameter that names it."""
    job_id = client_a.post("/v1/verifications", eiffel.request(), format="json").json()["id"]
    endpoint = WebhookEndpoint(tenant=tenant_a.tenant, url="http://127.0.0.1:9/hook")
    endpoint.set_new_secret()
    endpoint.save()
    delivery = WebhookDelivery.objects.create(
        tenant=tenant_a.tenant,
        job=VerificationJob.objects.get(pk=VerificationJob.parse_public_id(job_id)),
        endpoint=endpoint,
        url=endpoint.url,
        event_id="evt_a",
        event_type="verification.completed",
        payload={"id": "evt_a"},
    )
    kb = KnowledgeBase.objects.create(tenant=tenant_a.tenant, name="A's handbook")
    doc = Document.objects.create(
        tenant=tenant_a.tenant, knowledge_base=kb, name="a.txt", content_type="text/plain",
        size_bytes=1, sha256="", raw=b"x",
    )  # fmt: skip
    DocumentVersion.objects.create(
        document=doc, tenant=tenant_a.tenant, number=1, name="a.txt", content_type="text/plain",
        size_bytes=1, sha256="", raw=b"x",
    )  # fmt: skip
    owner = get_user_model().objects.create_user("alice", "alice@example.com", "pw-alice-123!")
    membership = Membership.objects.create(user=owner, tenant=tenant_a.tenant, role="admin")
    invitation, token = Invitation.issue(tenant_a.tenant, "carol@example.com", "viewer", owner)
    provider = LLMProvider(tenant=tenant_a.tenant, name="A's provider", model_prefix="openai/")
    provider.model_names = ["a-model"]
    provider.api_key = "sk-a"
    provider.save()
    change = save_policy(tenant_a.tenant, owner, PolicyDocument(threshold=0.42), "form")
    dataset = Dataset.objects.create(tenant=tenant_a.tenant, name="a-labels", source="upload")
    evaluation = Evaluation.objects.create(tenant=tenant_a.tenant, dataset=dataset)
    return {
        "dataset_id": dataset.public_id,
        "evaluation_id": str(evaluation.pk),
        "version": str(change.version),
        "membership": str(membership.pk),
        "invitation": str(invitation.pk),
        "token": token,  # the link itself: B's signed-in member (another address) is refused
        "provider": str(provider.pk),
        "kb_id": kb.public_id,
        "doc_id": doc.public_id,
        "number": "1",  # a document version (knowledge.DocumentVersion) of A's document
        "public_id": job_id,
        "pk": str(endpoint.pk),
        "id": str(endpoint.pk),
        "secret": endpoint.secret_encrypted,
        "api_key": str(ApiKey.objects.get(tenant=tenant_a.tenant).pk),
        "delivery": str(delivery.pk),
    }


# Routes (by URL name) whose <pk> is another kind of A's object than a webhook endpoint,
# so B is pointed at a real object of A's, not at an id that is missing anyway.
PK_OF = {
    "key-revoke": "api_key", "delivery": "delivery", "delivery-replay": "delivery",
    "member-role": "membership", "member-remove": "membership",
    "invitation-revoke": "invitation", "llm-provider": "provider", "llm-provider-test": "provider",
    "llm-provider-edit": "provider", "llm-provider-delete": "provider",
}  # fmt: skip


# Route parameters that name no object of a tenant: tenant B gets its own view of them
# (a password-reset link names an account, and only its token opens it).
NOT_OBJECTS = {"month": timezone.now().strftime("%Y-%m"), "uidb64": "MQ"}


def _fill(template: str, objects: dict[str, str]) -> str:
    import re

    def sub(match: re.Match) -> str:
        name = match.group("name")
        if name in NOT_OBJECTS:
            return NOT_OBJECTS[name]
        assert name in objects, f"{template}: tell the isolation walk which object <{name}> is"
        return objects[name]

    if "(?P<" in template:  # a re_path: fill its named groups, drop anchors and escapes
        template = re.sub(r"\(\?P<(?P<name>\w+)>[^)]*\)", sub, template)
        template = template.replace("^", "").replace("$", "").replace("\\", "")
    path = re.sub(r"<(?:\w+:)?(?P<name>\w+)>", sub, template)
    assert "^" not in path, f"regex route {template} needs explicit coverage"
    assert "(?P" not in path, f"regex route {template} needs explicit coverage"
    return "/" + path


def test_the_walk_covers_the_whole_api():
    paths = {p for p, _ in _routes()}
    assert "v1/verifications/<str:public_id>" in paths
    assert "v1/webhook-endpoints/<int:pk>/rotate-secret" in paths
    assert len([p for p in paths if p.startswith("v1/")]) >= 9


def test_tenant_b_cannot_reach_tenant_a_objects_on_any_url(tenant_a, tenant_b, a_objects):
    # given tenant B's API key and a dashboard session of one of B's members
    api_b = client_for(tenant_b.token)
    user = get_user_model().objects.create_user("bob", "bob@example.com", "pw-bob-12345!")
    Membership.objects.create(user=user, tenant=tenant_b.tenant, role=Membership.OWNER)
    dashboard_b = Client()
    dashboard_b.force_login(user)
    checked = 0
    for template, entry in _routes():
        client = api_b if template.startswith("v1/") else dashboard_b
        has_object = any(f"{n}>" in template for n in a_objects) or (
            "<" in template and not any(f"{n}>" in template for n in NOT_OBJECTS)
        )
        for method in _methods(entry):
            if client is dashboard_b:
                dashboard_b.force_login(user)  # the walk also visits sign-out
            objects = a_objects
            if entry.name in PK_OF:
                objects = {**a_objects, "pk": a_objects[PK_OF[entry.name]]}
            path = _fill(template, objects)
            response = (
                getattr(client, method)(path, {}, format="json")
                if template.startswith("v1/")
                else getattr(client, method)(path)
            )
            body = response.content.decode(errors="replace")
            # then nothing of A's leaks, whatever the route (a 404 may echo the path)
            assert "built in 1950" not in body, (method, path)
            assert "127.0.0.1:9/hook" not in body, (method, path)
            # the request log lists B's own requests: the paths B typed, A's ids among them
            if not has_object and template != "dashboard/requests/":
                assert a_objects["public_id"] not in body, (method, path)
            if has_object:
                # 405: a POST-only dashboard action asked with GET reveals nothing either
                assert response.status_code in (403, 404, 405), (method, path, response.status_code)
                checked += 1
    assert checked >= 5  # GET job, POST feedback, GET+DELETE endpoint, POST rotate
    # B's request log holds B's probes of A's ids, every one refused; none of A's requests
    probes = RequestLogEntry.objects.filter(path__contains=a_objects["public_id"])
    assert probes.exists()
    assert set(probes.values_list("tenant_id", flat=True)) == {tenant_b.tenant.pk}
    assert set(probes.values_list("status", flat=True)) <= {403, 404, 405}
    # and A's objects are untouched
    assert VerificationJob.objects.filter(tenant=tenant_a.tenant).count() == 1
    assert (
        WebhookEndpoint.objects.get(tenant=tenant_a.tenant).secret_encrypted == a_objects["secret"]
    )
    assert not VerificationJob.objects.get().feedback.exists()
    assert ApiKey.objects.get(pk=a_objects["api_key"]).revoked_at is None
    assert WebhookEndpoint.objects.get(tenant=tenant_a.tenant).is_active
    assert WebhookDelivery.objects.filter(tenant=tenant_a.tenant).count() == 1  # no replay
    assert Document.objects.filter(tenant=tenant_a.tenant, version=1).count() == 1  # not replaced
    assert KnowledgeBase.objects.filter(tenant=tenant_a.tenant).count() == 1
    assert Membership.objects.get(tenant=tenant_a.tenant, user__username="alice").role == "admin"
    assert LLMProvider.objects.get(tenant=tenant_a.tenant).api_key == "sk-a"
    assert Invitation.objects.get(tenant=tenant_a.tenant).accepted_at is None
    assert Policy.objects.get(tenant=tenant_a.tenant).document["threshold"] == 0.42
