"""Latency the streaming gateway adds after the upstream's last token (p50/p95).

A local fake upstream streams a multi-sentence answer word by word; the gateway
relays it, checks sentences as they complete and verifies the answer as a job on
a real Celery worker. For each request we time, at the client, the gap between
the chunk carrying the last upstream word and the end of the stream ([DONE]),
which is what the gateway adds: the last sentences' annotations and the final
verdict. A pass-through run (no context: nothing to verify) is the baseline.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/truthlens_gwbench \
    REDIS_URL=redis://127.0.0.1:6379/7 .venv/bin/python bench/gateway_stream.py [--n 30]

Uses the test settings (TRUTHLENS_DETECTOR=lexical unless set); the web side runs
in-process (Django's test client, no sockets), so the figure has no network in it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/truthlens_gwbench")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from bench.metrics import percentile  # noqa: E402
from tenants.llm_providers import LLMProvider  # noqa: E402
from tenants.models import ApiKey, Tenant  # noqa: E402
from tenants.provider_actions import save_provider  # noqa: E402
from tests.fixtures.fake_llm import FakeLLM, Reply  # noqa: E402
from tests.fixtures.workers import ALL_QUEUES, WorkerProcess, _worker_env  # noqa: E402

DOC = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris. "
    "It was built from 1887 to 1889 as the entrance arch to the 1889 World's Fair. "
    "It is 330 metres tall and was the tallest man-made structure until 1930."
)
ANSWER = (
    "The Eiffel Tower stands on the Champ de Mars in Paris. It was built in 1950 for a "
    "world fair. It is 330 metres tall. It was the tallest structure in the world until 1930."
)


def tenant_and_key(fake: FakeLLM) -> str:
    tenant, _ = Tenant.objects.get_or_create(slug="gw-bench", defaults={"name": "Gateway bench"})
    if not tenant.webhook_secret:
        tenant.rotate_webhook_secret()
        tenant.save()
    LLMProvider.objects.filter(tenant=tenant).delete()
    save_provider(
        tenant,
        {
            "name": "Fake",
            "model_prefix": "openai/",
            "model_names": ["primary"],
            "api_base": fake.api_base,
            "api_key": "sk-bench",
        },
    )
    return ApiKey.issue(tenant)[1]


def one(
    client: APIClient, fake: FakeLLM, grounded: bool, token_delay: float
) -> tuple[float, float]:
    """(seconds from the last word to the last sentence annotation, ... to [DONE])."""
    fake.script(Reply(content=ANSWER, token_delay=token_delay))
    system = f"Answer from this document: {DOC}" if grounded else "You are a helpful assistant."
    response = client.post(
        "/v1/chat/completions",
        {
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": "Tell me about the Eiffel Tower."},
            ],
            "stream": True,
        },
        format="json",
        HTTP_X_TRUTHLENS_MODE="lightweight",
    )
    assert response.status_code == 200, response.content
    last_word = last_note = None
    buffer = b""
    for piece in response.streaming_content:
        buffer += piece
        while b"\n\n" in buffer:
            event, buffer = buffer.split(b"\n\n", 1)
            data = event.removeprefix(b"data: ")
            if data == b"[DONE]":
                done = time.perf_counter()
                return (last_note or last_word) - last_word, done - last_word
            chunk = json.loads(data)
            if (chunk.get("truthlens") or {}).get("annotations"):
                last_note = time.perf_counter()
            if any((c.get("delta") or {}).get("content") for c in chunk.get("choices") or []):
                last_word = time.perf_counter()
    raise RuntimeError("stream ended without [DONE]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--token-delay", type=float, default=0.02)
    args = parser.parse_args()
    call_command("ensure_database", verbosity=0)
    call_command("migrate", verbosity=0)
    fake = FakeLLM()
    fake.start()
    token = tenant_and_key(fake)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    log = Path(tempfile.mkdtemp()) / "worker.log"
    worker = WorkerProcess(_worker_env(), log, ALL_QUEUES, False)
    worker.wait_ready()
    try:
        one(client, fake, True, 0.0)  # warm-up: detector and classifier loads
        results = {}
        for name, grounded in (("pass-through (no context)", False), ("verified", True)):
            runs = [one(client, fake, grounded, args.token_delay) for _ in range(args.n)]
            if grounded:
                results["verified: last annotation"] = [note * 1000 for note, _ in runs]
            results[f"{name}: [DONE]"] = [done * 1000 for _, done in runs]
    finally:
        worker.stop()
        fake.stop()
    print(
        f"detector={settings.TRUTHLENS['DETECTOR']} n={args.n} "
        f"words={len(ANSWER.split())} token_delay={args.token_delay}s"
    )
    print(f"{'after the last upstream word':36} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for name, gaps in results.items():
        print(
            f"{name:36} {percentile(gaps, 0.5):8.1f} {percentile(gaps, 0.95):8.1f} {max(gaps):8.1f}"
        )


if __name__ == "__main__":
    main()
