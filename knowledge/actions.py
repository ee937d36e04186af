"""Every write to knowledge bases: create and delete bases, upload, replace and
delete documents (each upload queued for indexing), and the web search settings."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from tenants.models import Tenant

from .models import Document, DocumentStatus, KnowledgeBase, WebSearchSettings
from .parsing import file_format
from .queueing import enqueue_index

DEFAULT_MAX_DOCUMENTS = 1000
DEFAULT_MAX_BYTES = 10 * 1024 * 1024


class LimitExceeded(Exception):
    """A plan or service limit refuses the write; `status` is the HTTP status to answer."""

    def __init__(self, message: str, status: int = 403):
        super().__init__(message)
        self.status = status


class DuplicateName(Exception):
    pass


class UnsupportedFormat(ValueError):
    pass


@dataclass(frozen=True)
class Upload:
    name: str
    content_type: str
    raw: bytes
    metadata: dict | None = None  # checked (`knowledge.metadata`); None: keep / none


def limits(tenant: Tenant) -> tuple[int, int]:
    """(documents per tenant, bytes per document) of the tenant's plan."""
    plan = tenant.plan
    if plan is None:
        return DEFAULT_MAX_DOCUMENTS, DEFAULT_MAX_BYTES
    return plan.kb_max_documents, plan.kb_max_document_bytes


def create_knowledge_base(tenant: Tenant, name: str, description: str = "") -> KnowledgeBase:
    cap = settings.TRUTHLENS["MAX_KNOWLEDGE_BASES"]
    with transaction.atomic():
        Tenant.objects.select_for_update().filter(pk=tenant.pk).first()
        if KnowledgeBase.objects.filter(tenant=tenant).count() >= cap:
            raise LimitExceeded(f"a tenant may have at most {cap} knowledge bases")
        try:
            with transaction.atomic():
                return KnowledgeBase.objects.create(
                    tenant=tenant, name=name, description=description
                )
        except IntegrityError as exc:
            raise DuplicateName(f"a knowledge base named {name!r} exists") from exc


def _checked(tenant: Tenant, upload: Upload) -> str:
    fmt = file_format(upload.name, upload.content_type)
    if fmt is None:
        raise UnsupportedFormat(
            "unsupported file type: upload plain text, Markdown, HTML or PDF "
            "(by Content-Type or a .txt, .md, .html or .pdf name)"
        )
    _, max_bytes = limits(tenant)
    if len(upload.raw) > max_bytes:
        raise LimitExceeded(
            f"the document is {len(upload.raw)} bytes; the plan allows {max_bytes} per document",
            status=413,
        )
    if not upload.raw:
        raise UnsupportedFormat("the file is empty")
    return fmt


def add_document(kb: KnowledgeBase, upload: Upload) -> Document:
    """Store the upload and queue it for indexing (after commit)."""
    _checked(kb.tenant, upload)
    max_documents, _ = limits(kb.tenant)
    with transaction.atomic():
        Tenant.objects.select_for_update().filter(pk=kb.tenant_id).first()
        if Document.objects.filter(tenant_id=kb.tenant_id).count() >= max_documents:
            raise LimitExceeded(f"the plan allows at most {max_documents} documents")
        doc = Document.objects.create(
            tenant_id=kb.tenant_id,
            knowledge_base=kb,
            name=upload.name[:255],
            content_type=upload.content_type[:100],
            size_bytes=len(upload.raw),
            sha256=hashlib.sha256(upload.raw).hexdigest(),
            raw=upload.raw,
            metadata=upload.metadata or {},
        )
        enqueue_index(doc.pk)
    return doc


def replace_document(doc: Document, upload: Upload) -> Document:
    """A new version: indexed like an upload; search serves the old one until then."""
    _checked(doc.tenant, upload)
    with transaction.atomic():
        doc = Document.objects.select_for_update().get(pk=doc.pk)
        doc.name = upload.name[:255] or doc.name
        doc.content_type = upload.content_type[:100]
        doc.size_bytes = len(upload.raw)
        doc.sha256 = hashlib.sha256(upload.raw).hexdigest()
        doc.raw = upload.raw
        if upload.metadata is not None:
            doc.metadata = upload.metadata
        doc.version += 1
        doc.status = DocumentStatus.QUEUED
        doc.error = ""
        doc.attempts = 0
        doc.passages_done = 0
        doc.lease_expires_at = None
        doc.updated_at = timezone.now()
        doc.save()
        enqueue_index(doc.pk)
    return doc


def set_metadata(doc: Document, metadata: dict) -> Document:
    """Replace the document's metadata (already merged and checked by the caller)."""
    Document.objects.filter(pk=doc.pk).update(metadata=metadata, updated_at=timezone.now())
    doc.metadata = metadata
    return doc


def delete_document(doc: Document) -> None:
    """Gone with its passages in one statement: search stops finding it at once."""
    Document.objects.filter(pk=doc.pk).delete()


def delete_knowledge_base(kb: KnowledgeBase) -> None:
    KnowledgeBase.objects.filter(pk=kb.pk).delete()


def save_web_search(tenant: Tenant, fields: dict) -> WebSearchSettings:
    """Create or update the tenant's provider; a new key replaces the old one in one
    write, so requests never see the provider without a key."""
    fields = dict(fields)
    key = fields.pop("api_key", None)
    with transaction.atomic():
        config = WebSearchSettings.objects.select_for_update().filter(tenant=tenant).first()
        config = config or WebSearchSettings(tenant=tenant)
        for name, value in fields.items():
            setattr(config, name, value)
        if key:
            config.api_key = key
        config.save()
    return config
