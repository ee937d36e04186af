"""Indexing knowledge-base documents (on the `index` queue, its own workers)."""

from __future__ import annotations

from celery import shared_task

from knowledge import indexing
from knowledge.queueing import QUEUE_INDEX, TASK_INDEX

from .options import JOB_TASK_OPTIONS


@shared_task(name=TASK_INDEX, queue=QUEUE_INDEX, **JOB_TASK_OPTIONS)
def index_document(doc_id: str) -> None:
    """Idempotent on the document id: only a queued document (or an expired lease) runs."""
    indexing.run(doc_id)
