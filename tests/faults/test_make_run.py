"""`make run` keeps serving when one of its processes dies: supervisord starts it again.

The four processes (web, worker, indexer, beat) run exactly as `scripts/run.sh` starts them (deploy/supervisord.dev.conf),
against the test database. The worker is SIGKILLed (with its pool children) under a steady
stream of verifications; every request must still be accepted and every accepted job completed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.fixtures.examples import EIFFEL
from tests.fixtures.workers import ROOT, _worker_env, wait_until
from verification.models import VerificationJob

from .services import free_port

pytestmark = [pytest.mark.faults, pytest.mark.worker, pytest.mark.django_db(transaction=True)]


class MakeRun:
    """supervisord with `make run`'s configuration, in its own process group."""

    def __init__(self, env: dict[str, str], run_dir: Path):
        self.port, self.metrics_port = free_port(), free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = run_dir / "out.log"
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        env = {
            **env,
            "TRUTHLENS_RUN_DIR": str(run_dir),
            "GUNICORN_BIND": f"127.0.0.1:{self.port}",
            "GUNICORN_METRICS_BIND": f"127.0.0.1:{self.metrics_port}",
            "GUNICORN_WORKERS": "1",
        }
        self.proc = subprocess.Popen(
            [str(ROOT / ".venv/bin/supervisord"), "-c", "deploy/supervisord.dev.conf"],
            cwd=ROOT,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def log(self) -> str:
        return self.log_path.read_bytes().decode(errors="replace")

    def child(self, name: str) -> int:
        """The pid of the program `name` (a direct child of supervisord)."""
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text()
        for pid in map(int, children.split()):
            with contextlib.suppress(FileNotFoundError):
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                if name == "web" and b"gunicorn" in cmdline:
                    return pid
                # the indexer is a celery worker too, on the `index` queue only
                indexer = b"index" in cmdline
                if name == "worker" and b"worker" in cmdline and not indexer:
                    return pid
                if name == "indexer" and indexer:
                    return pid
                if name == "beat" and b"beat" in cmdline:
                    return pid
        raise LookupError(name)

    def child_or_none(self, name: str) -> int | None:
        try:
            return self.child(name)
        except (LookupError, FileNotFoundError):
            return None

    def ready(self) -> bool:
        try:
            up = httpx.get(self.base_url + "/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False
        return up and self.log().count(" ready.") >= 1

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)  # supervisord stops its programs
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self._log.close()


class Load(threading.Thread):
    """A steady stream of verifications (about 4 a second) until stopped."""

    def __init__(self, base_url: str, token: str):
        super().__init__(daemon=True)
        self.client = httpx.Client(
            base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=30
        )
        self.accepted: list[str] = []
        self.refused: list[str] = []
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.is_set():
            try:
                response = self.client.post("/v1/verifications", json=EIFFEL.request())
                if response.status_code in (200, 202):
                    self.accepted.append(response.json()["id"])
                else:
                    self.refused.append(f"{response.status_code} {response.text[:200]}")
            except httpx.HTTPError as exc:
                self.refused.append(repr(exc))
            self.halt.wait(0.25)


@pytest.fixture
def make_run(transactional_db, tmp_path):
    env = _worker_env(
        TRUTHLENS_JOB_LEASE_SECONDS="3",
        # jobs are still in flight when the kill lands
        TRUTHLENS_FAULT_DETECT_SLEEP_SECONDS="1",
        DEBUG="false",
    )
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    stack = MakeRun(env, tmp_path)
    try:
        assert wait_until(stack.ready, timeout=180, interval=0.5), stack.log()[-5000:]
        yield stack
    finally:
        stack.stop()


def test_a_killed_worker_is_restarted_and_no_request_or_job_is_lost(make_run, tenant_a):
    # given a steady load on the running stack
    load = Load(make_run.base_url, tenant_a.token)
    load.start()
    assert wait_until(lambda: len(load.accepted) >= 8, timeout=60), load.refused
    worker = make_run.child("worker")
    # when the worker and its pool are SIGKILLed
    os.killpg(worker, signal.SIGKILL)
    # then supervisord says so and starts it again, while web keeps accepting
    assert wait_until(
        lambda: "exited: worker (terminated by SIGKILL" in make_run.log(), timeout=30
    ), make_run.log()[-3000:]
    assert wait_until(lambda: make_run.child_or_none("worker") not in (None, worker), timeout=60)
    time.sleep(8)  # keep the load on while the new worker starts
    load.halt.set()
    load.join(timeout=60)
    assert load.refused == []
    # and every accepted job completes, once
    ids = [VerificationJob.parse_public_id(i) for i in load.accepted]
    assert len(ids) >= 20

    def all_done() -> bool:
        return VerificationJob.objects.filter(pk__in=ids, status="completed").count() == len(ids)

    assert wait_until(all_done, timeout=180, interval=1), (
        list(
            VerificationJob.objects.filter(pk__in=ids)
            .exclude(status="completed")
            .values_list("status", "stage")
        ),
        make_run.log()[-4000:],
    )
    assert VerificationJob.objects.filter(pk__in=ids).count() == len(set(ids))
    assert "spawned: 'worker'" in make_run.log()
    print(f"make run under a worker SIGKILL: {len(ids)} accepted, {len(ids)} completed, 0 refused")


def test_metrics_answer_only_on_their_own_port(make_run):
    assert httpx.get(make_run.base_url + "/metrics", timeout=5).status_code == 404
    scraped = httpx.get(f"http://127.0.0.1:{make_run.metrics_port}/metrics", timeout=10)
    assert scraped.status_code == 200
    assert "django_http_requests" in scraped.text
