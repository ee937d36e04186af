"""Knowledge-base pages: create, upload (no re-post on refresh), roles, the document view,
and verification details that link each span to the document passage."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from knowledge.models import Document, KnowledgeBase
from tests.knowledge.conftest import index_all
from verification.actions.claim import claim
from verification.actions.create import NewVerification, create_verification
from verification.stages.detect import process_jobs

pytestmark = pytest.mark.django_db

TOWER = "The Eiffel Tower is in Paris. It was built from 1887 to 1889. It is 330 metres tall."


def test_an_owner_creates_a_base_uploads_and_sees_it_indexed(client, owner_a, tenant_a):
    client.force_login(owner_a)
    created = client.post("/dashboard/knowledge/", {"name": "Handbook", "description": "HR"})
    kb = KnowledgeBase.objects.get(tenant=tenant_a.tenant)
    assert created.status_code == 302
    assert created["Location"].endswith(f"/dashboard/knowledge/{kb.public_id}/")
    page = f"/dashboard/knowledge/{kb.public_id}/"
    upload = SimpleUploadedFile("tower.txt", TOWER.encode(), content_type="text/plain")
    posted = client.post(page, {"file": upload})
    assert posted.status_code == 302  # redirect after post: a refresh does not upload again
    assert Document.objects.count() == 1
    assert "queued" in client.get(page).content.decode()
    index_all()
    body = client.get(page).content.decode()
    assert "tower.txt" in body
    assert "ready" in body
    bad = client.post(page, {"file": SimpleUploadedFile("x.exe", b"MZ", "application/x-dosexec")})
    assert bad.status_code == 200
    assert "unsupported file type" in bad.content.decode()
    assert Document.objects.count() == 1


def test_a_viewer_reads_but_cannot_upload_or_delete(client, viewer_a, tenant_a):
    kb = KnowledgeBase.objects.create(tenant=tenant_a.tenant, name="Handbook")
    doc = Document.objects.create(
        tenant=tenant_a.tenant, knowledge_base=kb, name="a.txt", content_type="text/plain",
        size_bytes=1, sha256="", raw=b"x",
    )  # fmt: skip
    client.force_login(viewer_a)
    page = f"/dashboard/knowledge/{kb.public_id}/"
    assert client.get(page).status_code == 200
    upload = SimpleUploadedFile("b.txt", b"text", content_type="text/plain")
    assert client.post(page, {"file": upload}).status_code == 403
    delete = f"{page}documents/{doc.public_id}/delete/"
    assert client.post(delete).status_code == 403
    assert Document.objects.count() == 1


def test_another_tenants_base_is_not_found(client, owner_b, tenant_a):
    kb = KnowledgeBase.objects.create(tenant=tenant_a.tenant, name="A only")
    client.force_login(owner_b)
    assert client.get(f"/dashboard/knowledge/{kb.public_id}/").status_code == 404
    assert "A only" not in client.get("/dashboard/knowledge/").content.decode()


def test_a_span_links_to_the_evidence_in_the_document(client, owner_a, client_a, tenant_a):
    kb = KnowledgeBase.objects.create(tenant=tenant_a.tenant, name="Facts")
    client_a.post(
        f"/v1/knowledge-bases/{kb.public_id}/documents",
        {"file": SimpleUploadedFile("tower.txt", TOWER.encode(), content_type="text/plain")},
        format="multipart",
    )
    index_all()
    job, _ = create_verification(
        tenant_a.tenant,
        NewVerification(
            context=[], response="The Eiffel Tower was built in 1950.", knowledge_base_id=kb.pk
        ),
    )
    process_jobs([claim(job.pk)])
    client.force_login(owner_a)
    body = client.get(f"/dashboard/verifications/{job.public_id}/").content.decode()
    doc = Document.objects.get()
    link = f"/dashboard/knowledge/{kb.public_id}/documents/{doc.public_id}/?start="
    assert link in body
    assert "1 of 1 claims had evidence" in body
    start = body.index(link) + len(link)
    offsets = body[start : body.index("#evidence", start)].replace("&amp;", "&")
    offsets, cited = offsets.split("&version=")
    assert cited == "1"  # the link names the document version the evidence came from
    lo, hi = int(offsets.split("&end=")[0]), int(offsets.split("&end=")[1])
    assert "1887" in doc.text[lo:hi]
    marked = client.get(f"{link}{lo}&end={hi}").content.decode()
    assert f'<mark id="evidence">{doc.text[lo:hi]}</mark>' in marked


def test_an_owner_sets_the_web_search_provider_and_its_key_is_never_shown(
    client, owner_a, tenant_a
):
    from knowledge.models import WebSearchSettings

    client.force_login(owner_a)
    data = {"provider": "tavily", "api_base": "", "price_per_query_usd": "0.008", "max_results": 5}
    assert "needs its API key" in client.post("/dashboard/knowledge/", data).content.decode()
    saved = client.post("/dashboard/knowledge/", {**data, "api_key": "tvly-secret"})
    assert saved.status_code == 302
    assert WebSearchSettings.objects.get(tenant=tenant_a.tenant).api_key == "tvly-secret"
    page = client.get("/dashboard/knowledge/").content.decode()
    assert "key set" in page
    assert "tvly-secret" not in page


def test_the_base_page_lists_versions_and_restores_one(client, owner_a, client_a, tenant_a):
    kb = client_a.post("/v1/knowledge-bases", {"name": "Facts"}, format="json").json()["id"]
    file = SimpleUploadedFile("tower.txt", TOWER.encode(), content_type="text/plain")
    doc = client_a.post(f"/v1/knowledge-bases/{kb}/documents", {"file": file}, format="multipart")
    index_all()
    url = f"/v1/knowledge-bases/{kb}/documents/{doc.json()['id']}"
    bad = SimpleUploadedFile("broken.pdf", b"%PDF-1.4 junk", content_type="application/pdf")
    client_a.put(url, {"file": bad}, format="multipart")
    index_all()
    client.force_login(owner_a)
    page = client.get(f"/dashboard/knowledge/{kb}/").content.decode()
    assert "2 versions" in page
    assert "v2 · broken.pdf" in page
    assert "PDF could not be read" in page
    assert "v1 · tower.txt" in page
    restore = f"/dashboard/knowledge/{kb}/documents/{doc.json()['id']}/versions/2/restore/"
    assert f'action="{restore}"' in page
    assert client.post(restore).status_code == 302
    assert client_a.get(url).json()["replacement"]["version"] == 3
    # an evidence link to an older version shows that version's text
    client_a.put(
        url,
        {"file": SimpleUploadedFile("t.txt", b"Nothing to see.", content_type="text/plain")},
        format="multipart",
    )
    index_all()
    shown = client.get(f"/dashboard/knowledge/{kb}/documents/{doc.json()['id']}/?version=1")
    assert "330 metres tall" in shown.content.decode()
    assert "version 1" in shown.content.decode()
    current = client.get(f"/dashboard/knowledge/{kb}/documents/{doc.json()['id']}/")
    assert "Nothing to see." in current.content.decode()


def test_a_span_names_the_pdf_page_of_its_evidence(client, owner_a, client_a, tenant_a):
    from tests.knowledge.test_formats import _pdf

    kb = KnowledgeBase.objects.create(tenant=tenant_a.tenant, name="Guide")
    raw = _pdf("The museum opens at nine.", "The Eiffel Tower was built from 1887 to 1889.")
    client_a.post(
        f"/v1/knowledge-bases/{kb.public_id}/documents",
        {"file": SimpleUploadedFile("guide.pdf", raw, content_type="application/pdf")},
        format="multipart",
    )
    index_all()
    job, _ = create_verification(
        tenant_a.tenant,
        NewVerification(
            context=[], response="The Eiffel Tower was built in 1950.", knowledge_base_id=kb.pk
        ),
    )
    process_jobs([claim(job.pk)])
    client.force_login(owner_a)
    body = client.get(f"/dashboard/verifications/{job.public_id}/").content.decode()
    assert "guide.pdf, page 2</a>" in body
