"""Gunicorn settings; threads because `"wait": N` requests block on I/O, not CPU.

Containers set `GUNICORN_BIND=0.0.0.0:8000` and `GUNICORN_METRICS_BIND=0.0.0.0:9100`.
With a metrics bind, `/metrics` answers only on that port and the public port answers
404 for it. A NetworkPolicy works on ports, not paths, so this split lets it restrict
scraping to Prometheus while leaving the API open. Keep `localhost` in ALLOWED_HOSTS:
probes and scrapes present themselves as it.

With `PROMETHEUS_MULTIPROC_DIR` set (the images set it), each worker process writes its
samples there and `/metrics` sums them, so one scrape sees every gunicorn worker.
"""

import json
import os

from gunicorn import util as gunicorn_util

bind = [os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")]
_metrics_bind = os.environ.get("GUNICORN_METRICS_BIND", "")
if _metrics_bind:
    bind.append(_metrics_bind)
workers = int(os.environ.get("GUNICORN_WORKERS", "2"))
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS", "16"))
timeout = 60
graceful_timeout = 30
accesslog = "-"
# A header field up to 64 KiB reaches the app (gunicorn's default: 8190 bytes, refused with
# an HTML 431 the SDKs cannot read), so the gateway answers an oversize X-TruthLens-Context
# with a JSON 431 naming the body field to use (`api.gateway.options.MAX_CONTEXT_HEADER_BYTES`).
limit_request_field_size = 65536

_NOT_FOUND = b'{"type": "about:blank", "title": "Not Found", "status": 404}'


def _is_metrics_path(path: str) -> bool:
    return path == "/metrics" or path.startswith("/metrics/")


def _local_port(environ) -> int | None:
    # The accepted socket tells the real listener; SERVER_PORT comes from the
    # client's Host header and could be forged to reach /metrics publicly.
    sock = environ.get("gunicorn.socket")
    try:
        return int(sock.getsockname()[1])
    except (AttributeError, OSError, TypeError, IndexError, ValueError):
        return None


def split_metrics_port(app, metrics_port: int):
    """Wrap a WSGI app: `/metrics` only on `metrics_port`, nothing else there."""

    def guarded(environ, start_response):
        on_metrics_port = _local_port(environ) == metrics_port
        if _is_metrics_path(environ.get("PATH_INFO", "")) != on_metrics_port:
            start_response(
                "404 Not Found",
                [
                    ("Content-Type", "application/problem+json"),
                    ("Content-Length", str(len(_NOT_FOUND))),
                ],
            )
            return [_NOT_FOUND]
        if on_metrics_port:
            # Scrapers send the pod address as Host, which ALLOWED_HOSTS rejects; this
            # port is reachable only by Prometheus, so answer as the local host.
            environ["HTTP_HOST"] = "localhost"
        return app(environ, start_response)

    return guarded


def post_worker_init(worker):
    if _metrics_bind:
        worker.wsgi = split_metrics_port(worker.wsgi, int(_metrics_bind.rsplit(":", 1)[1]))


def child_exit(server, worker):
    # Drop a dead worker's live gauges from the shared directory.
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # gunicorn reads this file before the app is imported: keep it light
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


# --- gunicorn's own errors in problem+json ---------------------------------------------
# A request line over `limit_request_line` (414), too many or too large headers (431),
# malformed HTTP or chunking (400), a refused proxy header (403): gunicorn answers these
# itself, before the app runs, with the HTML page of `gunicorn.util.write_error`. The
# workers are forked from this process, so replacing that function here replaces it in
# every worker. The `type` URIs are the API's (api/errors.py, docs/api.md "Errors").

_PROBLEM_BASE = "https://docs.truthlens.dev/problems/"
_SERVER_SLUGS = {
    400: "invalid-request",
    403: "forbidden",
    414: "uri-too-long",
    417: "expectation-failed",
    431: "request-header-fields-too-large",
    500: "internal-error",
}


def problem_bytes(status: int, reason: str, detail: str) -> bytes:
    """The whole HTTP response (head and body) for an error gunicorn answers itself."""
    body = json.dumps(
        {
            "type": _PROBLEM_BASE + _SERVER_SLUGS.get(status, "error"),
            "title": reason,
            "status": status,
            # gunicorn's message names the limit or the bad part; JSON escapes any quoted bytes
            "detail": detail[:500] or reason,
        }
    ).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/problem+json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


def _write_problem(sock, status_int, reason, mesg):
    gunicorn_util.write_nonblock(sock, problem_bytes(status_int, reason, mesg))


gunicorn_util.write_error = _write_problem
