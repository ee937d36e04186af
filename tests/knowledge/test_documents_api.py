"""Knowledge bases and documents through the API: formats, limits, replace, delete."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from knowledge.models import Document, Passage
from tenants.models import Plan

from .conftest import index_all, make_pdf

pytestmark = pytest.mark.django_db

TOWER = (
    "The Eiffel Tower is a wrought-iron lattice tower in Paris. It was built from 1887 to 1889 "
    "as the entrance arch for the 1889 World's Fair. The tower is 330 metres tall."
)


def _kb(client, name="Handbook") -> str:
    response = client.post("/v1/knowledge-bases", {"name": name}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def _upload(client, kb, name, raw, content_type):
    file = SimpleUploadedFile(name, raw, content_type=content_type)
    return client.post(f"/v1/knowledge-bases/{kb}/documents", {"file": file}, format="multipart")


@pytest.mark.parametrize(
    ("name", "raw", "content_type", "expected"),
    [
        ("tower.txt", TOWER.encode(), "text/plain", "330 metres tall"),
        (
            "tower.md",
            b"# Tower\n\nIt is **330 metres** tall.",
            "text/markdown",
            "It is 330 metres tall.",
        ),
        (
            "tower.html",
            b"<html><script>x()</script><body><h1>Tower</h1><p>It is <b>330 metres</b> tall.</p>",
            "text/html",
            "It is 330 metres tall.",
        ),
        ("tower.pdf", make_pdf("The tower is 330 metres tall."), "application/pdf", "330 metres"),
    ],
)
def test_each_format_is_indexed_into_passages_with_offsets(
    client_a, name, raw, content_type, expected
):
    kb = _kb(client_a)
    response = _upload(client_a, kb, name, raw, content_type)
    assert response.status_code == 202, response.json()
    doc = response.json()
    assert doc["status"] == "queued"
    assert doc["progress"] == 0.0
    index_all()
    shown = client_a.get(f"/v1/knowledge-bases/{kb}/documents/{doc['id']}").json()
    assert shown["status"] == "ready", shown
    assert shown["progress"] == 1.0
    stored = Document.objects.get()
    assert expected in stored.text
    for p in Passage.objects.filter(document=stored):
        assert stored.text[p.start : p.end] == p.text  # evidence can point back into it
        assert len(bytes(p.embedding)) == 384 * 4


def test_a_malformed_pdf_fails_with_a_clear_error_not_a_crash(client_a):
    kb = _kb(client_a)
    doc = _upload(client_a, kb, "bad.pdf", b"%PDF-1.4 not really", "application/pdf").json()
    index_all()
    shown = client_a.get(f"/v1/knowledge-bases/{kb}/documents/{doc['id']}").json()
    assert shown["status"] == "failed"
    assert "PDF could not be read" in shown["error"]


def test_bad_uploads_are_refused_with_clear_4xx(client_a, tenant_a):
    kb = _kb(client_a)
    refused = _upload(client_a, kb, "x.exe", b"MZ\x90", "application/octet-stream")
    assert refused.status_code == 400
    assert "unsupported file type" in str(refused.json())
    empty = client_a.post(f"/v1/knowledge-bases/{kb}/documents", {}, format="json")
    assert empty.status_code == 400
    tenant = tenant_a[0]
    tenant.plan = Plan.objects.create(name="tiny", kb_max_documents=1, kb_max_document_bytes=100)
    tenant.save()
    big = _upload(client_a, kb, "big.txt", b"x " * 100, "text/plain")
    assert big.status_code == 413
    assert "allows 100" in big.json()["detail"]
    assert _upload(client_a, kb, "a.txt", b"small", "text/plain").status_code == 202
    second = _upload(client_a, kb, "b.txt", b"other", "text/plain")
    assert second.status_code == 403
    assert "at most 1 documents" in second.json()["detail"]
    duplicate = client_a.post("/v1/knowledge-bases", {"name": "Handbook"}, format="json")
    assert duplicate.status_code == 409


def test_replace_reindexes_and_delete_removes_passages_at_once(client_a):
    kb = _kb(client_a)
    doc = _upload(client_a, kb, "t.txt", TOWER.encode(), "text/plain").json()
    index_all()
    old = set(Passage.objects.values_list("pk", flat=True))
    file = SimpleUploadedFile("t.txt", b"The tower is 300 metres tall.", content_type="text/plain")
    replaced = client_a.put(
        f"/v1/knowledge-bases/{kb}/documents/{doc['id']}", {"file": file}, format="multipart"
    )
    assert replaced.status_code == 202
    assert replaced.json()["version"] == 1  # the served version, until the new one is ready
    assert replaced.json()["replacement"]["version"] == 2
    assert set(Passage.objects.values_list("pk", flat=True)) == old  # served until re-indexed
    index_all()
    texts = list(Passage.objects.values_list("text", flat=True))
    assert texts == ["The tower is 300 metres tall."]
    assert client_a.delete(f"/v1/knowledge-bases/{kb}/documents/{doc['id']}").status_code == 204
    assert not Passage.objects.exists()


def test_another_tenants_knowledge_base_is_not_found(client_a, client_b):
    kb = _kb(client_a)
    assert client_b.get(f"/v1/knowledge-bases/{kb}").status_code == 404
    assert client_b.get(f"/v1/knowledge-bases/{kb}/documents").status_code == 404
    file = SimpleUploadedFile("t.txt", b"text", content_type="text/plain")
    sneaky = client_b.post(
        f"/v1/knowledge-bases/{kb}/documents", {"file": file}, format="multipart"
    )
    assert sneaky.status_code == 404
    assert client_b.get("/v1/knowledge-bases").json()["results"] == []


def test_fusion_ranks_first_what_both_orders_rank_well():
    import numpy as np

    from knowledge.retrieval import fuse

    # full-text order 0..9; the encoder ranks 5 first and 0 last
    order = fuse(np.array([-1.0, 0.1, 0.2, 0.3, 0.4, 0.9, 0.0, 0.0, 0.0, 0.0]))
    assert order[0] == 5  # good in both
    assert order.index(0) > 0  # first by words alone, but last by meaning
    assert sorted(order) == list(range(10))
