"""Webhook events for documents: `document.ready` and `document.failed`.

Deliveries are rows created in the transaction that makes the version ready or failed
(as a verification's are), sent after commit; the dispatcher retries them like any
other delivery. Each subscribed endpoint of the tenant gets one (an endpoint with no
`events` list takes every event).
"""

from __future__ import annotations

from django.db import transaction

from verification.webhooks.dispatch import enqueue, tenant_event_deliveries

from .models import Document, DocumentVersion

READY = "document.ready"
FAILED = "document.failed"
EVENTS = (READY, FAILED)


def payload_of(doc: Document, version: DocumentVersion) -> dict:
    return {
        "id": doc.public_id,
        "knowledge_base": f"kb_{doc.knowledge_base_id.hex}",
        "name": version.name,
        "version": version.number,
        "served_version": doc.version if doc.indexed_at else None,
        "status": version.status,
        "error": version.error,
        "passages_total": version.passages_total,
        "source_url": version.source_url,
    }


def document_event(doc_id, version_id: int, event_type: str) -> None:
    """Record one delivery per subscribed endpoint (inside the caller's transaction)."""
    doc = Document.objects.defer("raw", "text").filter(pk=doc_id).first()
    version = DocumentVersion.objects.defer("raw", "text").filter(pk=version_id).first()
    if doc is None or version is None:
        return
    ids = tenant_event_deliveries(doc.tenant_id, event_type, payload_of(doc, version))
    transaction.on_commit(lambda: enqueue(ids))
