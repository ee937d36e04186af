"""Indexing a document on the `index` queue: parse, chunk, embed, write passages.

A document is claimed with a conditional UPDATE and a lease (as jobs are), so a
worker that dies mid-way leaves it for the sweeper, never half-indexed: the new
passages replace the old version's in one transaction at the end, so search keeps
serving the previous version until then. Progress is written after every batch.
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from .chunking import chunk
from .encoder import encode
from .languages import checkable_languages, language_warnings, main_language, passage_languages
from .models import Document, DocumentStatus, Passage
from .parsing import ParseError, extract_text, file_format
from .text_search import config_for, language_of, search_text

log = logging.getLogger(__name__)
BATCH = 64
MAX_ATTEMPTS = 3


def lease() -> timedelta:
    return timedelta(seconds=settings.TRUTHLENS["INDEX_LEASE_SECONDS"])


def claim_document(doc_id: uuid.UUID | str) -> Document | None:
    now = timezone.now()
    claimable = Q(status=DocumentStatus.QUEUED) | Q(
        status=DocumentStatus.INDEXING, lease_expires_at__lt=now
    )
    touched = (
        Document.objects.filter(pk=doc_id)
        .filter(claimable)
        .update(
            status=DocumentStatus.INDEXING,
            lease_expires_at=now + lease(),
            attempts=F("attempts") + 1,
            updated_at=now,
        )
    )
    return Document.objects.get(pk=doc_id) if touched == 1 else None


def _fail(doc: Document, message: str) -> None:
    Document.objects.filter(pk=doc.pk, version=doc.version).update(
        status=DocumentStatus.FAILED,
        error=message[:2000],
        lease_expires_at=None,
        updated_at=timezone.now(),
    )


def index_document(doc: Document) -> bool:
    """Index a claimed document; False when a newer version or a delete overtook it."""
    fmt = file_format(doc.name, doc.content_type)
    try:
        if fmt is None:
            raise ParseError(f"unsupported file type {doc.content_type!r}")
        text = extract_text(bytes(doc.raw), fmt)
    except ParseError as exc:
        _fail(doc, str(exc))
        return True
    chunks = chunk(text)
    languages = passage_languages([c.text for c in chunks], language_of(text))
    Document.objects.filter(pk=doc.pk, version=doc.version).update(
        text=text,
        language=main_language([c.text for c in chunks], languages),
        warnings=language_warnings(languages, checkable_languages()),
        passages_total=len(chunks),
        passages_done=0,
    )
    embeddings: list[bytes] = []
    for i in range(0, len(chunks), BATCH):
        batch = chunks[i : i + BATCH]
        embeddings += [row.tobytes() for row in encode([c.text for c in batch])]
        Document.objects.filter(pk=doc.pk, version=doc.version).update(
            passages_done=len(embeddings),
            lease_expires_at=timezone.now() + lease(),
            updated_at=timezone.now(),
        )
    with transaction.atomic():
        current = (
            Document.objects.select_for_update()
            .filter(pk=doc.pk, version=doc.version, status=DocumentStatus.INDEXING)
            .first()
        )
        if current is None:
            return False
        Passage.objects.filter(document=doc).delete()
        created = Passage.objects.bulk_create(
            [
                Passage(
                    document=doc,
                    tenant_id=doc.tenant_id,
                    knowledge_base_id=doc.knowledge_base_id,
                    version=doc.version,
                    position=n,
                    start=c.start,
                    end=c.end,
                    text=c.text,
                    config=config_for(lang),
                    embedding=emb,
                )
                for n, (c, emb, lang) in enumerate(zip(chunks, embeddings, languages, strict=True))
            ],
            batch_size=500,
        )
        with connection.cursor() as cur:
            # CJK runs as bigrams (`text_search.search_text`); other text as it is
            cur.execute(
                "UPDATE knowledge_passage p SET tsv = to_tsvector(p.config::regconfig, v.t) "
                "FROM unnest(%s::bigint[], %s::text[]) AS v(id, t) WHERE p.id = v.id",
                [[p.pk for p in created], [search_text(p.text) for p in created]],
            )
        now = timezone.now()
        Document.objects.filter(pk=doc.pk).update(
            status=DocumentStatus.READY,
            error="",
            lease_expires_at=None,
            indexed_at=now,
            updated_at=now,
        )
    log.info("indexed document %s: %s passages (%s)", doc.pk, len(chunks), set(languages))
    return True


def run(doc_id: uuid.UUID | str) -> None:
    """The task's body: claim, index, and fail the document after `MAX_ATTEMPTS`."""
    doc = claim_document(doc_id)
    if doc is None:
        return
    if doc.attempts > MAX_ATTEMPTS:
        _fail(doc, f"gave up after {MAX_ATTEMPTS} attempts")
        return
    try:
        index_document(doc)
    except Exception as exc:  # a bug or a lost database must not leave it "indexing" forever
        log.exception("indexing document %s failed", doc.pk)
        if doc.attempts >= MAX_ATTEMPTS:
            _fail(doc, f"indexing failed: {type(exc).__name__}")
        raise
