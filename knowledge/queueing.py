"""Sending a document to the indexing task, and the sweeper's second chance.

The document row is durable before the message is sent; a message lost with a
broker outage or a killed worker is re-sent by `sweep_documents` (run by beat
with the job sweeper), so an accepted upload is always indexed or failed.
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta

from celery import current_app
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import RedisError

from .models import DocumentVersion, VersionStatus

log = logging.getLogger(__name__)

TASK_INDEX = "truthlens.index_document"
#: Indexing has its own queue and workers (`-Q index`): a large upload neither waits behind
#: verifications nor delays them.
QUEUE_INDEX = "index"
STALE_QUEUED = timedelta(seconds=30)


def send_index(doc_id: uuid.UUID) -> bool:
    try:
        current_app.send_task(TASK_INDEX, args=[str(doc_id)], queue=QUEUE_INDEX, retry=False)
    except (KombuOperationalError, RedisError, OSError) as exc:
        log.warning("broker unavailable, document %s left for the sweeper: %s", doc_id, exc)
        return False
    return True


def enqueue_index(doc_id: uuid.UUID) -> None:
    """Send the document to indexing once the surrounding transaction commits."""
    transaction.on_commit(lambda: send_index(doc_id))


def sweep_documents(limit: int = 200) -> int:
    """Re-send documents with a version queued for a while or whose indexing lease expired."""
    now = timezone.now()
    stuck = (
        DocumentVersion.objects.filter(
            Q(status=VersionStatus.QUEUED, updated_at__lt=now - STALE_QUEUED)
            | Q(status=VersionStatus.INDEXING, lease_expires_at__lt=now)
        )
        .values_list("document_id", flat=True)
        .distinct()[:limit]
    )
    sent = 0
    for pk in stuck:
        DocumentVersion.objects.filter(document_id=pk, status=VersionStatus.QUEUED).update(
            updated_at=now
        )
        sent += send_index(pk)
    return sent
