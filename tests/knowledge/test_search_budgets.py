"""Issue 24, defects 4 and 5: each source has its own query budget, a claim no source
searched is reported as skipped, and a failed web search is said (warning, reason,
usage), never passed off as "no evidence found"."""

from __future__ import annotations

from decimal import Decimal

import pytest

from knowledge.models import WebSearchSettings
from tenants.models import Policy

from .test_fact_check import BRIDGE, TOWER, _kb_with, _verify

pytestmark = pytest.mark.django_db

SIX_CLAIMS = (
    "Mount Everest is 8849 metres high. The Nile is 6650 kilometres long. "
    "Lake Baikal is 1642 metres deep. Mount Kilimanjaro is 5895 metres high. "
    "The Amazon is 6400 kilometres long. Angel Falls is 979 metres high."
)


def _web(tenant, fake_search, price: str = "0.008") -> None:
    WebSearchSettings.objects.create(
        tenant=tenant, provider="tavily", api_base=fake_search.url, price_per_query_usd=price
    )


def test_an_answer_with_six_claims_still_gets_web_queries(client_a, tenant_a, fake_search):
    # given a knowledge base that covers none of the claims, and a web provider
    kb = _kb_with(client_a, ("bridge.txt", BRIDGE))
    _web(tenant_a.tenant, fake_search)
    Policy.objects.create(
        tenant=tenant_a.tenant,
        document={
            "fact_check": {"search_sources": ["knowledge_base", "web"], "knowledge_base": kb}
        },
    )
    fake_search.results = [{"title": "t", "url": "https://example.org/x", "content": "x"}]
    # when an answer with six claims is verified (max_queries 5, the default)
    result = _verify(client_a, response=SIX_CLAIMS)
    claims = result["grounding"]["claims"]
    # then the web had its own five searches, and the knowledge base its five
    assert len(fake_search.requests) == 5
    assert result["grounding"]["web"]["queries"] == 5
    assert len(claims) == 6
    assert sum("knowledge_base" in c["searched"] for c in claims) == 5
    assert sum("web" in c["searched"] for c in claims) == 5
    # and the one claim no source searched says so
    [skipped] = [c for c in claims if not c["searched"]]
    assert skipped["skipped"] == "max_queries reached"


def test_a_failed_web_search_is_said_in_the_warning_not_as_no_evidence(
    client_a, tenant_a, fake_search
):
    kb = _kb_with(client_a, ("tower.txt", TOWER))
    _web(tenant_a.tenant, fake_search)
    Policy.objects.create(
        tenant=tenant_a.tenant,
        document={
            "fact_check": {"search_sources": ["knowledge_base", "web"], "knowledge_base": kb}
        },
    )
    fake_search.status = 500
    answer = "The Eiffel Tower was built from 1887 to 1889. Mount Everest is 8849 metres high."
    result = _verify(client_a, response=answer)
    assert result["grounding"]["web"]["failed"] == 1
    assert "Web search failed for 1 of 1 queries" in result["warning"]
    assert "tavily answered 500" in result["warning"]
    assert result["grounding"]["web"]["failure"].startswith("Web search failed")


def test_an_answer_left_without_evidence_by_a_failed_search_says_why(
    client_a, tenant_a, fake_search
):
    _web(tenant_a.tenant, fake_search)
    Policy.objects.create(
        tenant=tenant_a.tenant, document={"fact_check": {"search_sources": ["web"]}}
    )
    fake_search.status = 503
    result = _verify(client_a, response="The Eiffel Tower was built in 1950.")
    assert result["verification_status"] == "unverifiable"
    assert result["reason"].startswith("Web search failed for 1 of 1 queries")
    assert "Web search failed" in result["warning"]


def test_usage_shows_web_queries_and_their_cost(client_a, tenant_a, fake_search):
    _web(tenant_a.tenant, fake_search, price="0.01")
    Policy.objects.create(
        tenant=tenant_a.tenant, document={"fact_check": {"search_sources": ["web"]}}
    )
    fake_search.results = [{"title": "t", "url": "https://example.org/x", "content": TOWER}]
    _verify(client_a, response="The Eiffel Tower was built in 1950. It is 330 metres tall.")
    usage = client_a.get("/v1/usage").json()
    assert usage["web_search_queries"] == 2
    assert usage["web_search_cost_usd"] == pytest.approx(0.02)
    [line] = usage["by_mode"].values()
    assert line["web_search_queries"] == 2
    assert Decimal(str(line["web_search_cost_usd"])) == Decimal("0.02")
