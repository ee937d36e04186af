"""Indexing a document version on the `index` queue: parse, chunk, embed, write passages.

A version is claimed with a conditional UPDATE and a lease (as jobs are), so a worker
that dies mid-way leaves it for the sweeper, never half-indexed. The new passages
replace the served version's in one transaction at the end, and the document row
takes the new version's name, bytes and text in that same transaction: until then
search and downloads serve the previous version, and a version that fails leaves the
document as it was, with the failure in its history.

Cost (issue 24): the encoder is the work; everything else is a fixed number of queries
per document, whatever its passage count. Passages are encoded in length-sorted batches
(`embed`), written with their tsvectors in one `INSERT ... SELECT FROM unnest(...)`
(`_insert_passages`), and progress (which renews the lease) is written at most every
`PROGRESS_SECONDS`, not after every batch.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from . import events, signatures
from .chunking import chunk
from .encoder import encode_passages
from .fetching import FetchError, fetch
from .languages import checkable_languages, language_warnings, main_language, passage_languages
from .models import Document, DocumentStatus, DocumentVersion, Passage, VersionStatus
from .parsing import Extracted, ParseError, extract, file_format
from .text_search import config_for, language_of, search_text

log = logging.getLogger(__name__)
BATCH = 64  # passages per encoder call
PROGRESS_SECONDS = 5.0  # progress (and the lease) is written at most this often while encoding
MAX_ATTEMPTS = 3
_WORKING = (VersionStatus.QUEUED, VersionStatus.INDEXING)


def lease() -> timedelta:
    return timedelta(seconds=settings.TRUTHLENS["INDEX_LEASE_SECONDS"])


def _mirror(version: DocumentVersion, **fields) -> None:
    """A document that has never been served shows its first version's state."""
    Document.objects.filter(pk=version.document_id, indexed_at__isnull=True).update(**fields)


def claim_version(doc_id: uuid.UUID | str) -> DocumentVersion | None:
    """The document's newest version, if it is queued (or its lease expired); older
    versions still waiting are superseded by it: the newest upload wins."""
    now = timezone.now()
    with transaction.atomic():
        latest = (
            DocumentVersion.objects.select_for_update()
            .filter(document_id=doc_id)
            .order_by("-number")
            .first()
        )
        if latest is None:
            return None
        expired = latest.lease_expires_at is not None and latest.lease_expires_at < now
        if not (
            latest.status == VersionStatus.QUEUED
            or (latest.status == VersionStatus.INDEXING and expired)
        ):
            return None
        DocumentVersion.objects.filter(
            document_id=doc_id, number__lt=latest.number, status__in=_WORKING
        ).update(status=VersionStatus.SUPERSEDED, lease_expires_at=None, updated_at=now)
        latest.status = VersionStatus.INDEXING
        latest.lease_expires_at = now + lease()
        latest.attempts += 1
        latest.updated_at = now
        latest.save(update_fields=["status", "lease_expires_at", "attempts", "updated_at"])
        _mirror(
            latest,
            status=DocumentStatus.INDEXING,
            lease_expires_at=latest.lease_expires_at,
            attempts=latest.attempts,
            updated_at=now,
        )
    return latest


def _fail(version: DocumentVersion, message: str) -> None:
    now = timezone.now()
    with transaction.atomic():
        touched = DocumentVersion.objects.filter(pk=version.pk, status__in=_WORKING).update(
            status=VersionStatus.FAILED,
            error=message[:2000],
            lease_expires_at=None,
            updated_at=now,
        )
        if touched:
            _mirror(
                version,
                status=DocumentStatus.FAILED,
                error=message[:2000],
                lease_expires_at=None,
                updated_at=now,
            )
            events.document_event(version.document_id, version.pk, events.FAILED)


def embed(texts: list[str], progress: Callable[[int], object]) -> list[bytes]:
    """Each text's embedding, encoded in batches of similar lengths (shortest first), so a
    batch pads to little more than its own texts. `progress(done)` is called when a batch
    ends `PROGRESS_SECONDS` or more after the last call, and after the last batch."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out: list[bytes] = [b""] * len(texts)
    reported = time.monotonic()
    for i in range(0, len(order), BATCH):
        picked = order[i : i + BATCH]
        for j, row in zip(picked, encode_passages([texts[j] for j in picked]), strict=True):
            out[j] = row.tobytes()
        done = min(i + BATCH, len(order))
        if done == len(order) or time.monotonic() - reported >= PROGRESS_SECONDS:
            progress(done)
            reported = time.monotonic()
    return out


_INSERT = (
    "INSERT INTO knowledge_passage (document_id, tenant_id, knowledge_base_id, version,"
    ' position, start, "end", text, config, tsv, embedding, location) '
    "SELECT %s, %s, %s, %s, u.n, u.s, u.e, u.x, u.c, to_tsvector(u.c::regconfig, u.q), u.b,"
    " u.l::jsonb FROM unnest(%s::int[], %s::int[], %s::int[], %s::text[], %s::text[],"
    " %s::text[], %s::bytea[], %s::text[]) AS u(n, s, e, x, c, q, b, l)"
)


def _insert_passages(
    doc: Document, number: int, chunks: list, embeddings: list[bytes], languages: list[str],
    extracted: Extracted,
) -> None:  # fmt: skip
    """All the version's passages, with their tsvectors, in one statement (the statistics
    triggers on `knowledge_passage` run per row as for any INSERT). CJK runs are read as
    bigrams (`text_search.search_text`), other text as it is."""
    if not chunks:
        return
    columns: list[list] = [[], [], [], [], [], [], [], []]
    for n, (c, emb, lang) in enumerate(zip(chunks, embeddings, languages, strict=True)):
        row = (
            n,
            c.start,
            c.end,
            c.text,
            config_for(lang),
            search_text(c.text),
            emb,
            json.dumps(_where(extracted, c.start, c.end)),
        )
        for column, value in zip(columns, row, strict=True):
            column.append(value)
    with connection.cursor() as cur:
        cur.execute(_INSERT, [doc.pk, doc.tenant_id, doc.knowledge_base_id, number, *columns])


def _fetched(version: DocumentVersion) -> DocumentVersion:
    """Fetch a URL version's file (through the address guard) and store it on the version,
    checked as an upload is: a known type, within the plan's size, its signature."""
    from .actions import limits  # the plan's size limit

    _, max_bytes = limits(version.document.tenant)
    got = fetch(version.source_url, max_bytes)
    content_type = got.content_type or version.content_type
    fmt = file_format(version.name, content_type)
    if fmt is None:
        raise ParseError(f"the URL answered an unsupported type {content_type!r}")
    try:
        signatures.check(got.raw, fmt, content_type)
    except signatures.SignatureMismatch as exc:
        raise ParseError(str(exc)) from exc
    fields = {
        "raw": got.raw,
        "content_type": content_type[:100],
        "size_bytes": len(got.raw),
        "sha256": hashlib.sha256(got.raw).hexdigest(),
    }
    DocumentVersion.objects.filter(pk=version.pk).update(**fields)
    _mirror(version, **fields)
    for name, value in fields.items():
        setattr(version, name, value)
    return version


