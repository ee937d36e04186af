"""Knowledge-base fixtures: a PDF built by hand, in-process indexing, a fake search API."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from knowledge import indexing
from knowledge.models import DocumentVersion


def make_pdf(text: str) -> bytes:
    """A one-page PDF whose text layer is `text` (Latin-1, one line)."""
    stream = b"BT /F1 12 Tf 72 720 Td (" + text.encode("latin-1") + b") Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return out


def index_all() -> None:
    """Run the indexing task body for every document with a queued version, as a worker would."""
    queued = DocumentVersion.objects.filter(status="queued").values_list("document_id", flat=True)
    for pk in sorted(set(queued)):
        indexing.run(pk)


class FakeSearch:
    """A Tavily-shaped search API on loopback: answers every query with `results`."""

    def __init__(self) -> None:
        self.results: list[dict] = []
        self.requests: list[dict] = []
        self.status = 200
        self.url = ""


@pytest.fixture
def fake_search():
    fake = FakeSearch()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            fake.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
            payload = json.dumps({"results": fake.results}).encode()
            self.send_response(fake.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield fake
    server.shutdown()
    server.server_close()
