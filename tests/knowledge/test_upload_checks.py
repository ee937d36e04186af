"""Uploads checked at the door: file signatures, encrypted PDFs, the same file twice."""

from __future__ import annotations

import io
import os

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from pypdf import PdfReader, PdfWriter

from knowledge.models import Document

from .conftest import index_all, make_pdf

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"


def _kb(client) -> str:
    return client.post("/v1/knowledge-bases", {"name": "Checks"}, format="json").json()["id"]


def _upload(client, kb, name, raw, content_type, query=""):
    file = SimpleUploadedFile(name, raw, content_type=content_type)
    return client.post(
        f"/v1/knowledge-bases/{kb}/documents{query}", {"file": file}, format="multipart"
    )


def test_a_pdf_sent_as_text_is_refused_with_a_hint(client_a):
    kb = _kb(client_a)
    refused = _upload(client_a, kb, "notes.txt", make_pdf("Hello there."), "text/plain")
    assert refused.status_code == 415
    assert refused["Content-Type"].startswith(PROBLEM)
    body = refused.json()
    assert "its content is a PDF" in body["detail"]
    assert "application/pdf" in body["detail"]
    assert not Document.objects.exists()


def test_random_bytes_named_txt_are_refused(client_a):
    kb = _kb(client_a)
    noise = bytes(range(256)) * 8 + os.urandom(4096)
    refused = _upload(client_a, kb, "data.txt", noise, "text/plain")
    assert refused.status_code == 415
    assert refused["Content-Type"].startswith(PROBLEM)
    assert "not text" in refused.json()["detail"]


def test_a_png_sent_as_pdf_and_text_sent_as_pdf_are_refused(client_a):
    kb = _kb(client_a)
    png = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + os.urandom(64)
    as_pdf = _upload(client_a, kb, "scan.pdf", png, "application/pdf")
    assert as_pdf.status_code == 415
    assert "image/png" in as_pdf.json()["detail"]
    text = _upload(client_a, kb, "t.pdf", b"just some words", "application/pdf")
    assert text.status_code == 415
    assert "its content is text" in text.json()["detail"]


def _encrypted(text: str, user_password: str) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf(text))))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_a_pdf_encrypted_with_an_empty_password_is_opened(client_a):
    kb = _kb(client_a)
    raw = _encrypted("The tower is 330 metres tall.", "")
    assert PdfReader(io.BytesIO(raw)).is_encrypted
    assert _upload(client_a, kb, "locked.pdf", raw, "application/pdf").status_code == 202
    index_all()
    doc = Document.objects.get()
    assert doc.status == "ready", doc.error
    assert "330 metres" in doc.text


def test_a_pdf_with_a_real_password_fails_clearly(client_a):
    kb = _kb(client_a)
    _upload(client_a, kb, "secret.pdf", _encrypted("Hidden.", "hunter2"), "application/pdf")
    index_all()
    doc = Document.objects.get()
    assert doc.status == "failed"
    assert "encrypted with a password" in doc.error


def test_the_same_file_twice_answers_with_the_existing_document_by_default(client_a):
    kb = _kb(client_a)
    first = _upload(client_a, kb, "a.txt", b"Same bytes here.", "text/plain")
    assert first.status_code == 202
    again = _upload(client_a, kb, "copy-of-a.txt", b"Same bytes here.", "text/plain")
    assert again.status_code == 200
    assert again.json()["id"] == first.json()["id"]
    assert again["X-Duplicate-Of"] == first.json()["id"]
    assert Document.objects.count() == 1


def test_the_same_file_twice_is_refused_or_allowed_on_request(client_a):
    kb = _kb(client_a)
    first = _upload(client_a, kb, "a.txt", b"Same bytes here.", "text/plain").json()
    refused = _upload(
        client_a, kb, "b.txt", b"Same bytes here.", "text/plain", "?on_duplicate=refuse"
    )
    assert refused.status_code == 409
    assert refused["Content-Type"].startswith(PROBLEM)
    assert first["id"] in refused.json()["detail"]
    allowed = _upload(
        client_a, kb, "c.txt", b"Same bytes here.", "text/plain", "?on_duplicate=allow"
    )
    assert allowed.status_code == 202
    assert Document.objects.count() == 2
    bad = _upload(client_a, kb, "d.txt", b"other", "text/plain", "?on_duplicate=maybe")
    assert bad.status_code == 400


def test_duplicates_are_per_knowledge_base_and_per_tenant(client_a, client_b):
    kb_a = _kb(client_a)
    kb_a2 = client_a.post("/v1/knowledge-bases", {"name": "Other"}, format="json").json()["id"]
    kb_b = _kb(client_b)
    assert _upload(client_a, kb_a, "a.txt", b"Shared bytes.", "text/plain").status_code == 202
    assert _upload(client_a, kb_a2, "a.txt", b"Shared bytes.", "text/plain").status_code == 202
    b = _upload(client_b, kb_b, "a.txt", b"Shared bytes.", "text/plain", "?on_duplicate=refuse")
    assert b.status_code == 202  # tenant B never learns that A holds the same file
