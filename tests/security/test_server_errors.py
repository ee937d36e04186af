"""Through the real server (gunicorn with deploy/gunicorn.conf.py, DEBUG on as `make run`):
chunked bodies are read with the size limit, and every error is problem+json, also
those gunicorn answers itself and Django's 404 for an unrouted path.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading

import httpx
import pytest

from tests.fixtures.examples import EIFFEL
from verification.models import VerificationJob

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def server(gunicorn) -> str:
    return gunicorn(DEBUG="true", TRUTHLENS_MAX_BODY_BYTES="65536")


def _raw(base: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send `request` as is, as a keep-alive client does (sending while the answer may
    already come); (status, headers, body) of the answer."""
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sender = threading.Thread(target=_send_all, args=(sock, request), daemon=True)
        sender.start()
        received = b""
        while b"\r\n\r\n" not in received and (data := sock.recv(65536)):
            received += data
        head, _, body = received.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {
            k.lower(): v for k, v in (line.split(": ", 1) for line in lines[1:] if ": " in line)
        }
        if headers.get("transfer-encoding") == "chunked":
            while not body.endswith(b"0\r\n\r\n") and (data := sock.recv(65536)):
                body += data
            body = _dechunk(body)
        while len(body) < int(headers.get("content-length", 0)) and (data := sock.recv(65536)):
            body += data
    return int(lines[0].split()[1]), headers, body


def _dechunk(data: bytes) -> bytes:
    out = b""
    while True:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line, 16)
        if not size:
            return out
        out, data = out + data[:size], data[size + 2 :]


def _send_all(sock: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):  # the server may answer and close before the end
        sock.sendall(data)


def _chunked(body: bytes, size: int = 1000) -> bytes:
    parts = [body[i : i + size] for i in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"


def _post_chunked(base: str, token: str, body: bytes):
    head = (
        "POST /v1/verifications HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    )
    return _raw(base, head.encode() + _chunked(body))


def _problem(status, headers, body, expected: int) -> dict:
    assert status == expected, body[:500]
    assert headers["content-type"] == "application/problem+json", headers
    problem = json.loads(body)
    assert problem["status"] == expected
    assert problem["type"].startswith("https://docs.truthlens.dev/problems/")
    return problem


def test_a_chunked_json_body_is_read(server, tenant_a):
    status, _, body = _post_chunked(server, tenant_a.token, json.dumps(EIFFEL.request()).encode())
    assert status == 202, body[:500]
    assert VerificationJob.objects.get().response == EIFFEL.response


def test_a_chunked_body_over_the_limit_is_413(server, tenant_a):
    big = json.dumps(EIFFEL.request(context=["x" * 200_000])).encode()
    problem = _problem(*_post_chunked(server, tenant_a.token, big), 413)
    assert "65536" in problem["detail"]
    assert not VerificationJob.objects.exists()


def test_an_unrouted_path_under_debug_is_problem_json_without_the_url_list(server):
    response = httpx.get(server + "/no/such/page")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    assert "dashboard/" not in response.text
    assert "URLconf" not in response.text


def test_an_overlong_request_line_is_a_problem_json_414(server):
    request = b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    _problem(*_raw(server, request), 414)


def test_too_many_headers_are_a_problem_json_431(server):
    headers = b"".join(b"X-Fill-%d: x\r\n" % i for i in range(150))
    _problem(*_raw(server, b"GET /healthz HTTP/1.1\r\nHost: a\r\n" + headers + b"\r\n"), 431)


def test_an_oversized_header_is_a_problem_json_431(server):
    # over gunicorn's 64 KiB field limit (the gateway lets 8 KiB context headers through)
    request = b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: " + b"x" * 70_000 + b"\r\n\r\n"
    _problem(*_raw(server, request), 431)


def test_a_host_not_allowed_under_debug_is_a_problem_json_400(server):
    request = b"GET /healthz HTTP/1.1\r\nHost: not-allowed.invalid\r\n\r\n"
    _problem(*_raw(server, request), 400)


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"NOT HTTP AT ALL\r\n\r\n",
        b"GET /healthz HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n",
        b"POST /v1/verifications HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ],
)
def test_malformed_http_is_a_problem_json_400(server, request_bytes):
    _problem(*_raw(server, request_bytes), 400)
