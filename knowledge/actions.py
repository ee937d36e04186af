"""Every write to knowledge bases: create and delete bases, upload, replace and
delete documents (each upload queued for indexing), and the web search settings."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from tenants.models import Tenant

from . import signatures
from .fetching import FetchError, checked, name_of
from .models import Document, DocumentStatus, DocumentVersion, KnowledgeBase, WebSearchSettings
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


class WrongSignature(UnsupportedFormat):
    """The bytes are not the format the upload claims (answered 415, with a hint)."""


class DuplicateFile(Exception):
    """The knowledge base holds a document with the same bytes (`existing`)."""

    def __init__(self, existing: Document):
        super().__init__(f"this file is already in the knowledge base as {existing.public_id}")
        self.existing = existing


#: What an upload whose bytes a document of the knowledge base already has does:
#: "existing" answers with that document (the default: an upload retried is not stored
#: twice), "refuse" answers 409, "allow" stores another copy.
ON_DUPLICATE = ("existing", "refuse", "allow")


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
            "unsupported file type: upload plain text, Markdown, HTML, PDF, DOCX, PPTX, CSV, "
            "JSON or e-mail (by Content-Type or a .txt, .md, .html, .pdf, .docx, .pptx, .csv, "
            ".json or .eml name)"
        )
    _, max_bytes = limits(tenant)
    if len(upload.raw) > max_bytes:
        raise LimitExceeded(
            f"the document is {len(upload.raw)} bytes; the plan allows {max_bytes} per document",
            status=413,
        )
    if not upload.raw:
        raise UnsupportedFormat("the file is empty")
    try:
        signatures.check(upload.raw, fmt, upload.content_type or upload.name)
    except signatures.SignatureMismatch as exc:
        raise WrongSignature(str(exc)) from exc
    return fmt


def _new_version(doc: Document, number: int, upload: Upload, **extra) -> DocumentVersion:
    return DocumentVersion.objects.create(
        document=doc,
        tenant_id=doc.tenant_id,
        number=number,
        name=upload.name[:255] or doc.name,
        content_type=upload.content_type[:100],
        size_bytes=len(upload.raw),
        sha256=hashlib.sha256(upload.raw).hexdigest(),
        raw=upload.raw,
        **extra,
    )


def add_document(kb: KnowledgeBase, upload: Upload, on_duplicate: str = "allow") -> Document:
    """Store the upload as the document's version 1 and queue it for indexing (after commit).

    With `on_duplicate` "existing" or "refuse", a file whose bytes a document of `kb`
    already has raises `DuplicateFile` (the caller answers with that document or 409)."""
    _checked(kb.tenant, upload)
    max_documents, _ = limits(kb.tenant)
    digest = hashlib.sha256(upload.raw).hexdigest()
    with transaction.atomic():
        Tenant.objects.select_for_update().filter(pk=kb.tenant_id).first()
        if on_duplicate != "allow":
            same = Document.objects.filter(knowledge_base=kb, sha256=digest).defer("raw", "text")
            existing = same.order_by("created_at").first()
            if existing is not None:
                raise DuplicateFile(existing)
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
        _new_version(doc, 1, upload)
        enqueue_index(doc.pk)
    return doc


def add_from_url(
    kb: KnowledgeBase, url: str, name: str = "", metadata: dict | None = None
) -> Document:
    """A document the index worker fetches from `url` (checked against internal addresses
    now, and again when it is fetched); its type is the one the server answers with."""
    try:
        checked(url)
    except FetchError as exc:
        raise UnsupportedFormat(str(exc)) from exc
    name = (name or name_of(url))[:255]
    max_documents, _ = limits(kb.tenant)
    with transaction.atomic():
        Tenant.objects.select_for_update().filter(pk=kb.tenant_id).first()
        if Document.objects.filter(tenant_id=kb.tenant_id).count() >= max_documents:
            raise LimitExceeded(f"the plan allows at most {max_documents} documents")
        doc = Document.objects.create(
            tenant_id=kb.tenant_id,
            knowledge_base=kb,
            name=name,
            content_type="",
            size_bytes=0,
            sha256="",
            raw=b"",
            source_url=url,
            metadata=metadata or {},
        )
        _new_version(doc, 1, Upload(name, "", b""), source_url=url)
        enqueue_index(doc.pk)
    return doc


def set_metadata(doc: Document, metadata: dict) -> Document:
    """Replace the document's metadata (already merged and checked by the caller)."""
    Document.objects.filter(pk=doc.pk).update(metadata=metadata, updated_at=timezone.now())
    doc.metadata = metadata
    return doc


MAX_BATCH = 50


def _next_version(doc: Document, upload: Upload, **extra) -> DocumentVersion:
    """A new version, queued; the document keeps serving the one it serves until it is
    ready (a document never served yet shows the new upload at once).

    Metadata belongs to the document, not to a version: an upload that carries some
    replaces the document's at once (None keeps it), whichever version is served."""
    with transaction.atomic():
        locked = Document.objects.select_for_update().get(pk=doc.pk)
        number = (locked.versions.aggregate(n=Max("number"))["n"] or locked.version) + 1
        version = _new_version(locked, number, upload, **extra)
        if upload.metadata is not None:
            Document.objects.filter(pk=locked.pk).update(metadata=upload.metadata)
            doc.metadata = upload.metadata
        if locked.indexed_at is None:  # nothing served: the document is this upload now
            Document.objects.filter(pk=locked.pk).update(
                name=version.name,
                content_type=version.content_type,
                size_bytes=version.size_bytes,
                sha256=version.sha256,
                raw=upload.raw,
                version=number,
                status=DocumentStatus.QUEUED,
                error="",
                attempts=0,
                passages_done=0,
                lease_expires_at=None,
                updated_at=timezone.now(),
            )
        enqueue_index(locked.pk)
    return version


def replace_document(doc: Document, upload: Upload) -> DocumentVersion:
    """A new version (a PUT): indexed like an upload; the old one is searched and
    downloaded until the new one is ready, and stays if the new one fails."""
    _checked(doc.tenant, upload)
    return _next_version(doc, upload)


class NoSuchVersion(LookupError):
    pass


def restore_version(doc: Document, number: int) -> DocumentVersion:
    """Serve an earlier version again: its bytes become a new version, indexed like a
    replacement (history only grows; the restored one is named in `restored_from`)."""
    old = DocumentVersion.objects.filter(document=doc, number=number).first()
    if old is None or not bytes(old.raw):
        raise NoSuchVersion(f"document has no version {number}")
    upload = Upload(old.name, old.content_type, bytes(old.raw))
    return _next_version(doc, upload, restored_from=number)


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
