"""Evaluating a policy (a version or an unsaved draft) on a dataset: a background job on the
detect queue with progress, its own billing line, and a report of how the verdicts agree
with the labels."""

from __future__ import annotations

import logging
import statistics
import time
from datetime import timedelta
from decimal import Decimal

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import RedisError

from engine import MODES, DetectionInput, Detector, PolicyDocument, detection_config, verify_batch

from . import metrics
from .models import Evaluation

log = logging.getLogger(__name__)

TASK = "truthlens.evaluate_dataset"
QUEUE = "detect"  # where the detector is loaded
BATCH = 8
WORST = 10
MONEY = Decimal("0.00000001")


def enqueue(evaluation_id) -> None:
    try:
        current_app.send_task(TASK, args=[str(evaluation_id)], queue=QUEUE, retry=False)
    except (KombuOperationalError, RedisError, OSError) as exc:
        log.warning("broker unavailable, evaluation %s stays queued: %s", evaluation_id, exc)


def start_evaluation(tenant, dataset, document: PolicyDocument, version: int | None, user):
    """A queued evaluation, sent to the workers once its row is committed."""
    with transaction.atomic():
        evaluation = Evaluation.objects.create(
            tenant=tenant,
            dataset=dataset,
            policy_version=version,
            policy_document=document.model_dump(mode="json"),
            total=dataset.size,
            created_by=user,
        )
        transaction.on_commit(lambda: enqueue(evaluation.pk))
    return evaluation


def _price(tenant, tokens: int) -> Decimal:
    per_1k = tenant.plan.price_per_1k_detector_tokens if tenant.plan else Decimal(0)
    return (Decimal(tokens) / 1000 * per_1k).quantize(MONEY)


def _row_result(row, result, ms: float) -> dict:
    spans = [{"start": s.start, "end": s.end} for s in result.spans]
    return {
        "position": row.position,
        "label": row.label,
        "score": result.score if result.score is not None else 0.0,
        # before the policy's calibration: what a new calibration is fitted on
        "raw": (
            result.uncalibrated_score
            if result.uncalibrated_score is not None
            else (result.score or 0.0)
        ),
        "detected": int(bool(result.detected)),
        "query_type": result.query_type,
        "verdict": result.verdict or result.status,
        "spans": spans,
        "ms": round(ms, 1),
    }


def run_evaluation(evaluation_id, detector: Detector) -> str | None:
    """Claim a queued evaluation and run it; its status, or None if another worker has it."""
    claimed = Evaluation.objects.filter(pk=evaluation_id, status=Evaluation.QUEUED).update(
        status=Evaluation.RUNNING, done=0, attempts=F("attempts") + 1, progress_at=timezone.now()
    )
    if claimed != 1:
        return None
    evaluation = Evaluation.objects.select_related("tenant__plan", "dataset").get(pk=evaluation_id)
    # this claim's own row: once the sweeper re-queues the run (or it is claimed again), a
    # worker that was only slow stops writing to it
    mine = Evaluation.objects.filter(
        pk=evaluation_id, status=Evaluation.RUNNING, attempts=evaluation.attempts
    )
    try:
        document = PolicyDocument.model_validate(evaluation.policy_document)
        config = detection_config(document, document.threshold)
        rows = list(evaluation.dataset.rows.all())
        results: list[dict] = []
        tokens = 0
        for i in range(0, len(rows), BATCH):
            batch = rows[i : i + BATCH]
            started = time.perf_counter()
            items = [DetectionInput.build(r.context, r.response, r.query) for r in batch]
            found = verify_batch(items, config, detector)
            each_ms = (time.perf_counter() - started) * 1000 / len(batch)
            tokens += sum(r.detector_tokens for r in found)
            results.extend(_row_result(r, f, each_ms) for r, f in zip(batch, found, strict=True))
            if not mine.update(done=F("done") + len(batch), progress_at=timezone.now()):
                log.warning("evaluation %s was taken from this worker; stopping", evaluation_id)
                return None
        report = _report(evaluation, document, rows, results)
    except Exception as exc:  # a bad draft or row must end as a failed run, never hang
        log.exception("evaluation %s failed", evaluation_id)
        mine.update(status=Evaluation.FAILED, error=str(exc)[:500], completed_at=timezone.now())
        return Evaluation.FAILED
    if not mine.update(
        status=Evaluation.COMPLETED,
        results=report,
        detector_tokens=tokens,
        price_usd=_price(evaluation.tenant, tokens),
        completed_at=timezone.now(),
    ):
        return None
    return Evaluation.COMPLETED


