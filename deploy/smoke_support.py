"""A webhook receiver on loopback and a polling helper for deploy/smoke.py (stdlib only)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Hit:
    path: str
    headers: dict[str, str]
    body: bytes


class Receiver:
    """Answers 200 to every POST on 127.0.0.1 and keeps what it received."""

    def __init__(self) -> None:
        self.received: list[Hit] = []
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                received.append(Hit(self.path, dict(self.headers.items()), body))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def __enter__(self) -> Receiver:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def wait_for(self, count: int, timeout: float) -> bool:
        return wait_for(lambda: len(self.received) >= count, timeout)


def wait_for(condition, timeout: float, interval: float = 1.0) -> bool:
    """Poll condition() until it is true or timeout seconds pass; errors count as false."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if condition():
                return True
        except Exception:
            pass
        time.sleep(interval)
    return False
