"""Where a detect worker's CPU goes per job: `engine.verify_groups` under cProfile.

    python bench/worker_profile.py [--jobs 16] [--batch-size 8]
        [--variants default,selected:int8] [--top 25] [--threads 1]

Builds the inputs `bench/throughput.py --saturation` builds (1k-token contexts of
`begin/dev.jsonl` passages, 150-token answers, queries the default policy skips left
out), then for each variant (`evidence[:dtype]`, as in throughput.py) loads the
detector, warms it up on one micro-batch, and runs `verify_groups` over `--jobs` jobs in
micro-batches of `--batch-size` (what the detect worker calls) under cProfile, one torch
thread (as each of the saturation bench's two workers runs). Prints ms per job by stage
(the cumulative time of the functions that mark each stage) and by module (own time),
and the top functions by own time. The profiler's clock is the wall clock (its overhead
is lowest), so load from other processes inflates the stage figures, not the CPU ms/job
of the header; `--cpu-timer` profiles CPU time instead (more overhead per call).
cProfile's cost per call inflates code of many small calls; `--plain` times the same
run without the profiler (CPU ms/job only).

With `--task N`, also profiles the non-engine part of N jobs through the Celery task's
stage (`verification.stages.detect.process_jobs` with the engine call stubbed): planning,
DB reads and writes, serialization. Needs DATABASE_URL / REDIS_URL of a bench database.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

#: stage -> (module path fragment, function name) whose cumulative time marks it
STAGES: dict[str, tuple[str, str]] = {
    "prepare (classify, language, related, select)": ("engine/pipeline.py", "_prepare"),
    "detector.predict (all)": ("engine/detectors/embedded.py", "predict"),
    "torch modules (detector, encoder, classifier)": ("torch/nn/modules/module.py", "_call_impl"),
    "typed checks (all calls)": ("engine/scoring/typed_checks.py", "check"),
    "score (post-detector, per job)": ("engine/pipeline.py", "_score"),
    "  explain_spans": ("engine/explain/labels.py", "explain_spans"),
    "  answer_signals": ("engine/scoring/signals.py", "answer_signals"),
    "  novel_names": ("engine/scoring/novel_names.py", "novel_names"),
    "  merge_spans": ("engine/scoring/spans.py", "merge_spans"),
    "sentence encoder (MiniLM embeddings)": ("engine/text/embeddings.py", "encode"),
    "spaCy parse": ("spacy/language.py", "__call__"),
    "HF tokenizer calls": ("transformers/tokenization_utils_base.py", "__call__"),
}


def variant_config(evidence: str) -> Any:
    from engine import PolicyDocument, detection_config

    policy = PolicyDocument() if evidence == "default" else PolicyDocument(evidence=evidence)
    return detection_config(policy, policy.threshold)


def group(stats: pstats.Stats, jobs: int, top: int) -> None:
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    by_stage: dict[str, float] = {}
    for label, (frag, name) in STAGES.items():
        cum = 0.0
        for (path, _line, func), (_cc, _nc, _tt, _ct, callers) in raw.items():
            if func == name and frag.split("/")[-1] in path and frag.split("/")[0] in path:
                # only calls from outside the function itself (no recursion double count)
                cum += sum(
                    c[3]
                    for caller, c in callers.items()
                    if not (caller[0] == path and caller[2] == name)
                )
        by_stage[label] = cum
    total = sum(v[2] for v in raw.values())
    print(f"  total profiled: {total * 1000 / jobs:8.1f} ms/job")
    for label, cum in by_stage.items():
        print(f"  {label:<48} {cum * 1000 / jobs:8.1f} ms/job")
    modules: dict[str, float] = defaultdict(float)
    for (path, _line, _func), (_cc, _nc, tt, _ct, _callers) in raw.items():
        key = path
        for marker in ("site-packages/", "/perf/"):
            if marker in path:
                key = path.split(marker, 1)[1]
                break
        parts = key.split("/")
        key = (
            "/".join(parts[:2]) if parts[0] in ("torch", "spacy", "transformers", "thinc") else key
        )
        modules[key] += tt
    print("  own time by module (ms/job):")
    for key, tt in sorted(modules.items(), key=lambda kv: -kv[1])[:top]:
        print(f"    {tt * 1000 / jobs:8.1f}  {key}")
    print("  top functions by own time (ms/job, calls):")
    rows = sorted(raw.items(), key=lambda kv: -kv[1][2])[:top]
    for (path, line, func), (_cc, nc, tt, ct, _callers) in rows:
        short = path.split("site-packages/")[-1].split("/perf/")[-1]
        print(f"    {tt * 1000 / jobs:8.1f} own {ct * 1000 / jobs:8.1f} cum {nc:>8}  "
              f"{short}:{line}({func})")  # fmt: skip


def new_profiler(args: argparse.Namespace) -> cProfile.Profile:
    """Wall-clock timer (low overhead) unless `--cpu-timer` (other load does not count)."""
    return cProfile.Profile(time.process_time) if args.cpu_timer else cProfile.Profile()


def clear_caches() -> None:
    """Empty the process-wide memo caches (texts, words, spaCy parses)."""
    from engine import clear_caches as clear

    clear()


def profile_engine(args: argparse.Namespace, items: list[Any]) -> None:
    import torch

    from engine import load_detector, verify_groups

    torch.set_num_threads(args.threads)
    for variant in args.variants.split(","):
        evidence, _, dtype = variant.partition(":")
        config = variant_config(evidence)
        detector = load_detector("embedded", dtype=dtype or "auto")
        clear_caches()  # each variant starts cold, as a fresh worker does
        warm, jobs = items[-args.batch_size :], items[: -args.batch_size]
        batches = [jobs[i : i + args.batch_size] for i in range(0, len(jobs), args.batch_size)]
        verify_groups([(warm, config)], detector)  # warm-up on other jobs: loads, first calls
        profiler = new_profiler(args)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        if not args.plain:
            profiler.enable()
        for batch in batches:
            verify_groups([(batch, config)], detector)
        profiler.disable()
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        print(
            f"\n== {variant} ({detector.name}), {len(jobs)} jobs, batch {args.batch_size}: "
            f"{cpu * 1000 / len(jobs):.0f} CPU ms/job, {wall * 1000 / len(jobs):.0f} wall "
            f"ms/job (under the profiler)"
        )
        if not args.plain:
            group(pstats.Stats(profiler), len(jobs), args.top)


def profile_task(args: argparse.Namespace, items: list[Any]) -> None:
    """The Celery task's own part: claim, plan, DB writes, serialization; engine stubbed."""
    from unittest import mock

    from engine import DetectionResult
    from tenants.models import Plan, Tenant
    from verification.actions.claim import claim, claim_more
    from verification.actions.create import NewVerification, create_verification
    from verification.stages import detect as stage

    plan, _ = Plan.objects.get_or_create(
        name="profile-bench", defaults={"rate_limit": "10000000/min", "monthly_quota": 0}
    )
    tenant = Tenant(slug=f"prof-{time.time_ns()}", name="profile bench", plan=plan)
    tenant.rotate_webhook_secret()
    tenant.save()
    jobs = items[: args.task + args.batch_size]
    ids = []
    for item in jobs:
        job, _ = create_verification(
            tenant,
            NewVerification(
                context=list(item.context), response=item.response, query=item.query or ""
            ),
        )
        ids.append(job.pk)
    canned = DetectionResult(
        status="verified", score=0.1, detected=False, risk_level="low", verdict="faithful",
        model_score=0.1, uncalibrated_score=0.1,
    )  # fmt: skip

    def fake(groups: Any, *_a: Any, **_k: Any) -> list[list[DetectionResult]]:
        return [[canned for _ in group_items] for group_items, _ in groups]

    def drain(ids: list[Any]) -> None:
        with mock.patch.object(stage, "verify_groups", fake):
            for i in range(0, len(ids), args.batch_size):
                first = claim(ids[i])
                assert first is not None
                stage.process_jobs([first] + claim_more(args.batch_size - 1, exclude=first.pk))

    warm, ids = ids[: args.batch_size], ids[args.batch_size :]
    drain(warm)  # the detector and the query classifier load here, not in the profile
    profiler = new_profiler(args)
    cpu0 = time.process_time()
    profiler.enable()
    drain(ids)
    profiler.disable()
    cpu = time.process_time() - cpu0
    print(
        f"\n== task stage without the engine, {len(ids)} jobs: {cpu * 1000 / len(ids):.1f} CPU ms/job"
    )
    group(pstats.Stats(profiler), len(ids), args.top)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--variants", default="default,selected:int8")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--plain", action="store_true", help="CPU ms/job, no profiler")
    parser.add_argument("--cpu-timer", action="store_true", help="profile CPU, not wall time")
    parser.add_argument("--task", type=int, default=0, help="also profile the task stage")
    parser.add_argument("--context-tokens", type=int, default=1024)
    parser.add_argument("--answer-tokens", type=int, default=150)
    parser.add_argument(
        "--file",
        default=None,
    )
    args = parser.parse_args()
    from bench.throughput import begin_dev_file, saturation_inputs

    args.file = args.file or str(begin_dev_file())

    if args.task:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        os.environ.setdefault("TRUTHLENS_OUTBOX_PUBLISH", "inline")
        import django

        django.setup()
    jobs = args.jobs
    args.jobs = jobs + args.batch_size  # a warm-up batch of other jobs
    items = saturation_inputs(args)
    args.jobs = jobs
    if args.variants:
        profile_engine(args, items)
    if args.task:
        profile_task(args, items)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
