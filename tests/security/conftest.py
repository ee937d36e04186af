"""A real gunicorn (deploy/gunicorn.conf.py) on the test database, for the tests that need
the server's own behaviour: chunked bodies, its error pages, Schemathesis over HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.fixtures.workers import _worker_env

ROOT = Path(__file__).resolve().parents[2]
PORTS = range(18210, 18230)  # this suite's share of the machine's ports


def _free_port() -> int:
    for port in PORTS:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {PORTS.start}-{PORTS.stop - 1}")


@pytest.fixture(scope="module")
def gunicorn(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[Callable[..., str]]:
    """`gunicorn(**env)` starts one (1 worker, 4 threads) and returns its base URL; every
    one started is stopped after the module."""
    started: list[subprocess.Popen] = []

    def start(**overrides: str) -> str:
        port = _free_port()
        log = tmp_path_factory.mktemp("gunicorn") / "gunicorn.log"
        with django_db_blocker.unblock():
            env = _worker_env(
                GUNICORN_BIND=f"127.0.0.1:{port}",
                GUNICORN_WORKERS="1",
                GUNICORN_THREADS="4",
                **overrides,
            )
        env.pop("GUNICORN_METRICS_BIND", None)
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "config.wsgi", "-c", "deploy/gunicorn.conf.py"],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        started.append(proc)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, log.read_text()[-3000:]
            try:
                if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                    return base
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.3)

    yield start
    for proc in started:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)
