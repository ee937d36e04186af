"""Issue 24: the search endpoint, a document's text and passages, per-request search
controls within the policy's limits, and document metadata with filters."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tenants.models import Policy

from .conftest import index_all
from .test_fact_check import BRIDGE, TOWER, _verify

pytestmark = pytest.mark.django_db

HR = "Employees get 25 days of paid leave per year. Leave requests go to the HR portal."
LEGAL = "Contractors get 10 days of paid leave per year. Contract changes need legal review."


def _base(client, *docs: tuple[str, str, dict | None]) -> tuple[str, dict[str, str]]:
    kb = client.post("/v1/knowledge-bases", {"name": "Docs"}, format="json").json()["id"]
    ids = {}
    for name, text, metadata in docs:
        body = {"name": name, "content": text}
        if metadata is not None:
            body["metadata"] = metadata
        created = client.post(f"/v1/knowledge-bases/{kb}/documents", body, format="json")
        assert created.status_code == 202, created.json()
        ids[name] = created.json()["id"]
    index_all()
    return kb, ids


def _search(client, kb: str, **body):
    return client.post(f"/v1/knowledge-bases/{kb}/search", body, format="json")


def test_search_gives_the_passages_and_scores_a_claim_would_get(client_a):
    kb, ids = _base(client_a, ("tower.txt", TOWER, None), ("bridge.txt", BRIDGE, None))
    found = _search(client_a, kb, query="The Eiffel Tower was built in 1950.", top_k=5)
    assert found.status_code == 200, found.json()
    body = found.json()
    first = body["passages"][0]
    assert (first["rank"], first["document"], first["document_name"]) == (
        1,
        ids["tower.txt"],
        "tower.txt",
    )
    assert TOWER[first["start"] : first["end"]] == first["text"]
    assert first["evidence"] is (first["similarity"] >= body["evidence_threshold"])
    assert first["evidence"] is True
    strict = _search(
        client_a, kb, query="The Eiffel Tower was built in 1950.", evidence_threshold=1
    )
    assert not any(p["evidence"] for p in strict.json()["passages"])


def test_search_refuses_bad_input_with_a_clear_400(client_a):
    kb, _ = _base(client_a, ("tower.txt", TOWER, None))
    assert _search(client_a, kb).status_code == 400  # no query
    assert _search(client_a, kb, query="x", top_k=0).status_code == 400
    assert _search(client_a, kb, query="x", top_k=51).status_code == 400
    nested = _search(client_a, kb, query="x", metadata={"team": {"a": 1}})
    assert nested.status_code == 400
    assert "metadata" in json.dumps(nested.json())


def test_a_documents_text_and_passages_are_readable(client_a):
    kb, ids = _base(client_a, ("tower.txt", TOWER, None))
    url = f"/v1/knowledge-bases/{kb}/documents/{ids['tower.txt']}"
    text = client_a.get(f"{url}/text").json()
    assert text["text"] == TOWER
    passages = client_a.get(f"{url}/passages").json()["results"]
    assert passages
    assert all(TOWER[p["start"] : p["end"]] == p["text"] for p in passages)
    assert passages[0]["config"] == "english"


def test_another_tenant_cannot_search_or_read_a_base(client_a, client_b):
    kb, ids = _base(client_a, ("tower.txt", TOWER, None))
    url = f"/v1/knowledge-bases/{kb}/documents/{ids['tower.txt']}"
    assert _search(client_b, kb, query="Eiffel Tower").status_code == 404
    assert client_b.get(f"{url}/text").status_code == 404
    assert client_b.get(f"{url}/passages").status_code == 404
    assert client_b.patch(url, {"metadata": {"a": "b"}}, format="json").status_code == 404
    # and B's own base never returns A's passages
    kb_b, _ = _base(client_b, ("bridge.txt", BRIDGE, None))
    found = _search(client_b, kb_b, query="The Eiffel Tower was built in 1889.").json()
    assert all(p["document_name"] == "bridge.txt" for p in found["passages"])


def test_metadata_is_set_at_upload_and_by_patch_and_filters_search(client_a):
    kb, ids = _base(
        client_a, ("hr.txt", HR, {"team": "hr", "year": 2026}), ("legal.txt", LEGAL, None)
    )
    # multipart uploads send it as a JSON string
    file = SimpleUploadedFile("more.txt", b"Interns get 5 days of leave.", "text/plain")
    multipart = client_a.post(
        f"/v1/knowledge-bases/{kb}/documents",
        {"file": file, "metadata": json.dumps({"team": "interns"})},
        format="multipart",
    )
    assert multipart.json()["metadata"] == {"team": "interns"}
    url = f"/v1/knowledge-bases/{kb}/documents/{ids['legal.txt']}"
    patched = client_a.patch(url, {"metadata": {"team": "legal", "draft": True}}, format="json")
    assert patched.status_code == 200
    assert patched.json()["metadata"] == {"team": "legal", "draft": True}
    removed = client_a.patch(url, {"metadata": {"draft": None}}, format="json")
    assert removed.json()["metadata"] == {"team": "legal"}
    assert client_a.patch(url, {"metadata": ["x"]}, format="json").status_code == 400
    index_all()
    claim = "Staff get 25 days of paid leave per year."
    legal = _search(client_a, kb, query=claim, metadata={"team": "legal"}).json()["passages"]
    assert {p["document_name"] for p in legal} == {"legal.txt"}
    both = _search(client_a, kb, query=claim, metadata={"team": ["legal", "hr"]}).json()
    assert {p["document_name"] for p in both["passages"]} == {"hr.txt", "legal.txt"}
    none = _search(client_a, kb, query=claim, metadata={"team": "sales"}).json()
    assert none["passages"] == []


def test_a_verification_filters_its_evidence_by_document_metadata(client_a):
    kb, _ = _base(client_a, ("hr.txt", HR, {"team": "hr"}), ("legal.txt", LEGAL, {"team": "legal"}))
    answer = "Employees get 25 days of paid leave per year."
    result = _verify(
        client_a, knowledge_base=kb, response=answer, search={"metadata": {"team": "legal"}}
    )
    names = {p["document_name"] for p in result["grounding"]["passages"]}
    assert names <= {"legal.txt"}
    unfiltered = _verify(client_a, knowledge_base=kb, response=answer)
    assert "hr.txt" in {p["document_name"] for p in unfiltered["grounding"]["passages"]}


def test_per_request_search_controls_within_the_policy(client_a, tenant_a):
    kb, _ = _base(client_a, ("tower.txt", TOWER, None), ("bridge.txt", BRIDGE, None))
    Policy.objects.create(
        tenant=tenant_a.tenant,
        document={"fact_check": {"search_sources": ["knowledge_base"], "max_queries": 3}},
    )
    answer = "The Eiffel Tower was built in 1950. It is 330 metres tall. The bridge opened in 1937."
    # beyond the policy: a clear 400 naming the field
    web = client_a.post(
        "/v1/verifications",
        {"knowledge_base": kb, "response": answer, "search": {"sources": ["web"]}},
        format="json",
    )
    assert web.status_code == 400
    assert "the policy does not allow web" in json.dumps(web.json())
    many = client_a.post(
        "/v1/verifications",
        {"knowledge_base": kb, "response": answer, "search": {"max_queries": 4}},
        format="json",
    )
    assert many.status_code == 400
    assert "at most 3 queries" in json.dumps(many.json())
    bad = client_a.post(
        "/v1/verifications",
        {"knowledge_base": kb, "response": answer, "search": {"top_k": 0}},
        format="json",
    )
    assert bad.status_code == 400
    # within it: one query, one passage per claim
    one = _verify(client_a, knowledge_base=kb, response=answer, search={"max_queries": 1})
    assert one["grounding"]["controls"]["max_queries"] == 1
    claims = one["grounding"]["claims"]
    assert sum(bool(c["searched"]) for c in claims) == 1
    assert sum(c.get("skipped") == "max_queries reached" for c in claims) == 2
    top1 = _verify(client_a, knowledge_base=kb, response=answer, search={"top_k": 1})
    assert all(len(c["passages"]) <= 1 for c in top1["grounding"]["claims"])
    strict = _verify(
        client_a, knowledge_base=kb, response=answer, search={"evidence_threshold": 0.99}
    )
    assert strict["grounding"]["claims_with_evidence"] == 0


def test_the_new_endpoints_are_in_the_openapi_schema(client_a):
    paths = client_a.get("/v1/schema", HTTP_ACCEPT="application/json").json()["paths"]
    assert "post" in paths["/v1/knowledge-bases/{kb_id}/search"]
    assert "get" in paths["/v1/knowledge-bases/{kb_id}/documents/{doc_id}/text"]
    assert "get" in paths["/v1/knowledge-bases/{kb_id}/documents/{doc_id}/passages"]
    assert "patch" in paths["/v1/knowledge-bases/{kb_id}/documents/{doc_id}"]


def test_metadata_belongs_to_the_document_across_versions(client_a):
    """A replacement without metadata keeps the document's; one with metadata replaces
    it at once, while the previous version is still served; a restore keeps it."""
    kb, ids = _base(client_a, ("hr.txt", HR, {"team": "hr"}))
    index_all()
    url = f"/v1/knowledge-bases/{kb}/documents/{ids['hr.txt']}"
    kept = client_a.put(url, {"name": "hr.txt", "content": LEGAL}, format="json")
    assert kept.status_code == 202, kept.json()
    assert kept.json()["metadata"] == {"team": "hr"}
    index_all()
    assert client_a.get(url).json()["version"] == 2
    replaced = client_a.put(
        url, {"name": "hr.txt", "content": HR, "metadata": {"team": "legal"}}, format="json"
    )
    assert (replaced.json()["version"], replaced.json()["metadata"]) == (2, {"team": "legal"})
    assert (
        client_a.put(url, {"name": "x", "content": HR, "metadata": [1]}, format="json").status_code
        == 400
    )
    index_all()
    claim = "Employees get 25 days of paid leave per year."
    found = _search(client_a, kb, query=claim, metadata={"team": "legal"}).json()["passages"]
    assert {p["document_name"] for p in found} == {"hr.txt"}
    assert _search(client_a, kb, query=claim, metadata={"team": "hr"}).json()["passages"] == []
    restored = client_a.post(f"{url}/versions/1/restore")
    assert restored.status_code == 202, restored.json()
    index_all()
    assert client_a.get(url).json()["metadata"] == {"team": "legal"}
