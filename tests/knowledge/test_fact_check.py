"""Verifying an answer without a context: against a knowledge base, or the web."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from knowledge.models import KnowledgeBase, WebSearchSettings
from tenants.models import Plan, Policy
from verification.actions.claim import claim
from verification.models import UsageRecord, VerificationJob
from verification.stages.detect import process_jobs

from .conftest import index_all

pytestmark = pytest.mark.django_db

TOWER = (
    "The Eiffel Tower is a wrought-iron lattice tower in Paris. It was built from 1887 to 1889 "
    "as the entrance arch for the 1889 World's Fair.\n\nThe tower is 330 metres tall, about the "
    "height of an 81-storey building."
)
BRIDGE = "The Golden Gate Bridge in San Francisco opened in 1937. Its main span is 1280 metres."
WRONG = "The Eiffel Tower was built in 1950. It is 330 metres tall. Paris is lovely in spring."


def _kb_with(client, *docs: tuple[str, str]) -> str:
    kb = client.post("/v1/knowledge-bases", {"name": "Facts"}, format="json").json()["id"]
    for name, text in docs:
        file = SimpleUploadedFile(name, text.encode(), content_type="text/plain")
        client.post(f"/v1/knowledge-bases/{kb}/documents", {"file": file}, format="multipart")
    index_all()
    return kb


def _verify(client, **body) -> dict:
    response = client.post("/v1/verifications", body, format="json")
    assert response.status_code == 202, response.json()
    job_id = response.json()["id"]
    process_jobs([claim(VerificationJob.parse_public_id(job_id))])
    return client.get(f"/v1/verifications/{job_id}").json()


def test_an_answer_is_checked_against_the_knowledge_base_with_spans_into_the_document(client_a):
    kb = _kb_with(client_a, ("tower.txt", TOWER), ("bridge.txt", BRIDGE))
    result = _verify(client_a, knowledge_base=kb, response=WRONG, query="Tell me about it")
    assert result["detected"] is True, result
    [span] = [s for s in result["spans"] if s["text"] == "1950"]
    assert span["label"] == "contradiction"
    where = span["evidence_location"]["document"]
    assert where["document_name"] == "tower.txt"
    assert where["knowledge_base"] == kb
    assert "1887" in TOWER[where["start"] : where["end"]]  # offsets into the document's text
    grounding = result["grounding"]
    # every sentence is a claim, the one without a figure too (issue 20)
    assert grounding["claims_checked"] == 3
    assert [c["text"].strip() for c in grounding["claims"]][-1] == "Paris is lovely in spring."
    assert grounding["summary"].endswith("of 3 claims had evidence")
    assert all(p["document_name"] == "tower.txt" for p in grounding["passages"])


def test_claims_without_evidence_are_reported_never_passed_silently(client_a):
    kb = _kb_with(client_a, ("bridge.txt", BRIDGE))
    answer = "The Golden Gate Bridge opened in 1937. Mount Everest is 8849 metres high."
    result = _verify(client_a, knowledge_base=kb, response=answer)
    assert result["grounding"]["summary"] == "1 of 2 claims had evidence"
    assert "Only 1 of 2 claims had evidence" in result["warning"]
    empty = _verify(client_a, knowledge_base=kb, response="Mount Everest is 8849 metres high.")
    assert empty["verification_status"] == "unverifiable"
    assert empty["reason"] == "no evidence found: 0 of 1 claims had evidence"


def test_a_policy_names_the_default_knowledge_base(client_a, tenant_a):
    kb = _kb_with(client_a, ("tower.txt", TOWER))
    Policy.objects.create(tenant=tenant_a[0], document={"fact_check": {"knowledge_base": kb}})
    result = _verify(client_a, response="The Eiffel Tower was built in 1950.")
    assert result["detected"] is True
    assert result["grounding"]["sources"] == ["knowledge_base"]


def test_one_tenants_documents_never_ground_another_tenants_answer(client_a, client_b):
    kb_a = _kb_with(client_a, ("tower.txt", TOWER))
    kb_b = client_b.post("/v1/knowledge-bases", {"name": "Other"}, format="json").json()["id"]
    refused = client_b.post(
        "/v1/verifications", {"knowledge_base": kb_a, "response": WRONG}, format="json"
    )
    assert refused.status_code == 400
    assert "knowledge_base" in str(refused.json())
    result = _verify(client_b, knowledge_base=kb_b, response="The Eiffel Tower was built in 1950.")
    assert result["verification_status"] == "unverifiable"  # B's empty base, not A's document
    assert result["grounding"]["passages"] == []
    both = client_a.post(
        "/v1/verifications",
        {"knowledge_base": kb_a, "context": ["x"], "response": "y"},
        format="json",
    )
    assert both.status_code == 400


def test_web_search_grounds_uncovered_claims_and_its_cost_is_the_tenants_own(
    client_a, tenant_a, fake_search
):
    tenant = tenant_a[0]
    tenant.plan = Plan.objects.create(name="web", search_price_markup=Decimal("2"))
    tenant.save()
    settings = WebSearchSettings(
        tenant=tenant, provider="tavily", api_base=fake_search.url, price_per_query_usd="0.008"
    )
    settings.api_key = "tvly-secret"
    settings.save()
    assert "tvly-secret" not in settings.api_key_encrypted  # encrypted at rest
    Policy.objects.create(
        tenant=tenant, document={"fact_check": {"search_sources": ["web"], "max_queries": 1}}
    )
    fake_search.results = [
        {"title": "Eiffel Tower", "url": "https://example.org/eiffel", "content": TOWER}
    ]
    result = _verify(client_a, response=WRONG)
    assert fake_search.requests[0]["body"]["api_key"] == "tvly-secret"
    assert len(fake_search.requests) == 1  # max_queries caps the searches
    [span] = [s for s in result["spans"] if s["text"] == "1950"]
    assert span["evidence_location"]["url"] == "https://example.org/eiffel"
    # every sentence is a claim; max_queries left two unsearched, reported as such
    assert result["grounding"]["summary"] == "1 of 3 claims had evidence"
    assert [c.get("skipped") for c in result["grounding"]["claims"]].count(
        "max_queries reached"
    ) == 2
    usage = UsageRecord.objects.get()
    assert usage.search_queries == 1
    assert usage.search_cost_usd == Decimal("0.008")
    # the search ran on the tenant's own key: its cost is reported, never billed
    assert usage.tenant_provider_cost_usd == Decimal("0.008")
    assert (usage.provider_cost_usd, usage.price_usd) == (0, 0)


def test_a_failing_search_provider_is_reported_as_no_evidence(client_a, tenant_a, fake_search):
    tenant = tenant_a[0]
    WebSearchSettings.objects.create(tenant=tenant, provider="tavily", api_base=fake_search.url)
    Policy.objects.create(tenant=tenant, document={"fact_check": {"search_sources": ["web"]}})
    fake_search.status = 500
    result = _verify(client_a, response="The Eiffel Tower was built in 1950.")
    assert result["verification_status"] == "unverifiable"
    assert "tavily answered 500" in result["grounding"]["errors"][0]


def test_a_failed_web_search_costs_nothing(client_a, tenant_a, fake_search):
    # given a search provider with a price per query that fails every query
    tenant = tenant_a[0]
    tenant.plan = Plan.objects.create(name="web", search_price_markup=Decimal("2"))
    tenant.save()
    WebSearchSettings.objects.create(
        tenant=tenant, provider="tavily", api_base=fake_search.url, price_per_query_usd="0.008"
    )
    Policy.objects.create(tenant=tenant, document={"fact_check": {"search_sources": ["web"]}})
    fake_search.status = 500
    # when an answer is verified against the web
    result = _verify(client_a, response="The Eiffel Tower was built in 1950.")
    # then the failed queries are counted as failed, and cost and bill nothing
    assert result["grounding"]["web"]["failed"] >= 1
    assert result["grounding"]["web"]["queries"] == 0
    usage = UsageRecord.objects.get()
    assert (usage.search_queries, usage.search_cost_usd) == (0, 0)
    assert (usage.tenant_provider_cost_usd, usage.price_usd) == (0, 0)


def test_the_web_search_provider_is_configured_through_the_api_with_a_hidden_key(
    client_a, client_b, tenant_a
):
    assert client_a.get("/v1/web-search").status_code == 404
    no_key = client_a.put("/v1/web-search", {"provider": "tavily"}, format="json")
    assert no_key.status_code == 400
    internal = client_a.put(
        "/v1/web-search",
        {"provider": "serper", "api_key": "k", "api_base": "http://10.0.0.5/"},
        format="json",
    )
    assert internal.status_code == 400
    saved = client_a.put(
        "/v1/web-search",
        {"provider": "serper", "api_key": "serper-secret", "price_per_query_usd": "0.001"},
        format="json",
    )
    assert saved.status_code == 200
    assert "serper-secret" not in saved.content.decode()
    assert saved.json()["has_key"] is True
    # a later change keeps the key unless a new one is sent
    client_a.put("/v1/web-search", {"provider": "serper", "max_results": 3}, format="json")
    stored = WebSearchSettings.objects.get(tenant=tenant_a.tenant)
    assert stored.api_key == "serper-secret"
    assert stored.max_results == 3
    assert "serper-secret" not in stored.api_key_encrypted
    assert client_b.get("/v1/web-search").status_code == 404  # B has none, and sees not A's
    assert client_a.delete("/v1/web-search").status_code == 204
    assert not WebSearchSettings.objects.exists()


def test_one_encoder_pass_and_one_configuration_read_per_answer(client_a, monkeypatch):
    from knowledge import retrieval
    from verification.stages.ground import gather

    kb_id = _kb_with(client_a, ("tower.txt", TOWER), ("bridge.txt", BRIDGE))
    kb = KnowledgeBase.objects.get()
    encoded, configs = [], []
    real_encode, real_configs = retrieval.encode, retrieval.configs_of
    monkeypatch.setattr(
        retrieval, "encode", lambda texts: encoded.append(texts) or real_encode(texts)
    )
    monkeypatch.setattr(
        retrieval, "configs_of", lambda kbs: configs.append(kbs) or real_configs(kbs)
    )
    answer = "The Eiffel Tower was built in 1950. The Golden Gate Bridge opened in 1937."
    g = gather(kb.tenant_id, answer, 5, kb)
    assert [len(t) for t in encoded] == [2]  # both claims in one batch
    assert len(configs) == 1
    assert g.summary() == "2 of 2 claims had evidence"
    assert kb_id == kb.public_id


def test_listing_knowledge_bases_counts_documents_in_one_query(
    client_a, django_assert_max_num_queries
):
    for name in ("A", "B", "C"):
        client_a.post("/v1/knowledge-bases", {"name": name}, format="json")
    # key, page count, page, and the request log's insert in its savepoint (3 statements):
    # not one count per base
    with django_assert_max_num_queries(6):
        listed = client_a.get("/v1/knowledge-bases").json()["results"]
    assert [b["documents"] for b in listed] == [0, 0, 0]
