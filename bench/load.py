"""Load test on loopback: real gunicorn, real Celery workers, a local fake LLM server.

Drives `POST /v1/verifications` for a fixed time from a few client threads with a
mix of lightweight and standard (self-refine through the fake LLM) jobs, then
waits a bounded grace period and prints accepted/s, API latency percentiles,
end-to-end completion latency, errors and the lost-job count (accepted but not
final after the grace period; must be 0) and duplicate usage rows (must be 0).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/truthlens_load \\
    REDIS_URL=redis://127.0.0.1:6379/11 \\
    python bench/load.py --duration 300 [--rate 0.8] [--clients 4] [--standard-share 0.3]

Everything runs on 127.0.0.1 and stops by itself. The database named in
DATABASE_URL is created and migrated if needed (use a dedicated one); the Redis
database in REDIS_URL is used as broker and cache.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CONTEXT = [
    "The Eiffel Tower is a wrought-iron lattice tower in Paris. It was built from 1887 "
    "to 1889 and is 330 metres tall."
]
ANSWERS = [
    "The Eiffel Tower was built in 1950 and is 330 metres tall.",
    "The Eiffel Tower was built from 1887 to 1889 and is 330 metres tall.",
    "The Eiffel Tower, in Paris, is 410 metres tall.",
]
CORRECTED = "The Eiffel Tower was built from 1887 to 1889 and is 330 metres tall."


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


class Proc:
    def __init__(
        self, name: str, cmd: list[str], env: dict[str, str], logdir: Path, cwd: Path = ROOT
    ):
        self.name = name
        self.log_path = logdir / f"{name}.log"
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_for(self, marker: bytes, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited:\n{self.log_path.read_text()[-3000:]}")
            if marker in self.log_path.read_bytes():
                return
            time.sleep(0.3)
        raise RuntimeError(f"{self.name} not ready after {timeout}s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=30)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
        self._log.close()


def _setup_database(env: dict[str, str]) -> None:
    for args in (["ensure_database"], ["migrate", "--noinput", "-v", "0"]):
        subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, timeout=600
        )


def _tenants(llm_base: str) -> dict[str, str]:
    """A lightweight tenant and a standard one whose LLM is the fake server; their keys."""
    from tenants.models import ApiKey, Plan, Policy, Tenant
    from tenants.provider_actions import save_provider

    plan, _ = Plan.objects.get_or_create(
        name="load-bench", defaults={"rate_limit": "100000/min", "monthly_quota": 0}
    )
    tokens = {}
    suffix = f"{int(time.time())}"
    for mode in ("lightweight", "standard"):
        tenant = Tenant(slug=f"load-{mode}-{suffix}", name=f"load {mode}", plan=plan)
        tenant.rotate_webhook_secret()
        tenant.save()
        Policy.objects.create(tenant=tenant, document={"default_mode": mode})
        if mode == "standard":
            save_provider(
                tenant,
                {
                    "name": "Fake",
                    "model_prefix": "openai/",
                    "model_names": ["primary"],
                    "api_base": llm_base,
                    "api_key": "sk-load",
                    "timeout_seconds": 30,
                    "price_table": {"primary": {"input": 1.0, "output": 2.0}},
                },
            )
        _, tokens[mode] = ApiKey.issue(tenant)
    return tokens


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=60, help="seconds of load")
    parser.add_argument("--clients", type=int, default=4, help="concurrent client threads")
    parser.add_argument("--standard-share", type=float, default=0.3)
    parser.add_argument(
        "--rate",
        type=float,
        default=0.8,
        help="offered load, requests/s (open loop: sent on schedule, not after the previous one)",
    )
    parser.add_argument("--grace", type=float, default=180, help="max wait for stragglers (s)")
    parser.add_argument("--llm-delay", type=float, default=0.2, help="fake LLM latency (s)")
    parser.add_argument("--detector", default=os.environ.get("TRUTHLENS_DETECTOR", "lexical"))
    parser.add_argument("--gunicorn-workers", type=int, default=2)
    parser.add_argument("--detect-concurrency", type=int, default=1)
    parser.add_argument("--mitigate-concurrency", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=os.environ.get(
            "DATABASE_URL", "postgres://postgres@127.0.0.1:5432/truthlens_load"
        ),
        REDIS_URL=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/11"),
        TRUTHLENS_DETECTOR=args.detector,
        TRUTHLENS_SWEEP_INTERVAL_SECONDS="5",
        TRUTHLENS_JOB_LEASE_SECONDS="120",
        TRUTHLENS_LLM_ALLOWED_HOSTS="127.0.0.1",  # the fake LLM server
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
        PYTHONPATH=str(ROOT),
    )
    env["CELERY_BROKER_URL"] = env["REDIS_URL"]
    os.environ.update({k: env[k] for k in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL")})
    _setup_database(env)

    import django

    django.setup()
    import httpx

    # The bench owns its database and Redis db: start without leftovers of an earlier run
    # (their queued jobs would be served first and counted against this run's latency).
    import redis
    from django.db.models import Count

    from tests.fixtures.fake_llm import FakeLLM, Reply
    from verification.models import UsageRecord, VerificationJob

    VerificationJob.objects.filter(status__in=["queued", "running"]).update(
        status="failed", error_code="bench_reset"
    )
    redis.Redis.from_url(env["REDIS_URL"]).delete(
        "detect", "mitigate", "webhooks", "maintenance", "unacked", "unacked_index"
    )
    llm = FakeLLM()
    llm.responder = lambda body: Reply(content=CORRECTED, delay=args.llm_delay)
    llm.start()
    tokens = _tenants(llm.api_base)
    logdir = Path(tempfile.mkdtemp(prefix="truthlens-load-"))
    port = _free_port()
    celery = [sys.executable, "-m", "celery", "-A", "workers", "worker", "-l", "INFO"]
    procs: list[Proc] = []
    try:
        web = Proc(
            "gunicorn",
            [sys.executable, "-m", "gunicorn", "config.wsgi", "-c", "deploy/gunicorn.conf.py"],
            {
                **env,
                "GUNICORN_BIND": f"127.0.0.1:{port}",
                "GUNICORN_WORKERS": str(args.gunicorn_workers),
                "GUNICORN_THREADS": "8",
            },
            logdir,
        )
        procs.append(web)
        detect_cmd = [*celery, "-Q", "detect,maintenance", "-c", str(args.detect_concurrency)]
        detect_cmd += ["-n", f"load-detect-{port}@%h", "-B", "-s", str(logdir / "beat")]
        procs.append(Proc("detect-worker", detect_cmd, env, logdir))
        mitigate_cmd = [*celery, "-Q", "mitigate,webhooks", "-c", str(args.mitigate_concurrency)]
        mitigate_cmd += ["-n", f"load-mitigate-{port}@%h"]
        procs.append(Proc("mitigate-worker", mitigate_cmd, env, logdir))
        for proc in procs[1:]:
            proc.wait_for(b" ready.", 180)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("gunicorn not ready")
            time.sleep(0.3)

        lock = threading.Lock()
        api_ms: list[float] = []
        accepted: dict[str, str] = {}  # public id -> mode
        errors: dict[str, int] = {}
        slots = iter(range(10_000_000))  # request i is due at started + i / rate
        print(
            f"load: {args.duration:.0f}s at {args.rate}/s offered, {args.clients} clients, "
            f"{args.standard_share:.0%} standard, detector={args.detector}, logs in {logdir}",
            flush=True,
        )
        started = time.monotonic()
        stop_at = started + args.duration

        def client() -> None:
            with httpx.Client(base_url=base, timeout=30) as http:
                while True:
                    with lock:
                        due = started + next(slots) / args.rate
                        mode = "standard" if rng.random() < args.standard_share else "lightweight"
                        answer = ANSWERS[rng.randrange(len(ANSWERS))]
                    if due >= stop_at:
                        return
                    time.sleep(max(0.0, due - time.monotonic()))
                    payload = {
                        "context": CONTEXT,
                        "query": "When was the Eiffel Tower built and how tall is it?",
                        "response": answer,
                    }
                    t0 = time.monotonic()
                    try:
                        response = http.post(
                            "/v1/verifications",
                            json=payload,
                            headers={"Authorization": f"Bearer {tokens[mode]}"},
                        )
                        key = str(response.status_code)
                    except httpx.HTTPError as exc:
                        response, key = None, type(exc).__name__
                    elapsed = (time.monotonic() - t0) * 1000
                    with lock:
                        api_ms.append(elapsed)
                        if response is not None and response.status_code in (200, 202):
                            accepted[response.json()["id"]] = mode
                        else:
                            errors[key] = errors.get(key, 0) + 1

        threads = [threading.Thread(target=client, daemon=True) for _ in range(args.clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=args.duration + 60)
        load_s = time.monotonic() - started

        pks = {VerificationJob.parse_public_id(i): m for i, m in accepted.items()}
        grace_end = time.monotonic() + args.grace

        def unfinished() -> int:
            done = VerificationJob.objects.filter(
                pk__in=list(pks), status__in=["completed", "failed"]
            ).count()
            return len(pks) - done

        while unfinished() and time.monotonic() < grace_end:
            time.sleep(1)
        drain_s = time.monotonic() - started - load_s
        rows = list(
            VerificationJob.objects.filter(pk__in=list(pks)).values_list(
                "pk", "status", "created_at", "completed_at"
            )
        )
        e2e: dict[str, list[float]] = {"lightweight": [], "standard": []}
        statuses: dict[str, int] = {}
        for pk, status, created, completed in rows:
            statuses[status] = statuses.get(status, 0) + 1
            if completed is not None:
                e2e[pks[pk]].append((completed - created).total_seconds() * 1000)
        lost = len(pks) - sum(statuses.get(s, 0) for s in ("completed", "failed"))
        usage = UsageRecord.objects.filter(job_id__in=list(pks))
        duplicates = usage.values("job_id").annotate(n=Count("id")).filter(n__gt=1).count()
        missing_usage = statuses.get("completed", 0) - usage.count()

        def line(values: list[float]) -> str:
            return (
                f"p50 {_pct(values, 50):8.1f}  p95 {_pct(values, 95):8.1f}  "
                f"p99 {_pct(values, 99):8.1f}  max {max(values, default=float('nan')):8.1f}"
            )

        n_std = sum(1 for m in accepted.values() if m == "standard")
        print(f"duration              {load_s:.1f} s load + {drain_s:.1f} s drain")
        print(f"requests              {len(api_ms)}")
        print(
            f"accepted              {len(accepted)}  ({len(accepted) / load_s:.2f}/s; "
            f"{len(accepted) - n_std} lightweight, {n_std} standard)"
        )
        print(f"errors                {sum(errors.values())}  {errors or ''}")
        print(f"API latency ms        {line(api_ms)}")
        for mode, values in e2e.items():
            print(f"e2e {mode:<11} ms {line(values)}  (n={len(values)})")
        print(f"final states          {statuses}")
        print(f"usage rows            duplicates {duplicates}, missing {missing_usage}")
        print(f"lost jobs             {lost}")
        return 0 if lost == 0 and duplicates == 0 and missing_usage == 0 else 1
    finally:
        for proc in reversed(procs):
            proc.stop()
        llm.stop()


if __name__ == "__main__":
    sys.exit(main())