def _where(extracted: Extracted, start: int, end: int) -> dict:
    """The passage's location in the file: where it starts, the page (or slide) it ends on
    when that is another, and under "within" each segment it crosses, as (offset in the
    passage, location), so evidence inside it can name its own page or heading."""
    location = extracted.location(start)
    last = extracted.location(max(start, end - 1))
    for key in ("page", "slide"):
        if key in location and last.get(key) != location[key]:
            location[f"{key}_end"] = last.get(key)
    within = [[offset - start, loc] for offset, loc in extracted.marks if start < offset < end]
    if within:
        location["within"] = [[0, extracted.location(start)], *within]
    return location


def index_version(version: DocumentVersion) -> bool:
    """Index a claimed version; False when a newer version or a delete overtook it."""
    if version.source_url and not bytes(version.raw):
        try:
            version = _fetched(version)
        except (FetchError, ParseError) as exc:
            _fail(version, str(exc))
            return True
    fmt = file_format(version.name, version.content_type)
    try:
        if fmt is None:
            raise ParseError(f"unsupported file type {version.content_type!r}")
        extracted = extract(bytes(version.raw), fmt)
    except ParseError as exc:
        _fail(version, str(exc))
        return True
    text = extracted.text
    chunks = chunk(text)
    # each passage in its own language (`languages`); the document's is most of its text's
    languages = passage_languages([c.text for c in chunks], language_of(text))
    language = main_language([c.text for c in chunks], languages)
    warnings = language_warnings(languages, checkable_languages())
    DocumentVersion.objects.filter(pk=version.pk).update(
        text=text,
        language=language,
        warnings=warnings,
        passages_total=len(chunks),
        passages_done=0,
    )
    _mirror(
        version, language=language, warnings=warnings, passages_total=len(chunks), passages_done=0
    )

    def progress(done: int) -> None:
        fields = {
            "passages_done": done,
            "lease_expires_at": timezone.now() + lease(),
            "updated_at": timezone.now(),
        }
        DocumentVersion.objects.filter(pk=version.pk, status=VersionStatus.INDEXING).update(
            **fields
        )
        _mirror(version, **fields)

    embeddings = embed([c.text for c in chunks], progress)
    with transaction.atomic():
        current = (
            DocumentVersion.objects.select_for_update()
            .filter(pk=version.pk, status=VersionStatus.INDEXING)
            .first()
        )
        doc = Document.objects.select_for_update().filter(pk=version.document_id).first()
        if current is None or doc is None:
            return False
        Passage.objects.filter(document=doc).delete()
        _insert_passages(doc, version.number, chunks, embeddings, languages, extracted)
        now = timezone.now()
        DocumentVersion.objects.filter(pk=version.pk).update(
            status=VersionStatus.READY,
            error="",
            passages_done=len(chunks),
            lease_expires_at=None,
            indexed_at=now,
            updated_at=now,
        )
        Document.objects.filter(pk=doc.pk).update(
            source_url=version.source_url,
            name=version.name,
            content_type=version.content_type,
            size_bytes=version.size_bytes,
            sha256=version.sha256,
            raw=bytes(version.raw),
            version=version.number,
            status=DocumentStatus.READY,
            error="",
            text=text,
            language=language,
            warnings=warnings,
            passages_total=len(chunks),
            passages_done=len(chunks),
            attempts=version.attempts,
            lease_expires_at=None,
            indexed_at=now,
            updated_at=now,
        )
        events.document_event(doc.pk, version.pk, events.READY)
    log.info(
        "indexed document %s version %s: %s passages (%s)",
        doc.pk,
        version.number,
        len(chunks),
        sorted(set(languages)),
    )
    return True


def run(doc_id: uuid.UUID | str) -> None:
    """The task's body: claim, index, and fail the version after `MAX_ATTEMPTS`."""
    version = claim_version(doc_id)
    if version is None:
        return
    if version.attempts > MAX_ATTEMPTS:
        _fail(version, f"gave up after {MAX_ATTEMPTS} attempts")
        return
    try:
        index_version(version)
    except Exception as exc:  # a bug or a lost database must not leave it "indexing" forever
        log.exception("indexing document %s version %s failed", doc_id, version.number)
        if version.attempts >= MAX_ATTEMPTS:
            _fail(version, f"indexing failed: {type(exc).__name__}")
        raise
