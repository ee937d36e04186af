"""Fairness under load: tenant B's gateway calls while tenant A's batch floods the queue.

Tenant B makes gateway calls (`/v1/chat/completions`, explicit context, lightweight)
alone, then again right after tenant A queued `--flood` async verifications. For each
of B's calls we read its job's verification latency (accepted -> verdict) and the whole
call's time, and print p50/p95 of both, alone against under the flood, with how much of
A's backlog was still waiting while B called (so the figure is measured under load).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/truthlens_fairbench \\
    REDIS_URL=redis://127.0.0.1:6379/7 TRUTHLENS_DETECTOR=embedded \\
    .venv/bin/python bench/gateway_fairness.py [--flood 500] [--calls 10]

One real Celery worker (concurrency 1, every queue, interactive lanes first, as
deployed); the web side runs in-process (Django's test client). Uses the test
settings: `TRUTHLENS_DETECTOR` is `lexical` unless set. The bench's queues and
tenant A's left-over jobs are purged at the start and the end.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/truthlens_fairbench")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import django  # noqa: E402

django.setup()

import redis  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from bench.metrics import percentile  # noqa: E402
from tenants.models import ApiKey, LLMSettings, Tenant  # noqa: E402
from tests.fixtures.fake_llm import FakeLLM  # noqa: E402
from tests.fixtures.workers import ALL_QUEUES, WorkerProcess, _worker_env  # noqa: E402
from verification.models import VerificationJob  # noqa: E402

DOC = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris. "
    "It was built from 1887 to 1889 as the entrance arch to the 1889 World's Fair. "
    "It is 330 metres tall."
)
ANSWER = "The Eiffel Tower was built in 1950 on the Champ de Mars. It is 330 metres tall."


def tenant(slug: str, fake: FakeLLM | None = None) -> tuple[Tenant, APIClient]:
    t, _ = Tenant.objects.get_or_create(slug=slug, defaults={"name": slug})
    if not t.webhook_secret:
        t.rotate_webhook_secret()
        t.save()
    if fake is not None:
        LLMSettings.objects.filter(tenant=t).delete()
        llm = LLMSettings(tenant=t, default_model="openai/primary", api_base=fake.api_base)
        llm.api_key = "sk-bench"
        llm.save()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {ApiKey.issue(t)[1]}")
    return t, client


def purge(*tenants: Tenant) -> None:
    redis.Redis.from_url(settings.CELERY_BROKER_URL).delete(*ALL_QUEUES.split(","))
    VerificationJob.objects.filter(tenant__in=tenants).delete()


def gateway_call(client: APIClient, fake: FakeLLM) -> tuple[float, float]:
    """(ms from the job's acceptance to its verdict, ms for the whole call)."""
    fake.script(ANSWER)
    started = time.perf_counter()
    response = client.post(
        "/v1/chat/completions",
        {"messages": [{"role": "user", "content": "When was the Eiffel Tower built?"}]},
        format="json",
        HTTP_X_TRUTHLENS_CONTEXT=DOC,
        HTTP_X_TRUTHLENS_MODE="lightweight",
    )
    total = (time.perf_counter() - started) * 1000
    assert response.status_code == 200, response.content
    verdict = response.json()["truthlens"]
    if not verdict["verified"]:
        return float("inf"), total  # late: counts as beyond every percentile it reaches
    job = VerificationJob.objects.get(pk=VerificationJob.parse_public_id(verdict["id"]))
    return (job.completed_at - job.created_at).total_seconds() * 1000, total


def flood(client: APIClient, n: int) -> float:
    started = time.perf_counter()
    for i in range(n):
        body = {"context": [DOC], "response": ANSWER, "metadata": {"i": i}}
        response = client.post("/v1/verifications", body, format="json")
        assert response.status_code == 202, response.content
    return time.perf_counter() - started


def backlog(t: Tenant) -> int:
    return VerificationJob.objects.filter(tenant=t, status__in=("queued", "running")).count()


def row(name: str, values: list[float]) -> str:
    def ms(v: float) -> str:
        return f"{v:9.0f}" if v != float("inf") else "     late"

    return f"{name:34} {ms(percentile(values, 0.5))} {ms(percentile(values, 0.95))}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", type=int, default=500, help="tenant A's async jobs")
    parser.add_argument("--calls", type=int, default=10, help="tenant B's gateway calls per run")
    parser.add_argument("--fake-llm-port", type=int, default=0)
    args = parser.parse_args()
    call_command("ensure_database", verbosity=0)
    call_command("migrate", verbosity=0)
    fake = FakeLLM()
    fake.start(args.fake_llm_port)
    a, a_client = tenant("fair-a")
    b, b_client = tenant("fair-b", fake)
    purge(a, b)
    worker = WorkerProcess(
        _worker_env(), Path(tempfile.mkdtemp()) / "worker.log", ALL_QUEUES, False
    )
    worker.wait_ready(timeout=600)
    try:
        gateway_call(b_client, fake)  # warm-up: the detector's first batch
        alone = [gateway_call(b_client, fake) for _ in range(args.calls)]
        seconds = flood(a_client, args.flood)
        before = backlog(a)
        loaded = [gateway_call(b_client, fake) for _ in range(args.calls)]
        after = backlog(a)
    finally:
        worker.stop()
        purge(a, b)
        fake.stop()
    print(
        f"detector={settings.TRUTHLENS['DETECTOR']} batch={settings.TRUTHLENS['DETECT_BATCH_SIZE']}"
        f" calls={args.calls} flood={args.flood} (queued in {seconds:.1f} s; A's backlog "
        f"{before} when B's calls began, {after} when they ended)"
    )
    print(f"{'tenant B':34} {'p50 ms':>9} {'p95 ms':>9}")
    print(row("verification, alone", [v for v, _ in alone]))
    print(row("verification, under A's flood", [v for v, _ in loaded]))
    print(row("whole call, alone", [t for _, t in alone]))
    print(row("whole call, under A's flood", [t for _, t in loaded]))


if __name__ == "__main__":
    main()
