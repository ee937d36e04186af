"""Accepted `POST /v1/verifications` per second, closed loop, workers paused; then
every accepted job is run and checked to have completed exactly once.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/truthlens_ingest \\
    REDIS_URL=redis://127.0.0.1:6379/11 \\
    python bench/ingest_load.py --duration 30 --connections 16 [--tree PATH] [--json OUT]

The shape of `wrk -t2 -c16 -d30s` (wrk is not installed on the bench machine): 16
keep-alive connections, each sending the next POST as soon as the previous answer
arrives, from `--client-procs` processes. The server is gunicorn with
`deploy/gunicorn.conf.py` (2 workers x 16 threads unless told), DEBUG off, no Celery
worker running during the load. The tenant is on a plan with a monthly quota (so the
quota path runs) far above what the run sends. `--tree PATH` serves the API from
another checkout of the code (e.g. the commit before a change, exported with
`git archive`) against the same database, for a before/after in one sitting.

After the load, one detect worker (lexical detector) drains the queue; the bench then
counts, for the accepted jobs: final states (all must be `completed`), jobs with more
than one attempt, outbox messages per job (exactly one, published), usage rows per job
(exactly one: nothing billed twice) and, when the counter table exists, that the
tenant's monthly counter rose by exactly the number accepted. Exit status 0 only when
nothing was lost or duplicated.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load import Proc, _free_port, _pct, _setup_database  # noqa: E402

BODY = json.dumps(
    {
        "context": [
            "The Eiffel Tower is a wrought-iron lattice tower in Paris. It was built from 1887 "
            "to 1889 and is 330 metres tall."
        ],
        "query": "When was the Eiffel Tower built and how tall is it?",
        "response": "The Eiffel Tower was built in 1950 and is 330 metres tall.",
    }
).encode()


def _client_proc(port: int, token: str, connections: int, start_at: float, stop_at: float, out):
    """One client process: `connections` threads, each with its own keep-alive connection."""
    results: list[tuple[float, int, str]] = []  # (ms, status, id)
    lock = threading.Lock()
    headers = {
        "Authorization": f"Bearer {token}",
        "Content-Type": "application/json",
        "Host": "localhost",
    }

    def loop() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine: list[tuple[float, int, str]] = []
        while time.time() < start_at:
            time.sleep(0.001)
        while time.time() < stop_at:
            t0 = time.perf_counter()
            try:
                conn.request("POST", "/v1/verifications", BODY, headers)
                response = conn.getresponse()
                payload = response.read()
                code = response.status
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                mine.append(((time.perf_counter() - t0) * 1000, 0, ""))
                continue
            ms = (time.perf_counter() - t0) * 1000
            job_id = json.loads(payload).get("id", "") if code == 202 else ""
            mine.append((ms, code, job_id))
        conn.close()
        with lock:
            results.extend(mine)

    threads = [threading.Thread(target=loop) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out.put(results)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=30)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--client-procs", type=int, default=2)
    parser.add_argument("--gunicorn-workers", type=int, default=2)
    parser.add_argument("--gunicorn-threads", type=int, default=16)
    parser.add_argument("--tree", default=str(ROOT), help="serve the API from this checkout")
    parser.add_argument("--grace", type=float, default=900, help="max wait for the drain (s)")
    parser.add_argument("--worker-concurrency", type=int, default=2)
    parser.add_argument("--json", default="", help="write the figures here")
    parser.add_argument(
        "--no-drain",
        action="store_true",
        help="stop after checking the broker holds one message per accepted job",
    )
    args = parser.parse_args()
    tree = Path(args.tree).resolve()

    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=os.environ.get(
            "DATABASE_URL", "postgres://postgres@127.0.0.1:5432/truthlens_ingest"
        ),
        REDIS_URL=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/11"),
        DEBUG="false",
        TRUTHLENS_DETECTOR="lexical",
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )
    env["CELERY_BROKER_URL"] = env["REDIS_URL"]
    os.environ.update({k: env[k] for k in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL")})
    _setup_database(env)

    import django

    django.setup()
    import redis
    from django.db import connection

    from tenants.models import ApiKey, Plan, Tenant
    from verification.models import OutboxMessage, UsageRecord, VerificationJob

    VerificationJob.objects.filter(status__in=["queued", "running"]).update(
        status="failed", error_code="bench_reset"
    )
    OutboxMessage.objects.filter(published_at__isnull=True).delete()
    broker = redis.Redis.from_url(env["REDIS_URL"])
    broker.flushdb()  # the bench owns this Redis db: no queued leftovers, no throttle counters
    plan, _ = Plan.objects.get_or_create(
        name="ingest-bench", defaults={"rate_limit": "10000000/min", "monthly_quota": 10_000_000}
    )
    tenant = Tenant(slug=f"ingest-{int(time.time())}", name="ingest bench", plan=plan)
    tenant.rotate_webhook_secret()
    tenant.save()
    _, token = ApiKey.issue(tenant)

    def counter() -> int | None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT to_regclass('verification_monthlyjobcount') IS NOT NULL")
            if not cursor.fetchone()[0]:
                return None
            cursor.execute(
                "SELECT coalesce(sum(jobs), 0) FROM verification_monthlyjobcount "
                "WHERE tenant_id = %s",
                [tenant.pk],
            )
            return int(cursor.fetchone()[0])

    # the tree before the counter existed does not write it
    has_counter = "MonthlyJobCount" in (tree / "verification/models/usage.py").read_text()
    counted_before = counter() if has_counter else None
    logdir = Path(tempfile.mkdtemp(prefix="truthlens-ingest-"))
    port = _free_port()
    server_env = {
        **env,
        "PYTHONPATH": str(tree),
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": str(args.gunicorn_workers),
        "GUNICORN_THREADS": str(args.gunicorn_threads),
    }
    web = Proc(
        "gunicorn",
        [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi",
            "-c",
            str(tree / "deploy/gunicorn.conf.py"),
        ],
        server_env,
        logdir,
        cwd=tree,
    )
    procs = [web]
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                conn.request("GET", "/healthz", headers={"Host": "localhost"})
                if conn.getresponse().status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("gunicorn not ready")
            time.sleep(0.3)
        # warm every worker process and thread (imports, connections) before the clock starts
        warm = mp.get_context("fork").Queue()
        _client_proc(port, token, args.connections, 0, time.time() + 2, warm)
        warmed = [r[2] for r in warm.get() if r[1] == 202]

        out = mp.get_context("fork").Queue()
        start_at = time.time() + 0.5
        stop_at = start_at + args.duration
        per_proc = [args.connections // args.client_procs] * args.client_procs
        for i in range(args.connections % args.client_procs):
            per_proc[i] += 1
        clients = [
            mp.get_context("fork").Process(
                target=_client_proc, args=(port, token, n, start_at, stop_at, out)
            )
            for n in per_proc
        ]
        for client in clients:
            client.start()
        results: list[tuple[float, int, str]] = []
        for _ in clients:
            results.extend(out.get())
        for client in clients:
            client.join()
        ms = [r[0] for r in results]
        accepted = [r[2] for r in results if r[1] == 202]
        errors: dict[int, int] = {}
        for _, code, _ in results:
            if code != 202:
                errors[code] = errors.get(code, 0) + 1
        rate = len(accepted) / args.duration
        print(f"tree                  {tree}")
        print(
            f"load                  {args.duration:.0f} s, {args.connections} connections, "
            f"gunicorn {args.gunicorn_workers}x{args.gunicorn_threads} threads, workers paused"
        )
        print(f"requests              {len(results)}")
        print(f"accepted              {len(accepted)}  ({rate:.1f}/s)")
        print(f"errors                {sum(errors.values())}  {errors or ''}")
        print(
            f"API latency ms        p50 {_pct(ms, 50):.1f}  p90 {_pct(ms, 90):.1f}  "
            f"p99 {_pct(ms, 99):.1f}  max {max(ms, default=float('nan')):.1f}",
            flush=True,
        )

        # --- every accepted job is on the broker exactly once: its message in the queue ---
        ids = [VerificationJob.parse_public_id(i) for i in accepted + warmed]
        deadline = time.monotonic() + 60  # the relay may still be publishing the last ones
        while time.monotonic() < deadline:
            queued = sum(broker.llen(q) for q in ("detect", "detect_interactive"))
            if queued >= len(ids):
                break
            time.sleep(0.5)
        messages = OutboxMessage.objects.filter(job_id__in=ids)
        print(f"broker queue          {queued} messages for {len(ids)} accepted (incl. warm-up)")
        print(
            f"outbox                {messages.count()} messages, "
            f"{messages.filter(published_at__isnull=True).count()} unpublished",
            flush=True,
        )
        # --- drain: run every accepted job, then check it completed exactly once ---------
        drain_started = time.monotonic()
        grace_end = drain_started + (0 if args.no_drain else args.grace)
        if not args.no_drain:
            celery = [sys.executable, "-m", "celery", "-A", "workers", "worker", "-l", "WARNING"]
            celery += ["-Q", "detect_interactive,detect,maintenance"]
            celery += ["-c", str(args.worker_concurrency), "-n", f"ingest-{port}@%h"]
            procs.append(Proc("detect-worker", celery, {**env, "PYTHONPATH": str(ROOT)}, logdir))
        final = ["completed", "failed"]
        while time.monotonic() < grace_end:
            done = VerificationJob.objects.filter(pk__in=ids, status__in=final).count()
            if done == len(ids):
                break
            time.sleep(2)
        drain_s = time.monotonic() - drain_started
        jobs = VerificationJob.objects.filter(pk__in=ids)
        statuses: dict[str, int] = {}
        for status in jobs.values_list("status", flat=True):
            statuses[status] = statuses.get(status, 0) + 1
        retried = jobs.filter(attempts__gt=1).count()
        messages = OutboxMessage.objects.filter(job_id__in=ids)
        unpublished = messages.filter(published_at__isnull=True).count()
        extra_messages = messages.count() - len(ids)
        usage = UsageRecord.objects.filter(job_id__in=ids).count()
        lost = None if args.no_drain else len(ids) - statuses.get("completed", 0)
        counted = counter() if has_counter else None
        counter_delta = None if counted is None else counted - (counted_before or 0)
        print(
            f"drain                 {drain_s:.0f} s ({len(ids)} jobs incl. {len(warmed)} warm-up)"
        )
        print(f"final states          {statuses}")
        print(f"jobs retried          {retried}")
        print(f"outbox                {extra_messages} extra messages, {unpublished} unpublished")
        print(f"usage rows            {usage} for {statuses.get('completed', 0)} completed")
        if counter_delta is not None:
            print(f"quota counter         +{counter_delta} for {len(ids)} accepted")
        print(f"lost jobs             {lost}", flush=True)
        ok = (
            lost in (0, None)
            and (args.no_drain or usage == len(ids))
            and extra_messages == 0
            and unpublished == 0
            and counter_delta in (None, len(ids))
            and queued == len(ids)
        )
        if args.json:
            Path(args.json).write_text(
                json.dumps(
                    {
                        "tree": str(tree),
                        "duration_s": args.duration,
                        "connections": args.connections,
                        "gunicorn": f"{args.gunicorn_workers}x{args.gunicorn_threads}",
                        "requests": len(results),
                        "accepted": len(accepted),
                        "accepted_per_s": round(rate, 1),
                        "errors": errors,
                        "latency_ms": {
                            q: round(_pct(ms, int(q[1:])), 1) for q in ("p50", "p90", "p99")
                        },
                        "broker_messages": queued,
                        "drained": not args.no_drain,
                        "drain_s": round(drain_s),
                        "final_states": statuses,
                        "retried": retried,
                        "extra_outbox_messages": extra_messages,
                        "unpublished": unpublished,
                        "usage_rows": usage,
                        "counter_delta": counter_delta,
                        "lost": lost,
                        "ok": ok,
                    },
                    indent=2,
                )
                + "\n"
            )
        return 0 if ok else 1
    finally:
        for proc in reversed(procs):
            proc.stop()


if __name__ == "__main__":
    sys.exit(main())
