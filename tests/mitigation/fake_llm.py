"""A scriptable OpenAI-compatible chat server that stands in for LLM providers in tests.

It speaks just enough of `/v1/chat/completions` for litellm's `openai/` provider:
each request pops the next scripted reply (or asks a per-test `responder`), so a
test can say "429, then this answer", "answer slowly", "reply with broken JSON".
Every request body is kept so a test can assert what the prompts contained.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer: a completion, an HTTP error, a delay or a raw body."""

    content: str = ""
    status: int = 200
    delay: float = 0.0
    prompt_tokens: int = 20
    completion_tokens: int = 10
    raw: str | None = None  # sent verbatim instead of a well-formed completion
    headers: dict[str, str] = field(default_factory=dict)
    tool_calls: list[dict[str, Any]] | None = None  # an assistant turn that calls tools
    choices: list[str] | None = None  # `n` answers (else `content`, once)
    token_delay: float = 0.0  # seconds between streamed words


Responder = Callable[[dict[str, Any]], Reply]


class FakeLLM:
    """State shared by the handler threads: the reply queue and the request log."""

    def __init__(self) -> None:
        self.queue: deque[Reply] = deque()
        self.responder: Responder | None = None
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.server: ThreadingHTTPServer | None = None
        self.thread: threading.Thread | None = None

    @property
    def api_base(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def script(self, *replies: Reply | str) -> None:
        """Queue replies; a plain string is a normal completion with that text."""
        for r in replies:
            self.queue.append(Reply(content=r) if isinstance(r, str) else r)

    def reset(self) -> None:
        with self.lock:
            self.queue.clear()
            self.requests.clear()
            self.responder = None

    def next_reply(self, body: dict[str, Any]) -> Reply:
        with self.lock:
            self.requests.append(body)
            if self.queue:
                return self.queue.popleft()
            responder = self.responder
        if responder is not None:
            return responder(body)
        return Reply(status=500, raw='{"error": {"message": "fake server: no reply scripted"}}')

    def start(self) -> None:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                reply = fake.next_reply(body)
                if reply.delay:
                    time.sleep(reply.delay)
                if body.get("stream") and reply.status == 200 and reply.raw is None:
                    self._stream(body, reply)
                    return
                if reply.raw is not None:
                    payload = reply.raw.encode()
                elif reply.status != 200:
                    msg = {"error": {"message": f"scripted {reply.status}", "type": "fake"}}
                    payload = json.dumps(msg).encode()
                else:
                    payload = json.dumps(_completion(body, reply)).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and left; that is the point of slow replies

            def _stream(self, body: dict[str, Any], reply: Reply) -> None:
                """Server-sent events like OpenAI's: word chunks, a usage chunk, [DONE]."""
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                if reply.tool_calls:
                    calls = [{"index": i, **c} for i, c in enumerate(reply.tool_calls)]
                    chunk = _chunk(body, {"role": "assistant", "tool_calls": calls}, None)
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                words = reply.content.split(" ") if reply.content else []
                for i, word in enumerate(words):
                    if reply.token_delay:
                        time.sleep(reply.token_delay)
                    piece = word if i == 0 else " " + word
                    chunk = _chunk(body, {"content": piece}, None)
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                    self.wfile.flush()
                done = _chunk(body, {}, "tool_calls" if reply.tool_calls else "stop")
                done["usage"] = _completion(body, reply)["usage"]
                self.wfile.write(b"data: " + json.dumps(done).encode() + b"\n\n")
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def _completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    if reply.tool_calls:
        message = {"role": "assistant", "content": None, "tool_calls": reply.tool_calls}
        choices = [{"index": 0, "message": message, "finish_reason": "tool_calls"}]
    else:
        choices = [
            {
                "index": i,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
            for i, text in enumerate(reply.choices or [reply.content])
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": choices,
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
    }


def _chunk(body: dict[str, Any], delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
