"""Replacing a document is atomic, and its versions are kept: list, download, restore.

On the main branch before versions, a PUT of a malformed PDF over a ready document
marked it failed, renamed it and overwrote its bytes while search kept citing the
old text under the new name; these tests fail there.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from knowledge import retrieval
from knowledge.models import Document, DocumentVersion, Passage

from .conftest import index_all
from .test_fact_check import _verify

pytestmark = pytest.mark.django_db

OLD = b"The Eiffel Tower is 330 metres tall. It was built from 1887 to 1889 in Paris."
NEW = b"The Eiffel Tower is 300 metres tall. It was built from 1887 to 1889 in Paris."


def _kb(client) -> str:
    return client.post("/v1/knowledge-bases", {"name": "Facts"}, format="json").json()["id"]


def _send(client, method, url, name, raw, content_type="text/plain"):
    file = SimpleUploadedFile(name, raw, content_type=content_type)
    return getattr(client, method)(url, {"file": file}, format="multipart")


@pytest.fixture
def ready_doc(client_a):
    kb = _kb(client_a)
    doc = _send(client_a, "post", f"/v1/knowledge-bases/{kb}/documents", "tower.txt", OLD).json()
    index_all()
    return kb, doc["id"], f"/v1/knowledge-bases/{kb}/documents/{doc['id']}"


def test_a_failed_replacement_changes_nothing_but_its_history(client_a, ready_doc):
    kb, doc_id, url = ready_doc
    passages = list(Passage.objects.values_list("pk", "text", "version"))
    put = _send(client_a, "put", url, "broken.pdf", b"%PDF-1.4 not really", "application/pdf")
    assert put.status_code == 202, put.json()
    assert put.json()["name"] == "tower.txt"
    assert put.json()["replacement"] == {
        "version": 2, "status": "queued", "error": "", "progress": 0.0, "name": "broken.pdf",
    }  # fmt: skip
    index_all()

    shown = client_a.get(url).json()
    assert (shown["status"], shown["name"], shown["version"]) == ("ready", "tower.txt", 1)
    assert shown["content_type"] == "text/plain"
    assert shown["replacement"]["status"] == "failed"
    assert "PDF could not be read" in shown["replacement"]["error"]
    download = client_a.get(f"{url}/file")
    assert download.status_code == 200
    assert download.content == OLD
    assert 'filename="tower.txt"' in download["Content-Disposition"]
    assert list(Passage.objects.values_list("pk", "text", "version")) == passages
    hits = retrieval.search(
        Document.objects.get().tenant_id,
        [Document.objects.get().knowledge_base_id],
        "Eiffel Tower metres tall",
    )
    assert [h.document_name for h in hits] == ["tower.txt"]

    versions = client_a.get(f"{url}/versions").json()["results"]
    assert [(v["version"], v["status"], v["served"]) for v in versions] == [
        (2, "failed", False),
        (1, "ready", True),
    ]
    assert versions[0]["name"] == "broken.pdf"
    failed = client_a.get(f"{url}/versions/2/file")
    assert failed.content == b"%PDF-1.4 not really"


def test_the_old_version_is_served_until_the_new_one_is_ready(client_a, ready_doc):
    kb, doc_id, url = ready_doc
    _send(client_a, "put", url, "tower-v2.txt", NEW)
    # queued: search, the document's text and its file are still version 1
    assert client_a.get(f"{url}/file").content == OLD
    assert Document.objects.get().text == OLD.decode()
    assert set(Passage.objects.values_list("version", flat=True)) == {1}
    index_all()
    shown = client_a.get(url).json()
    assert (shown["version"], shown["name"], shown["replacement"]) == (2, "tower-v2.txt", None)
    assert client_a.get(f"{url}/file").content == NEW
    assert set(Passage.objects.values_list("version", flat=True)) == {2}

    result = _verify(client_a, knowledge_base=kb, response="The Eiffel Tower is 300 metres tall.")
    cited = [
        s["evidence_location"]["document"] for s in result["spans"] if s.get("evidence_location")
    ]
    refs = [p for p in result["grounding"]["passages"] if p.get("kind") == "passage"]
    assert refs
    assert all(p["document_version"] == 2 for p in refs)
    assert all(c["version"] == 2 for c in cited)


def test_restore_serves_an_earlier_version_again_as_a_new_one(client_a, ready_doc):
    kb, doc_id, url = ready_doc
    _send(client_a, "put", url, "tower-v2.txt", NEW)
    index_all()
    restored = client_a.post(f"{url}/versions/1/restore")
    assert restored.status_code == 202, restored.json()
    assert restored.json()["version"] == 2  # still serving 2 until 3 is indexed
    assert restored.json()["replacement"]["version"] == 3
    index_all()
    shown = client_a.get(url).json()
    assert (shown["version"], shown["name"]) == (3, "tower.txt")
    assert client_a.get(f"{url}/file").content == OLD
    three = client_a.get(f"{url}/versions/3").json()
    assert (three["restored_from"], three["status"], three["served"]) == (1, "ready", True)
    assert "330 metres" in Passage.objects.get().text
    assert client_a.post(f"{url}/versions/9/restore").status_code == 404
    assert client_a.get(f"{url}/versions/9").status_code == 404


def test_a_newer_upload_supersedes_one_still_queued(client_a, ready_doc):
    kb, doc_id, url = ready_doc
    _send(client_a, "put", url, "v2.txt", NEW)
    _send(client_a, "put", url, "v3.txt", OLD + b" Version three.")
    index_all()
    statuses = dict(DocumentVersion.objects.values_list("number", "status"))
    assert statuses == {1: "ready", 2: "superseded", 3: "ready"}
    assert client_a.get(url).json()["version"] == 3


def test_versions_and_files_of_another_tenant_are_not_found(client_a, client_b, ready_doc):
    kb, doc_id, url = ready_doc
    for path in ("/versions", "/versions/1", "/versions/1/file", "/file"):
        assert client_b.get(url + path).status_code == 404, path
    assert client_b.post(f"{url}/versions/1/restore").status_code == 404
    assert DocumentVersion.objects.count() == 1


def test_version_endpoints_are_in_the_openapi_schema(client_a):
    paths = client_a.get("/v1/schema", HTTP_ACCEPT="application/json").json()["paths"]
    base = "/v1/knowledge-bases/{kb_id}/documents/{doc_id}"
    for suffix in ("/file", "/versions", "/versions/{number}", "/versions/{number}/file",
                   "/versions/{number}/restore"):  # fmt: skip
        assert base + suffix in paths, suffix
