"""Formats (DOCX, PPTX, CSV, JSON, e-mail, scanned PDFs) and where evidence sits in the file:
PDF pages and Markdown/HTML heading paths in `evidence_location`. Every file is built here."""

from __future__ import annotations

import io
from email.message import EmailMessage

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from pypdf import PdfReader, PdfWriter

from knowledge.models import Document, Passage
from knowledge.parsing import DOCX, PPTX, extract, file_format

from .conftest import index_all, make_pdf
from .test_fact_check import _verify

pytestmark = pytest.mark.django_db


def _pdf(*pages: str) -> bytes:
    writer = PdfWriter()
    for text in pages:
        writer.append(PdfReader(io.BytesIO(make_pdf(text))))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _docx() -> bytes:
    import docx

    document = docx.Document()
    document.add_heading("Handbook", 1)
    document.add_paragraph("Welcome to the company.")
    document.add_heading("Returns", 2)
    document.add_paragraph("Items can be returned within 30 days of delivery.")
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text = "Shipping"
    table.rows[0].cells[1].text = "Free over 50 euros"
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _pptx() -> bytes:
    from pptx import Presentation

    deck = Presentation()
    for title, body in (("Intro", "The plan starts in May."), ("Budget", "It costs 4000 euros.")):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def _eml() -> bytes:
    message = EmailMessage()
    message["Subject"] = "Office move"
    message["From"] = "facilities@example.com"
    message["To"] = "staff@example.com"
    message["Date"] = "Mon, 02 Mar 2026 09:00:00 +0000"
    message.set_content("The office moves to Rue de Rivoli 12 on 15 March.")
    return message.as_bytes()


CASES = [
    ("handbook.docx", _docx, DOCX, "Items can be returned within 30 days of delivery.",
     {"headings": ["Handbook", "Returns"]}),
    ("plan.pptx", _pptx, PPTX, "It costs 4000 euros.", {"slide": 2}),
    ("prices.csv", lambda: b"product,price\nlamp,25 euros\ndesk,300 euros\n", "text/csv",
     "product: desk; price: 300 euros.", {"row": 3}),
    ("config.json", lambda: b'{"office": {"city": "Paris", "floors": 3}, "staff": [{"name": "Ada"}]}',
     "application/json", "office.floors: 3.", {"json_path": "office"}),
    ("move.eml", _eml, "message/rfc822", "The office moves to Rue de Rivoli 12 on 15 March.",
     {"part": "body"}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "build", "content_type", "expected", "where"), CASES)
def test_each_new_format_is_indexed_with_its_locations(
    client_a, name, build, content_type, expected, where
):
    raw = build()
    found = extract(raw, file_format(name, content_type))
    assert expected in found.text
    assert found.location(found.text.index(expected)) == where
    kb = client_a.post("/v1/knowledge-bases", {"name": "Formats"}, format="json").json()["id"]
    file = SimpleUploadedFile(name, raw, content_type=content_type)
    sent = client_a.post(f"/v1/knowledge-bases/{kb}/documents", {"file": file}, format="multipart")
    assert sent.status_code == 202, sent.json()
    index_all()
    doc = Document.objects.get()
    assert doc.status == "ready", doc.error
    assert expected in doc.text
    for p in Passage.objects.filter(document=doc):
        assert doc.text[p.start : p.end] == p.text


def test_an_eml_headers_are_text_too():
    found = extract(_eml(), "eml")
    assert found.text.startswith("Subject: Office move\nFrom: facilities@example.com")


def test_a_scanned_pdf_says_it_has_no_text_layer_and_ocr_is_out_of_scope(client_a):
    writer = PdfWriter()
    writer.add_blank_page(612, 792)
    out = io.BytesIO()
    writer.write(out)
    kb = client_a.post("/v1/knowledge-bases", {"name": "Scans"}, format="json").json()["id"]
    file = SimpleUploadedFile("scan.pdf", out.getvalue(), content_type="application/pdf")
    client_a.post(f"/v1/knowledge-bases/{kb}/documents", {"file": file}, format="multipart")
    index_all()
    doc = Document.objects.get()
    assert doc.status == "failed"
    assert "no text layer" in doc.error
    assert "OCR" in doc.error
    assert "out of scope" in doc.error


def test_a_broken_docx_fails_clearly(client_a):
    kb = client_a.post("/v1/knowledge-bases", {"name": "Bad"}, format="json").json()["id"]
    raw = b"PK\x03\x04" + b"\x00" * 64
    file = SimpleUploadedFile("bad.docx", raw, content_type=DOCX)
    assert (
        client_a.post(f"/v1/knowledge-bases/{kb}/documents", {"file": file}, format="multipart")
    ).status_code == 202
    index_all()
    doc = Document.objects.get()
    assert doc.status == "failed"
    assert "DOCX could not be read" in doc.error


def _kb_with(client, name, raw, content_type) -> str:
    kb = client.post("/v1/knowledge-bases", {"name": "Cite"}, format="json").json()["id"]
    file = SimpleUploadedFile(name, raw, content_type=content_type)
    client.post(f"/v1/knowledge-bases/{kb}/documents", {"file": file}, format="multipart")
    index_all()
    return kb


def test_pdf_evidence_names_its_page(client_a):
    raw = _pdf(
        "The museum opens at nine in the morning.",
        "The Eiffel Tower was built from 1887 to 1889.",
        "The gift shop sells postcards.",
    )
    kb = _kb_with(client_a, "guide.pdf", raw, "application/pdf")
    [passage] = Passage.objects.all()  # three short pages make one passage
    assert (passage.location["page"], passage.location["page_end"]) == (1, 3)
    result = _verify(client_a, knowledge_base=kb, response="The Eiffel Tower was built in 1950.")
    [span] = [s for s in result["spans"] if s["text"] == "1950"]
    where = span["evidence_location"]["document"]
    assert where["page"] == 2
    assert "page_end" not in where


def test_markdown_evidence_names_its_heading_path(client_a):
    source = (
        b"# Guide\n\nWelcome.\n\n## Paris\n\n### Landmarks\n\n"
        b"The Eiffel Tower was built from 1887 to 1889.\n\n## Lyon\n\nLyon has two rivers.\n"
    )
    kb = _kb_with(client_a, "guide.md", source, "text/markdown")
    result = _verify(client_a, knowledge_base=kb, response="The Eiffel Tower was built in 1950.")
    [span] = [s for s in result["spans"] if s["text"] == "1950"]
    assert span["evidence_location"]["document"]["headings"] == ["Guide", "Paris", "Landmarks"]


def test_html_heading_paths_follow_levels():
    markup = (
        b"<h1>A</h1><p>one.</p><h2>B</h2><p>two.</p><h3>C</h3><p>three.</p><h2>D</h2><p>four.</p>"
    )
    found = extract(markup, "html")
    assert found.location(found.text.index("three.")) == {"headings": ["A", "B", "C"]}
    assert found.location(found.text.index("four.")) == {"headings": ["A", "D"]}
