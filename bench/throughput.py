"""Detector throughput and latency by batch size, and the worker's memory; with
`--saturation`, verifications/s of real Celery detect workers at saturation.

    python bench/throughput.py [--detector embedded] [--batch-sizes 1,8,16] [--n 64]

Inputs are real (context, answer) pairs from a TRAINING file of the shared
data (throughput does not depend on labels, and the evaluation sets stay
untouched), cycled to `--n` examples. Prints examples/s, p50/p95 latency per
batch, process RSS and, on CUDA, peak GPU memory: the figures the sizing
table of docs/operations.md asks for.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/truthlens_throughput \
    REDIS_URL=redis://127.0.0.1:6379/12 \
    python bench/throughput.py --saturation [--jobs 160] [--workers 1,2] \
        [--variants default,selected,selected:int8] [--batch-size 8] [--threads 0] [--json OUT]

Saturation: `--jobs` distinct examples (`--context-tokens` 1 024-token contexts of passages
of the TRAINING file `begin/dev.jsonl`, `--answer-tokens` 150-token answers, as
`bench/detector_speed.py` builds them; examples whose query the default policy skips are
left out) are created through the API's create action (job, quota counter, outbox row and
broker message, published inline) while no worker runs. Then `--workers` real Celery detect
worker processes (`celery worker -Q detect -c 1` each, `TRUTHLENS_DETECT_BATCH_SIZE` =
`--batch-size`, `OMP_NUM_THREADS` = `--threads`, or the CPUs divided among the processes
when 0) drain the queue; the bench prints verifications/s (completed jobs over the time
from the first claim, once the models are loaded, to the last completion), p50/p95 job
latency from claim to completion, and checks every job completed exactly once (one attempt, one usage row, one outbox message, one broker message).
Each variant is `evidence[:dtype]`: `default` is the default policy (no policy row:
`evidence: all`), `selected` a policy with `evidence: selected`; dtype is
`TRUTHLENS_DETECTOR_DTYPE` (`auto`: for the shipped detector bfloat16 on a CPU with bf16 units,
else float32; or `float32`, `bfloat16`, `int8`). Every
worker it starts is stopped before the next run. The database is created and migrated if
needed (use a dedicated one); the Redis db in REDIS_URL is flushed before each run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.metrics import percentile  # noqa: E402
from engine import DetectionInput, load_detector  # noqa: E402


def begin_dev_file() -> Path:
    """The TRAINING file the throughput benches read contexts from."""
    return (
        Path(os.environ.get("TRUTHLENS_DATA_DIR", ROOT.parent / "shared" / "data"))
        / "begin"
        / "dev.jsonl"
    )


def load_inputs(path: Path, n: int) -> list[DetectionInput]:
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            raw = json.loads(line)
            passages = [p for p in raw["context"].split("\n\n") if p.strip()]
            rows.append(DetectionInput.build(passages, raw["answer"], raw.get("question")))
            if len(rows) >= n:
                break
    return [rows[i % len(rows)] for i in range(n)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--detector", default="embedded")
    parser.add_argument("--batch-sizes", default="1,8,16")
    parser.add_argument("--n", type=int, default=64)
    parser.add_argument("--saturation", action="store_true", help="real workers, see above")
    parser.add_argument("--jobs", type=int, default=160)
    parser.add_argument("--workers", default="1,2", help="worker processes, one run each")
    parser.add_argument("--variants", default="default,selected")
    parser.add_argument("--batch-size", type=int, default=8, help="jobs per micro-batch")
    parser.add_argument("--threads", type=int, default=0, help="torch threads per worker")
    parser.add_argument("--context-tokens", type=int, default=1024)
    parser.add_argument("--answer-tokens", type=int, default=150)
    parser.add_argument("--grace", type=float, default=900, help="max drain time per run (s)")
    parser.add_argument("--json", default="", help="write the saturation figures here")
    parser.add_argument(
        "--file",
        default=str(begin_dev_file()),
    )
    args = parser.parse_args()
    if args.saturation:
        return saturation(args)
    started = time.perf_counter()
    detector = load_detector(args.detector)
    print(f"detector {detector.name} loaded in {time.perf_counter() - started:.1f} s")
    items = load_inputs(Path(args.file), args.n)
    detector.predict(items[:2])  # warm-up: first-call allocations are not throughput
    try:
        import torch

        cuda = torch.cuda.is_available()
        if cuda:
            torch.cuda.reset_peak_memory_stats()
    except ImportError:
        cuda = False
    for size in [int(s) for s in args.batch_sizes.split(",")]:
        latencies = []
        total = time.perf_counter()
        for i in range(0, len(items), size):
            t0 = time.perf_counter()
            detector.predict(items[i : i + size])
            latencies.append((time.perf_counter() - t0) * 1000)
        elapsed = time.perf_counter() - total
        print(
            f"batch {size:>3}: {len(items) / elapsed:7.2f} ex/s | per batch p50 "
            f"{statistics.median(latencies):8.1f} ms  p95 {percentile(latencies, 0.95):8.1f} ms"
        )
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {rss_mb:.0f} MB")
    if cuda:
        import torch

        print(f"peak GPU memory {torch.cuda.max_memory_allocated() / 2**20:.0f} MB")
    return 0


# --- saturation: real Celery detect workers over a queue of jobs -------------------------

SKIPPED_TYPES = ("creative", "code", "opinion")  # the default policy's skips: cheap, not counted


def saturation_inputs(args: argparse.Namespace) -> list[DetectionInput]:
    """`--jobs` distinct 1k-token examples whose query the default policy verifies."""
    from transformers import AutoTokenizer

    from bench.detector_speed import make_inputs
    from engine import base_model_path, default_classifier

    tokenizer = AutoTokenizer.from_pretrained(str(base_model_path()), local_files_only=True)
    pool = make_inputs(
        tokenizer, Path(args.file), args.jobs * 2, args.context_tokens, args.answer_tokens, 13
    )
    types = default_classifier().classify_batch([item.query for item in pool])
    kept = [
        item for item, (qtype, _) in zip(pool, types, strict=True) if qtype not in SKIPPED_TYPES
    ]
    if len(kept) < args.jobs:
        raise SystemExit(f"only {len(kept)} verifiable examples for {args.jobs} jobs")
    return kept[: args.jobs]


def _worker_cmd(name: str) -> list[str]:
    return [
        sys.executable, "-m", "celery", "-A", "workers", "worker", "-l", "INFO",
        "-Q", "detect", "-c", "1", "-n", f"{name}@%h",
        "--without-gossip", "--without-mingle", "--without-heartbeat",
    ]  # fmt: skip


def _group_cpu_s(pgids: set[int]) -> float:
    """User + system CPU seconds of the live processes in these process groups (Linux)."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) in pgids:  # pgrp; utime and stime follow in clock ticks
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def run_saturation(
    args: argparse.Namespace,
    env: dict[str, str],
    items: list[DetectionInput],
    evidence: str,
    dtype: str,
    workers: int,
    logdir: Path,
) -> dict[str, Any]:
    """Queue every job with no worker running, then start `workers` detect processes and
    time the drain; check each job completed exactly once."""
    import redis
    from django.db.models import Count

    from bench.load import Proc
    from tenants.models import Plan, Policy, Tenant
    from verification.actions.create import NewVerification, create_verification
    from verification.models import OutboxMessage, UsageRecord, VerificationJob

    broker = redis.Redis.from_url(env["REDIS_URL"])
    broker.flushdb()  # the bench owns this Redis db: no leftover messages
    VerificationJob.objects.filter(status__in=["queued", "running"]).update(
        status="failed", error_code="bench_reset"
    )
    plan, _ = Plan.objects.get_or_create(
        name="throughput-bench", defaults={"rate_limit": "10000000/min", "monthly_quota": 0}
    )
    tenant = Tenant(slug=f"tp-{time.time_ns()}", name="throughput bench", plan=plan)
    tenant.rotate_webhook_secret()
    tenant.save()
    if evidence != "default":
        Policy.objects.create(tenant=tenant, document={"evidence": evidence})
    t0 = time.perf_counter()
    ids = []
    for item in items:  # the API's create action: job, quota counter, outbox, broker message
        job, created = create_verification(
            tenant,
            NewVerification(
                context=list(item.context), response=item.response, query=item.query or ""
            ),
        )
        assert created
        ids.append(job.pk)
    enqueue_s = time.perf_counter() - t0
    queued = broker.llen("detect")

    load_before = os.getloadavg()[0]
    worker_env = {
        **env,
        "TRUTHLENS_DETECTOR_DTYPE": dtype,
        "TRUTHLENS_DETECT_BATCH_SIZE": str(args.batch_size),
        "OMP_NUM_THREADS": str(args.threads or max(1, (os.cpu_count() or 2) // workers)),
    }
    procs = []
    cpu_at_claim: float | None = None
    cpu_at_end: float | None = None
    started = time.time()
    try:
        for i in range(workers):
            name = f"tp{i}-{os.getpid()}-{int(started)}"
            procs.append(Proc(name, _worker_cmd(name), worker_env, logdir))
        pgids = {p.proc.pid for p in procs}  # each worker leads its own session
        deadline = time.monotonic() + args.grace
        while time.monotonic() < deadline:
            if cpu_at_claim is None and (
                VerificationJob.objects.filter(pk__in=ids, started_at__isnull=False).exists()
            ):
                cpu_at_claim = _group_cpu_s(pgids)  # models loaded: the work starts
            cpu_now = _group_cpu_s(pgids)
            if VerificationJob.objects.filter(
                pk__in=ids, completed_at__isnull=False
            ).count() == len(ids) or any(p.proc.poll() is not None for p in procs):
                cpu_at_end = cpu_now
                break
            time.sleep(0.5)
    finally:
        for proc in procs:
            proc.stop()
    jobs = list(
        VerificationJob.objects.filter(pk__in=ids).values(
            "status", "attempts", "created_at", "started_at", "completed_at"
        )
    )
    statuses: dict[str, int] = {}
    for job in jobs:
        statuses[job["status"]] = statuses.get(job["status"], 0) + 1
    done = sorted(j["completed_at"].timestamp() for j in jobs if j["completed_at"])
    claimed = [j["started_at"].timestamp() for j in jobs if j["started_at"]]
    # Saturation rate: completed jobs over the time from the first claim (the worker has
    # loaded its models by then) to the last completion; the queue never runs dry before.
    window = done[-1] - min(claimed) if done else float("nan")
    rate = len(done) / window if window and window > 0 else float("nan")
    latency = [
        (j["completed_at"] - j["started_at"]).total_seconds() * 1000
        for j in jobs
        if j["completed_at"] and j["started_at"]
    ]
    usage = UsageRecord.objects.filter(job_id__in=ids).count()
    messages = (
        OutboxMessage.objects.filter(job_id__in=ids)
        .values("job_id")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .count()
    )
    verdicts: dict[str, int] = {}
    for status in VerificationJob.objects.filter(pk__in=ids).values_list(
        "verification_status", flat=True
    ):
        verdicts[status or "none"] = verdicts.get(status or "none", 0) + 1
    exactly_once = (
        statuses.get("completed", 0) == len(ids)
        and all(j["attempts"] == 1 for j in jobs)
        and usage == len(ids)
        and messages == 0
        and queued == len(ids)
    )
    return {
        "evidence": evidence,
        "dtype": dtype,
        "workers": workers,
        "threads_per_worker": int(worker_env["OMP_NUM_THREADS"]),
        "batch_size": args.batch_size,
        "jobs": len(ids),
        "enqueue_per_s": round(len(ids) / enqueue_s, 1),
        "broker_messages": queued,
        "drain_s": round(done[-1] - started, 1) if done else None,
        "busy_s": round(window, 1),
        # CPU seconds the workers spent per job from the first claim on: what contention
        # from other processes does not change; cores / this = a quiet machine's ceiling.
        "worker_cpu_ms_per_job": round((cpu_at_end - cpu_at_claim) * 1000 / len(done))
        if cpu_at_end is not None and cpu_at_claim is not None and done
        else None,
        "load_average_before": round(load_before, 2),
        "verifications_per_s": round(rate, 2),
        "latency_ms": {  # claim to completion, in the worker (all jobs were queued at once)
            "p50": round(percentile(latency, 0.50)) if latency else None,
            "p95": round(percentile(latency, 0.95)) if latency else None,
        },
        "final_states": statuses,
        "result_statuses": verdicts,
        "retried": sum(1 for j in jobs if j["attempts"] != 1),
        "usage_rows": usage,
        "exactly_once": exactly_once,
    }


def saturation(args: argparse.Namespace) -> int:
    from bench.load import _setup_database

    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=os.environ.get(
            "DATABASE_URL", "postgres://postgres@127.0.0.1:5432/truthlens_throughput"
        ),
        REDIS_URL=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/12"),
        DEBUG="false",
        TRUTHLENS_DETECTOR="embedded",
        TRUTHLENS_OUTBOX_PUBLISH="inline",  # the job is on the broker when create returns
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
        PYTHONPATH=str(ROOT),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        LITELLM_LOCAL_MODEL_COST_MAP="True",
    )
    env["CELERY_BROKER_URL"] = env["REDIS_URL"]
    os.environ.update(env)
    _setup_database(env)
    import django

    django.setup()
    items = saturation_inputs(args)
    logdir = Path(tempfile.mkdtemp(prefix="truthlens-throughput-"))
    print(
        f"{len(items)} jobs: {args.context_tokens}-token contexts, {args.answer_tokens}-token "
        f"answers ({Path(args.file).name}); batch {args.batch_size}; logs {logdir}",
        flush=True,
    )
    rows = []
    for variant in args.variants.split(","):
        evidence, _, dtype = variant.partition(":")
        for workers in [int(w) for w in args.workers.split(",")]:
            row = run_saturation(args, env, items, evidence, dtype or "auto", workers, logdir)
            rows.append(row)
            print(
                f"evidence {evidence:<8} {row['dtype']:<7} workers {workers} x "
                f"{row['threads_per_worker']} threads: {row['verifications_per_s']:6.2f} "
                f"verifications/s | job latency p50 {row['latency_ms']['p50']} ms "
                f"p95 {row['latency_ms']['p95']} ms | drain {row['drain_s']} s | "
                f"{row['worker_cpu_ms_per_job']} CPU ms/job | load {row['load_average_before']} | "
                f"{row['final_states']} retried {row['retried']} usage {row['usage_rows']} "
                f"exactly once: {row['exactly_once']}",
                flush=True,
            )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "context_tokens": args.context_tokens,
                    "answer_tokens": args.answer_tokens,
                    "file": str(Path(args.file).relative_to(Path(args.file).parents[1])),
                    "cpus": os.cpu_count(),
                    "load_average_at_end": os.getloadavg(),
                    "rows": rows,
                },
                indent=2,
            )
            + "\n"
        )
    return 0 if all(r["exactly_once"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
