"""Retrieval: document frequencies kept by the database, rarest words first."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from knowledge import retrieval
from knowledge.models import Document, KnowledgeBase, Passage, TermStat

from .conftest import index_all

pytestmark = pytest.mark.django_db

COMMON = "The committee met in the city and the committee discussed the budget of the city."


def _upload(client, kb: str, name: str, text: str, method: str = "post", doc: str = "") -> dict:
    file = SimpleUploadedFile(name, text.encode(), content_type="text/plain")
    url = f"/v1/knowledge-bases/{kb}/documents" + (f"/{doc}" if doc else "")
    response = getattr(client, method)(url, {"file": file}, format="multipart")
    assert response.status_code in (200, 201, 202), response.json()
    index_all()
    return response.json()


def _df(kb: str, lexeme: str) -> int:
    rows = TermStat.objects.filter(knowledge_base_id=kb, lexeme=lexeme)
    return sum(row.ndoc for row in rows)


def _expected_df(kb: str, lexeme: str) -> int:
    """The document frequency recomputed from the passages themselves."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM knowledge_passage WHERE knowledge_base_id = %s "
            "AND %s = ANY(tsvector_to_array(tsv))",
            [kb, lexeme],
        )
        return cur.fetchone()[0]


def test_document_frequencies_follow_indexing_replacing_and_deleting(client_a):
    kb = client_a.post("/v1/knowledge-bases", {"name": "Stats"}, format="json").json()["id"]
    kb_id = KnowledgeBase.objects.get(name="Stats").pk
    first = _upload(client_a, kb, "a.txt", "Zanzibar exports cloves. " + COMMON)
    _upload(client_a, kb, "b.txt", "Zanzibar is an archipelago. " + COMMON)
    assert _df(kb_id, "zanzibar") == _expected_df(kb_id, "zanzibar") == 2
    assert _df(kb_id, "clove") == 1
    assert _df(kb_id, "") == Passage.objects.filter(knowledge_base_id=kb_id).count() == 2

    # Re-indexing a replaced document moves its counts to the new words.
    _upload(
        client_a,
        kb,
        "a.txt",
        "Madagascar exports vanilla. " + COMMON,
        method="put",
        doc=first["id"],
    )
    assert _df(kb_id, "clove") == 0
    assert _df(kb_id, "vanilla") == 1
    assert _df(kb_id, "zanzibar") == _expected_df(kb_id, "zanzibar") == 1

    # Deleting a document takes its passages out of the counts in the same transaction.
    assert client_a.delete(f"/v1/knowledge-bases/{kb}/documents/{first['id']}").status_code == 204
    assert _df(kb_id, "vanilla") == 0
    assert _df(kb_id, "") == 1

    # Deleting the knowledge base (cascading to passages and statistics) leaves nothing.
    assert client_a.delete(f"/v1/knowledge-bases/{kb}").status_code == 204
    assert not TermStat.objects.filter(knowledge_base_id=kb_id).exists()


def test_the_rarest_words_find_the_passage_among_passages_of_common_words(client_a, tenant_a):
    kb = client_a.post("/v1/knowledge-bases", {"name": "Many"}, format="json").json()["id"]
    kb_id = KnowledgeBase.objects.get(tenant=tenant_a.tenant).pk
    noise = "\n\n".join(f"{COMMON} Item {i} was approved." for i in range(40))
    _upload(client_a, kb, "noise.txt", noise)
    _upload(client_a, kb, "gold.txt", "The committee of Vanuatu approved the coconut budget.")
    gold = Passage.objects.get(document__name="gold.txt").pk

    df, total = retrieval._term_stats(
        tenant_a.tenant.pk, [kb_id], "english", ["committee", "Vanuatu", "coconut", "city"]
    )
    assert total == Passage.objects.filter(knowledge_base_id=kb_id).count()
    assert df["vanuatu"] == 1
    assert df["coconut"] == 1
    assert df["committe"] > 1
    rare, _ = retrieval._anchors(df)[0]
    assert "'vanuatu'" in rare
    assert "'coconut'" in rare

    claim = "The city committee approved a coconut budget for Vanuatu."
    found = retrieval.candidates(tenant_a.tenant.pk, [kb_id], claim, limit=3)
    assert found[0] == gold
    hits = retrieval.search(tenant_a.tenant.pk, [kb_id], claim, k=1)
    assert hits[0].passage_id == gold


def test_rare_words_anchor_the_search_and_two_of_the_next_ones_together_too(monkeypatch):
    monkeypatch.setattr(retrieval, "ANCHOR_POSTINGS", 3000)
    monkeypatch.setattr(retrieval, "PAIR_TERMS", 3)
    df = {"vanuatu": 10, "coconut": 2000, "committe": 9000, "citi": 8000, "budget": 7000, "a": 9}
    queries = [q for q, _ in retrieval._anchors(df)]
    assert queries[0] == "'a' | 'vanuatu' | 'coconut'"
    assert queries[1] == ("('budget' & 'citi') | ('budget' & 'committe') | ('citi' & 'committe')")
    # even the rarest word too common: only passages with two of the rarest words
    common = {"committe": 9000, "citi": 8000, "budget": 7000}
    assert [q for q, _ in retrieval._anchors(common)] == [
        "('budget' & 'citi') | ('budget' & 'committe') | ('citi' & 'committe')"
    ]
    assert retrieval._anchors({"budget": 7000}) == []


def test_lexemes_with_quotes_and_backslashes_are_quoted_for_the_tsquery(db):
    query = retrieval._tsquery(["o'neil", "a\\b", "km/h"], "|")
    with connection.cursor() as cur:
        cur.execute("SELECT %s::tsquery", [query])
        assert cur.fetchone()[0] == "'o''neil' | 'a\\\\b' | 'km/h'"


def test_another_tenants_statistics_are_never_read(client_a, client_b, tenant_a, tenant_b):
    kb_a = client_a.post("/v1/knowledge-bases", {"name": "A"}, format="json").json()["id"]
    _upload(client_a, kb_a, "a.txt", "Vanuatu grows coconuts.")
    kb_id = KnowledgeBase.objects.get(tenant=tenant_a.tenant).pk
    df, total = retrieval._term_stats(tenant_b.tenant.pk, [kb_id], "english", ["Vanuatu"])
    assert (df, total) == ({}, 0)
    assert retrieval.candidates(tenant_b.tenant.pk, [kb_id], "Vanuatu coconuts") == []
    assert Document.objects.filter(tenant=tenant_a.tenant).count() == 1