def sweep_stalled_evaluations(limit: int = 100) -> dict[str, int]:
    """The sweeper's part for evaluations (`truthlens.sweep_jobs`): a running one with no
    progress for `EVALUATION_STALL_SECONDS` lost its worker, and is queued again from the
    start, or failed with the reason once it has been claimed `MAX_EVALUATION_ATTEMPTS`
    times; a queued one not taken for as long (the broker was down) is sent again."""
    now = timezone.now()
    stall = settings.TRUTHLENS["EVALUATION_STALL_SECONDS"]
    tries = settings.TRUTHLENS["MAX_EVALUATION_ATTEMPTS"]
    stale = Evaluation.objects.filter(progress_at__lt=now - timedelta(seconds=stall))
    counts = {"requeued": 0, "failed": 0, "resent": 0}
    for pk, attempts in stale.filter(status=Evaluation.RUNNING).values_list("pk", "attempts")[
        :limit
    ]:
        still = stale.filter(pk=pk, status=Evaluation.RUNNING, attempts=attempts)
        if attempts >= tries:
            counts["failed"] += still.update(
                status=Evaluation.FAILED,
                error=(
                    f"the run made no progress for {stall} s after each of {attempts} tries "
                    "(its worker stopped); start it again with Re-run"
                ),
                completed_at=now,
            )
        elif still.update(status=Evaluation.QUEUED, done=0, progress_at=now):
            counts["requeued"] += 1
            enqueue(pk)
    for pk in stale.filter(status=Evaluation.QUEUED).values_list("pk", flat=True)[:limit]:
        if stale.filter(pk=pk, status=Evaluation.QUEUED).update(progress_at=now):
            counts["resent"] += 1
            enqueue(pk)
    if any(counts.values()):
        log.warning("stalled evaluations: %s", counts)
    return counts


def _per_mode(evaluation, results: list[dict], rows: int) -> list[dict]:
    """What running this dataset's traffic through each mode would cost and take: detection
    as measured here, plus each mode's per-verification price and the tenant's own median
    mitigation latency of that mode in production (the evaluation runs no LLM)."""
    from verification.models import VerificationJob

    plan = evaluation.tenant.plan
    prices = (plan.price_per_verification or {}) if plan else {}
    detect_ms = statistics.median(r["ms"] for r in results) if results else 0.0
    out = []
    for mode in MODES:
        recent = VerificationJob.objects.filter(
            tenant=evaluation.tenant, plan__mode=mode, status="completed"
        ).order_by("-created_at")[:200]
        mitigate = [float((j.latency_ms or {}).get("mitigate") or 0) for j in recent]
        out.append(
            {
                "mode": mode,
                "price_usd": float(prices.get(mode, 0)) * rows,
                "detect_ms": round(detect_ms, 1),
                "mitigate_ms": round(statistics.median(mitigate), 1) if mitigate else None,
            }
        )
    return out


def _report(evaluation, document: PolicyDocument, rows, results: list[dict]) -> dict:
    labels = [r["label"] for r in results]
    summary = metrics.summary(
        labels,
        [r["score"] for r in results],
        [r["detected"] for r in results],
        [row.spans for row in rows],
        [r["spans"] for r in results],
    )
    wrong = [r for r in results if r["detected"] != r["label"]]
    wrong.sort(key=lambda r: abs(r["score"] - r["label"]), reverse=True)
    return {
        **summary,
        "threshold": document.threshold,
        "calibrated": document.calibration is not None,
        "per_mode": _per_mode(evaluation, results, len(rows)),
        "worst": [
            {
                **r,
                "query": rows[r["position"]].query,
                "response": rows[r["position"]].response,
                "context": rows[r["position"]].context,
                "gold": rows[r["position"]].spans,
            }
            for r in wrong[:WORST]
        ],  # fmt: skip
        "rows": [
            {k: r[k] for k in ("position", "score", "raw", "label", "detected", "query_type")}
            for r in results
        ],
    }
