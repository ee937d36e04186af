"""`truthlens_*` Prometheus metrics (docs/architecture.md "Billing and metrics"; serving and alerts: docs/operations.md
"Metrics")."""

from __future__ import annotations

from prometheus_client import REGISTRY, Counter, Gauge, Histogram

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


DETECT_BATCH = Histogram(
    "truthlens_detector_batch_size",
    "Jobs per detection micro-batch",
    buckets=(1, 2, 4, 8, 16, 32, 64),
)
TASK_SECONDS = Histogram(
    "truthlens_worker_task_seconds",
    "Celery task run time",
    ["task"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300),
)
TASKS = Counter(
    "truthlens_worker_tasks_total", "Celery tasks finished, by state", ["task", "state"]
)
QUEUES = (
    "detect_interactive",
    "detect",
    "mitigate_interactive",
    "mitigate",
    "webhooks",
    "maintenance",
    "index",
)


class QueueDepthCollector:
    """`truthlens_queue_depth{queue}`: messages waiting in each broker queue, read at scrape."""

    def __init__(self, redis_url: str):
        self.redis_url = redis_url

    def collect(self):
        # imported on the first scrape, not by every process that imports the metrics
        import redis
        from prometheus_client.core import GaugeMetricFamily

        family = GaugeMetricFamily("truthlens_queue_depth", "Messages waiting", labels=["queue"])
        try:
            client = redis.Redis.from_url(
                self.redis_url, socket_connect_timeout=1, socket_timeout=1
            )
            for queue in QUEUES:
                family.add_metric([queue], client.llen(queue))
        except redis.RedisError:
            return
        yield family


def gpu_memory_bytes() -> float:
    try:
        # torch is read only where it is already loaded (workers that detect)
        import torch

        return float(torch.cuda.memory_allocated()) if torch.cuda.is_available() else 0.0
    except Exception:  # metrics never break a task
        return 0.0


GPU_MEMORY = Gauge(
    "truthlens_gpu_memory_bytes", "CUDA memory allocated by the detector", multiprocess_mode="max"
)


_queue_depth_registered = False


def register_queue_depth(broker_url: str) -> None:
    """Expose queue depth from the default registry (once per process)."""
    global _queue_depth_registered
    if not _queue_depth_registered:
        REGISTRY.register(QueueDepthCollector(broker_url))
        _queue_depth_registered = True
