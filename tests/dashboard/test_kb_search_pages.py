"""Issue 24 on the dashboard: the knowledge-base page's search tool, a document's
language warning and metadata, and a failed web search said on the verification page."""

from __future__ import annotations

import pytest

from knowledge.models import Document, KnowledgeBase, WebSearchSettings
from tenants.models import Policy
from tests.conftest import client_for
from tests.knowledge.conftest import fake_search  # noqa: F401 - the fixture
from tests.knowledge.test_fact_check import BRIDGE, TOWER, _kb_with, _verify

pytestmark = pytest.mark.django_db


def test_the_search_tool_shows_the_passages_a_claim_gets(client, viewer_a, tenant_a):
    kb = _kb_with(client_for(tenant_a.token), ("tower.txt", TOWER), ("bridge.txt", BRIDGE))
    client.force_login(viewer_a)  # reading is enough
    page = client.get(f"/dashboard/knowledge/{kb}/", {"q": "The Eiffel Tower is 330 metres tall."})
    assert page.status_code == 200
    body = page.content.decode()
    results = body[body.index('data-test="search-results"') :]
    assert results.index("tower.txt") < results.index("</table>")
    assert "evidence" in results
    bad = client.get(f"/dashboard/knowledge/{kb}/", {"q": "x", "top_k": "500"})
    assert bad.status_code == 200
    assert 'data-test="search-results"' not in bad.content.decode()


def test_the_search_tool_never_shows_another_tenants_base(client, owner_b, tenant_a):
    kb = _kb_with(client_for(tenant_a.token), ("tower.txt", TOWER))
    client.force_login(owner_b)
    assert client.get(f"/dashboard/knowledge/{kb}/", {"q": "Eiffel"}).status_code == 404


def test_a_document_shows_its_language_warning_and_metadata(client, owner_a, tenant_a):
    kb = KnowledgeBase.objects.create(tenant=tenant_a.tenant, name="Docs")
    Document.objects.create(
        tenant=tenant_a.tenant, knowledge_base=kb, name="ja.txt", content_type="text/plain",
        size_bytes=1, sha256="", raw=b"x", warnings=["1 of 1 passages are in a language"],
        metadata={"team": "hr"},
    )  # fmt: skip
    client.force_login(owner_a)
    body = client.get(f"/dashboard/knowledge/{kb.public_id}/").content.decode()
    assert "1 of 1 passages are in a language" in body
    assert "team=hr" in body


def test_a_failed_web_search_is_said_on_the_verification_page(
    client,
    owner_a,
    tenant_a,
    fake_search,  # noqa: F811
):
    WebSearchSettings.objects.create(
        tenant=tenant_a.tenant, provider="tavily", api_base=fake_search.url
    )
    Policy.objects.create(
        tenant=tenant_a.tenant, document={"fact_check": {"search_sources": ["web"]}}
    )
    fake_search.status = 500
    result = _verify(client_for(tenant_a.token), response="The Eiffel Tower was built in 1950.")
    client.force_login(owner_a)
    body = client.get(f"/dashboard/verifications/{result['id']}/").content.decode()
    assert 'data-test="web-search-failed"' in body
    assert "Web search failed for 1 of 1 queries" in body
    assert "no evidence was found" not in body
