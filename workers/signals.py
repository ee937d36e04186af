"""Celery signal hooks: correlation ids across the queue, tracing and worker metrics.

Worker metrics: with `PROMETHEUS_MULTIPROC_DIR` set (required for the prefork
pool, whose children record the task metrics) and `TRUTHLENS_WORKER_METRICS_PORT`,
the main worker process serves all children's metrics on that port.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from celery import signals
from django.conf import settings
from prometheus_client import REGISTRY, CollectorRegistry, multiprocess, start_http_server

from observability import metrics, tracing
from observability.logcontext import bind, request_id_var

log = logging.getLogger(__name__)
_started: dict[str, float] = {}
_bound: dict[str, Any] = {}
HEADER = "truthlens_request_id"


@signals.before_task_publish.connect
def _carry_request_id(headers=None, **kwargs):
    if headers is not None and request_id_var.get():
        headers[HEADER] = request_id_var.get()
    if headers is not None:
        tracing.inject(headers)


@signals.task_prerun.connect
def _task_started(task_id=None, task=None, **kwargs):
    _started[task_id] = time.monotonic()
    request_id = (getattr(task.request, HEADER, None) or "") if task else ""
    context = bind(request_id=request_id or task_id or "")
    context.__enter__()
    _bound[task_id] = context


@signals.task_postrun.connect
def _task_finished(task_id=None, task=None, state=None, **kwargs):
    started = _started.pop(task_id, None)
    if started is not None and task is not None:
        metrics.TASK_SECONDS.labels(task=task.name).observe(time.monotonic() - started)
    if task is not None and state == "SUCCESS":
        metrics.TASKS.labels(task=task.name, state="succeeded").inc()
    context = _bound.pop(task_id, None)
    if context is not None:
        context.__exit__(None, None, None)


@signals.task_failure.connect
def _task_failed(sender=None, **kwargs):
    metrics.TASKS.labels(task=getattr(sender, "name", "unknown"), state="failed").inc()


@signals.task_retry.connect
def _task_retried(sender=None, **kwargs):
    metrics.TASKS.labels(task=getattr(sender, "name", "unknown"), state="retried").inc()


@signals.worker_ready.connect
def _serve_metrics(**kwargs):
    port = os.environ.get("TRUTHLENS_WORKER_METRICS_PORT")
    if not port:
        return
    registry = REGISTRY
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        registry.register(metrics.QueueDepthCollector(settings.CELERY_BROKER_URL))
    start_http_server(int(port), registry=registry)
    log.info("worker metrics on :%s", port)


@signals.worker_process_shutdown.connect
def _mark_dead(pid=None, **kwargs):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(pid or os.getpid())


@signals.worker_process_init.connect
def _preload_models(**kwargs):
    """Load the detector and query classifier when a pool process starts, not on its first job."""
    if not settings.TRUTHLENS["PRELOAD_MODELS"]:
        return
    queues = consumed_queues()
    try:
        if queues & INDEX_QUEUES:  # kept loaded for every document this process indexes
            from knowledge.encoder import encode_passages
            from knowledge.languages import checkable_languages

            encode_passages(["warm up"])
            checkable_languages()  # the detector's languages (each document's warnings)
        if not queues or queues - INDEX_QUEUES:  # the detector only where jobs run
            # The engine's models load torch; only pool processes that preload need them now.
            from engine import default_classifier
            from verification.stages.sentences import warm_up
            from verification.tenant_config import service_detector

            service_detector()
            default_classifier()
            warm_up()  # the detection pipeline's first use: a gateway stream's sentences wait on it
    except Exception:  # a task will load (and report) it again
        log.exception("preloading models failed")


INDEX_QUEUES = {"index"}


def consumed_queues() -> set[str]:
    """The queues this worker reads (its `-Q`); empty when it reads every queue."""
    from celery import current_app

    return set(current_app.amqp.queues.consume_from or ())
