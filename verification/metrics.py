"""`truthlens_*` Prometheus metrics (DESIGN §7)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

DETECTIONS = Counter(
    "truthlens_detections_total", "Finished verifications", ["decision", "mode", "detected"]
)
SCORE = Histogram("truthlens_score", "Hallucination scores", buckets=[i / 10 for i in range(1, 11)])
LATENCY = Histogram(
    "truthlens_latency_seconds",
    "Latency per mode and operation",
    ["mode", "operation"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)
ITERATIONS = Histogram("truthlens_iterations", "Mitigation iterations", buckets=(0, 1, 2, 3, 5, 10))
WEBHOOKS = Counter("truthlens_webhook_attempts_total", "Webhook delivery attempts", ["outcome"])
JOBS_FAILED = Counter("truthlens_jobs_failed_total", "Jobs that ended failed", ["code"])


def observe_job(job) -> None:
    if job.status == "failed":
        JOBS_FAILED.labels(code=job.error_code or "unknown").inc()
        return
    detected = "unknown" if job.detected is None else str(bool(job.detected)).lower()
    DETECTIONS.labels(decision=job.decision or "default", mode=job.mode, detected=detected).inc()
    if job.score is not None:
        SCORE.observe(job.score)
    ITERATIONS.observe(job.iterations)
    for operation, ms in (job.latency_ms or {}).items():
        LATENCY.labels(mode=job.mode, operation=operation).observe(ms / 1000)
