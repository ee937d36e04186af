"""Webhook SSRF: internal targets refused at registration and at delivery, no redirects, no rebinding."""

from __future__ import annotations

import contextlib
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from security import urlguard
from verification.models import VerificationJob, WebhookAttempt, WebhookDelivery
from verification.webhooks import delivery as transport
from verification.webhooks.dispatch import attempt_delivery

pytestmark = pytest.mark.django_db

INTERNAL = [
    "http://127.0.0.1:8000/hook",
    "http://localhost/hook",
    "http://[::1]/hook",
    "http://10.0.0.5/hook",
    "http://192.168.0.10/hook",
    "http://172.20.1.1/hook",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fe80::1]/hook",
    "http://[::ffff:10.0.0.1]/hook",
    "http://0.0.0.0/hook",
    "http://[64:ff9b::7f00:1]/hook",
    "http://[64:ff9b::a9fe:a9fe]/latest/meta-data/",
    "http://[2002:7f00:1::]/hook",
    "http://[::127.0.0.1]/hook",
    "http://192.0.0.8/hook",
]


@pytest.fixture
def no_allowed_hosts(settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "WEBHOOK_ALLOWED_HOSTS": []}


@pytest.mark.parametrize("url", INTERNAL)
def test_internal_webhook_urls_are_refused_when_registered(client_a, no_allowed_hosts, url, eiffel):
    endpoint = client_a.post("/v1/webhook-endpoints", {"url": url}, format="json")
    assert endpoint.status_code == 400, endpoint.json()
    assert endpoint.json()["errors"][0]["field"] == "url"
    callback = client_a.post("/v1/verifications", eiffel.request(callback_url=url), format="json")
    assert callback.status_code == 400
    assert callback.json()["errors"][0]["field"] == "callback_url"


class _Resolver:
    """getaddrinfo that answers a public address first, then an internal one (DNS rebinding)."""

    def __init__(self, *answers: str):
        self.answers = list(answers)
        self.calls = 0

    def __call__(self, host, port, *args, **kwargs):
        address = self.answers[min(self.calls, len(self.answers) - 1)]
        self.calls += 1
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]


@pytest.fixture
def no_network(monkeypatch) -> list[tuple[str, dict]]:
    sent: list[tuple[str, dict]] = []

    @contextlib.contextmanager
    def fake_stream(self, method, url, **kwargs):
        sent.append((str(url), kwargs))
        yield httpx.Response(200, request=httpx.Request(method, url))

    # the webhook transport streams its POST (to keep only the start of the answer);
    # `send` is patched too, so nothing can leave the machine by either door
    monkeypatch.setattr(httpx.Client, "stream", fake_stream)
    monkeypatch.setattr(httpx.Client, "send", lambda *a, **k: pytest.fail("unexpected send"))
    return sent


def test_dns_rebinding_at_delivery_is_refused(
    client_a, tenant_a, eiffel, no_allowed_hosts, monkeypatch, no_network
):
    # given a host that resolves to a public address when the endpoint is registered
    resolver = _Resolver("93.184.216.34", "10.0.0.7")
    monkeypatch.setattr(urlguard.socket, "getaddrinfo", resolver)
    created = client_a.post(
        "/v1/webhook-endpoints", {"url": "http://rebind.example/hook"}, format="json"
    )
    assert created.status_code == 201
    # when, at delivery, the same name resolves to an internal address
    job = VerificationJob.objects.get(
        pk=VerificationJob.parse_public_id(
            client_a.post("/v1/verifications", eiffel.request(), format="json").json()["id"]
        )
    )
    delivery = WebhookDelivery.objects.create(
        tenant=tenant_a.tenant,
        job=job,
        url="http://rebind.example/hook",
        event_id="evt_rebind",
        event_type="verification.completed",
        payload={"id": "evt_rebind"},
    )
    attempt_delivery(delivery.pk)
    # then nothing was sent and the attempt says why
    assert no_network == []
    attempt = WebhookAttempt.objects.get(delivery=delivery)
    assert attempt.status_code is None
    assert attempt.error.startswith("refused")
    assert resolver.calls == 2


def test_delivery_connects_to_the_vetted_address_not_a_second_lookup(monkeypatch, no_network):
    # the checked address is pinned: the HTTP client never resolves the name itself
    monkeypatch.setattr(urlguard.socket, "getaddrinfo", _Resolver("93.184.216.34", "10.0.0.7"))
    result = transport.send("http://rebind.example/hook", "s", {"id": "e"}, 5, [])
    assert result.ok
    url, kwargs = no_network[0]
    assert url == "http://93.184.216.34:80/hook"
    assert kwargs["headers"]["Host"] == "rebind.example"


def test_redirects_are_not_followed():
    # given a receiver that redirects to an internal path on the same host
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # http.server API
            hits.append(self.path)
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(307 if self.path == "/hook" else 200)
            self.send_header("Location", "/internal-admin")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        # when one attempt is made
        url = f"http://127.0.0.1:{server.server_address[1]}/hook"
        result = transport.send(url, "secret", {"id": "evt_1"}, 5, ["127.0.0.1"])
    finally:
        server.shutdown()
        server.server_close()
    # then the redirect is a failed attempt and its target was never called
    assert not result.ok
    assert result.status_code == 307
    assert hits == ["/hook"]


@pytest.mark.parametrize("url", ["http://[64:ff9b::7f00:1]/hook", "http://[2002:7f00:1::]/hook"])
def test_the_worker_refuses_embedded_ipv4_at_delivery(no_network, url):
    # an endpoint stored before the guard knew these forms is still never called
    result = transport.send(url, "s", {"id": "e"}, 5, ["127.0.0.1", "localhost"])
    assert not result.ok
    assert result.error.startswith("refused")
    assert no_network == []
