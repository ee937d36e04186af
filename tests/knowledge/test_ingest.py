"""Ingestion from a URL (fetched by the worker through the address guard), batch upload,
and the `document.ready` / `document.failed` webhook events. Servers are on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from knowledge.models import Document, DocumentVersion
from tenants.models import WebhookEndpoint
from verification.models import WebhookDelivery
from verification.webhooks import signing
from verification.webhooks.dispatch import attempt_delivery

from .conftest import index_all, make_pdf

pytestmark = pytest.mark.django_db

PAGES = {
    "/policy.txt": (
        200,
        "text/plain; charset=utf-8",
        b"Refunds are issued within 5 business days.",
    ),
    "/guide.pdf": (200, "application/pdf", make_pdf("The guide says the museum opens at nine.")),
    "/fake.txt": (200, "text/plain", make_pdf("not text")),
    "/moved": (302, "text/plain", b""),
    "/gone": (404, "text/plain", b"nope"),
}


@pytest.fixture
def site():
    received: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            code, kind, body = PAGES.get(self.path, (404, "text/plain", b""))
            self.send_response(code)
            self.send_header("Content-Type", kind)
            if code == 302:
                self.send_header("Location", "http://10.0.0.1/secret")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            received.append({"headers": dict(self.headers), "body": body})
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", received
    server.shutdown()
    server.server_close()


def _kb(client) -> str:
    return client.post("/v1/knowledge-bases", {"name": "Ingest"}, format="json").json()["id"]


def _from_url(client, kb, url, **extra):
    return client.post(f"/v1/knowledge-bases/{kb}/documents", {"url": url, **extra}, format="json")


@pytest.mark.parametrize(
    ("path", "expected"),
    [("/policy.txt", "within 5 business days"), ("/guide.pdf", "opens at nine")],
)
def test_a_document_is_fetched_from_a_url_by_the_worker(client_a, site, path, expected):
    base, _ = site
    kb = _kb(client_a)
    sent = _from_url(client_a, kb, base + path)
    assert sent.status_code == 202, sent.json()
    assert sent.json()["source_url"] == base + path
    assert sent.json()["name"] == path.lstrip("/")
    assert sent.json()["status"] == "queued"
    index_all()
    doc = Document.objects.get()
    assert doc.status == "ready", doc.error
    assert expected in doc.text
    assert doc.size_bytes == len(PAGES[path][2])
    assert bytes(doc.raw) == PAGES[path][2]
    assert doc.content_type == PAGES[path][1].split(";")[0]
    file = client_a.get(f"/v1/knowledge-bases/{kb}/documents/{doc.public_id}/file")
    assert file.content == PAGES[path][2]


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("/moved", "redirects are not followed"),
        ("/gone", "HTTP 404"),
        ("/fake.txt", "its content is a PDF"),
    ],
)
def test_a_url_that_cannot_be_indexed_fails_with_the_reason(client_a, site, path, error):
    base, _ = site
    kb = _kb(client_a)
    assert _from_url(client_a, kb, base + path).status_code == 202
    index_all()
    doc = Document.objects.get()
    assert doc.status == "failed"
    assert error in doc.error


def test_internal_urls_are_refused_when_saved_and_when_fetched(client_a, site, settings):
    base, _ = site
    kb = _kb(client_a)
    # saved while loopback is allowed (as in tests), then refused at fetch time
    assert _from_url(client_a, kb, base + "/policy.txt").status_code == 202
    settings.TRUTHLENS = {**settings.TRUTHLENS, "WEBHOOK_ALLOWED_HOSTS": []}
    index_all()
    doc = Document.objects.get()
    assert doc.status == "failed"
    assert "non-public address" in doc.error
    for url in (
        base + "/policy.txt",
        "http://169.254.169.254/latest/meta-data/",
        "file:///etc/passwd",
    ):
        refused = _from_url(client_a, kb, url)
        assert refused.status_code == 400, url
        assert refused["Content-Type"].startswith("application/problem+json")
    assert Document.objects.count() == 1


def test_batch_upload_stores_each_file_on_its_own(client_a):
    kb = _kb(client_a)
    files = [
        SimpleUploadedFile("a.txt", b"The first file.", content_type="text/plain"),
        SimpleUploadedFile("b.exe", b"MZ\x90\x00", content_type="application/octet-stream"),
        SimpleUploadedFile("c.md", b"# C\n\nThe third file.", content_type="text/markdown"),
        SimpleUploadedFile("a-again.txt", b"The first file.", content_type="text/plain"),
        SimpleUploadedFile("d.txt", make_pdf("a pdf"), content_type="text/plain"),
    ]
    sent = client_a.post(
        f"/v1/knowledge-bases/{kb}/documents/batch", {"files": files}, format="multipart"
    )
    assert sent.status_code == 200, sent.json()
    body = sent.json()
    assert [(r["name"], r["status"]) for r in body["results"]] == [
        ("a.txt", 202), ("b.exe", 400), ("c.md", 202), ("a-again.txt", 200), ("d.txt", 415),
    ]  # fmt: skip
    assert body["results"][3]["document"]["id"] == body["results"][0]["document"]["id"]
    assert (body["accepted"], body["refused"]) == (3, 2)
    assert Document.objects.count() == 2
    index_all()
    assert set(Document.objects.values_list("status", flat=True)) == {"ready"}
    empty = client_a.post(f"/v1/knowledge-bases/{kb}/documents/batch", {}, format="multipart")
    assert empty.status_code == 400


def test_batch_upload_into_another_tenants_base_is_not_found(client_a, client_b):
    kb = _kb(client_a)
    file = SimpleUploadedFile("a.txt", b"sneaky", content_type="text/plain")
    sent = client_b.post(
        f"/v1/knowledge-bases/{kb}/documents/batch", {"files": [file]}, format="multipart"
    )
    assert sent.status_code == 404
    assert not Document.objects.exists()


def test_document_ready_and_failed_webhook_events(client_a, tenant_a, site):
    base, received = site
    tenant = tenant_a[0]
    endpoint = WebhookEndpoint(
        tenant=tenant, url=base + "/hook", events=["document.ready", "document.failed"]
    )
    endpoint.set_new_secret()
    endpoint.save()
    other = WebhookEndpoint(tenant=tenant, url=base + "/other", events=["verification.completed"])
    other.set_new_secret()
    other.save()
    kb = _kb(client_a)
    for name, raw, kind in (
        ("good.txt", b"All good here.", "text/plain"),
        ("bad.pdf", b"%PDF-1.4 broken", "application/pdf"),
    ):
        file = SimpleUploadedFile(name, raw, content_type=kind)
        client_a.post(f"/v1/knowledge-bases/{kb}/documents", {"file": file}, format="multipart")
    index_all()
    deliveries = {d.event_type: d for d in WebhookDelivery.objects.filter(tenant=tenant)}
    assert set(deliveries) == {"document.ready", "document.failed"}
    assert all(d.endpoint_id == endpoint.pk for d in deliveries.values())
    ready = deliveries["document.ready"].payload
    assert ready["type"] == "document.ready"
    assert (ready["data"]["name"], ready["data"]["status"], ready["data"]["version"]) == (
        "good.txt", "ready", 1,
    )  # fmt: skip
    assert ready["data"]["served_version"] == 1
    failed = deliveries["document.failed"].payload["data"]
    assert failed["status"] == "failed"
    assert "PDF could not be read" in failed["error"]
    assert attempt_delivery(deliveries["document.ready"].pk) == "succeeded"
    [arrived] = received
    assert json.loads(arrived["body"])["type"] == "document.ready"
    assert signing.verify(
        endpoint.signing_secrets()[0], arrived["body"], arrived["headers"][signing.HEADER]
    )


def test_endpoints_may_subscribe_to_document_events(client_a):
    created = client_a.post(
        "/v1/webhook-endpoints",
        {"url": "http://127.0.0.1:9/hook", "events": ["document.ready", "document.failed"]},
        format="json",
    )
    assert created.status_code == 201, created.json()
    assert settings.TRUTHLENS["WEBHOOK_ALLOWED_HOSTS"]
    assert DocumentVersion.objects.count() == 0
