"""Issue 24, defect 7: a policy's default knowledge base must be the tenant's own and
exist; one deleted later is said plainly when verifying."""

from __future__ import annotations

import pytest

from knowledge.models import KnowledgeBase
from tenants.models import Policy
from tests.knowledge.test_fact_check import TOWER, _kb_with, _verify

pytestmark = pytest.mark.django_db


def _import(client, kb: str):
    text = f"fact_check:\n  knowledge_base: {kb}\n"
    return client.post("/dashboard/policy/import/", {"yaml_text": text})


def test_a_default_knowledge_base_of_another_tenant_is_refused(client, owner_a, tenant_b):
    theirs = KnowledgeBase.objects.create(tenant=tenant_b.tenant, name="B's")
    client.force_login(owner_a)
    refused = _import(client, theirs.public_id)
    assert refused.status_code == 400
    assert "is not one of your knowledge bases" in refused.content.decode()


def test_a_deleted_or_unknown_knowledge_base_is_refused_and_an_own_one_accepted(
    client, owner_a, tenant_a
):
    mine = KnowledgeBase.objects.create(tenant=tenant_a.tenant, name="Handbook")
    client.force_login(owner_a)
    assert _import(client, mine.public_id).status_code == 200  # the preview
    assert _import(client, "Handbook").status_code == 200  # by name too
    gone = KnowledgeBase.objects.create(tenant=tenant_a.tenant, name="Old")
    gone_id = gone.public_id
    gone.delete()
    refused = _import(client, gone_id)
    assert refused.status_code == 400
    assert "it may have been deleted" in refused.content.decode()


def test_a_default_knowledge_base_deleted_later_is_said_plainly(client, owner_a, tenant_a):
    from tests.conftest import client_for

    api = client_for(tenant_a.token)
    kb = _kb_with(api, ("tower.txt", TOWER))
    Policy.objects.create(tenant=tenant_a.tenant, document={"fact_check": {"knowledge_base": kb}})
    assert api.delete(f"/v1/knowledge-bases/{kb}").status_code == 204
    result = _verify(api, response="The Eiffel Tower was built in 1950.")
    assert result["verification_status"] == "unverifiable"
    assert "does not exist any more" in result["reason"]
    assert "does not exist any more" in result["warning"]
    assert "no grounding context" not in result["reason"]
    client.force_login(owner_a)
    page = client.get(f"/dashboard/verifications/{result['id']}/").content.decode()
    assert "does not exist any more" in page


def test_a_default_knowledge_base_named_by_its_name_grounds_answers(tenant_a):
    from tests.conftest import client_for

    api = client_for(tenant_a.token)
    _kb_with(api, ("tower.txt", TOWER))  # named "Facts"
    Policy.objects.create(
        tenant=tenant_a.tenant, document={"fact_check": {"knowledge_base": "Facts"}}
    )
    result = _verify(api, response="The Eiffel Tower was built in 1950.")
    assert result["grounding"]["sources"] == ["knowledge_base"]
    assert result["grounding"]["claims_with_evidence"] == 1
