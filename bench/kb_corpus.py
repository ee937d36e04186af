"""Building benchmark knowledge bases in Postgres (shared by the retrieval benches).

Documents are chunked and embedded exactly as `knowledge.indexing` does, but in
large batches across documents, and written with one INSERT ... SELECT per batch
that computes the tsvector in Postgres (the GIN index is maintained as rows land).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from django.db import connection

from knowledge.chunking import chunk
from knowledge.models import Document, KnowledgeBase
from knowledge.text_search import config_for, language_of
from tenants.models import Tenant

BATCH = 256


@dataclass
class IndexedDoc:
    document: Document
    text: str
    passages: list[tuple[int, int, int]]  # (passage id, start, end)


def fresh_tenant(slug: str) -> Tenant:
    Tenant.objects.filter(slug=slug).delete()  # cascades to its knowledge bases
    return Tenant.objects.create(slug=slug, name=slug)


def _insert(rows: Sequence[tuple], config_rows: bool = True) -> list[int]:
    """rows: (document_id, tenant_id, kb_id, position, start, end, text, config, embedding)."""
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO knowledge_passage (document_id, tenant_id, knowledge_base_id, version,"
            ' position, start, "end", text, config, tsv, embedding, location) '
            "SELECT d, t, k, 1, p, s, e, x, c, to_tsvector(c::regconfig, x), b, '{}' FROM unnest("
            "%s::uuid[], %s::bigint[], %s::uuid[], %s::int[], %s::int[], %s::int[], %s::text[],"
            " %s::text[], %s::bytea[]) AS u(d, t, k, p, s, e, x, c, b) RETURNING id",
            [list(col) for col in zip(*rows, strict=True)],
        )
        return [r[0] for r in cur.fetchall()]


def index_texts(
    tenant: Tenant, kb: KnowledgeBase, docs: Iterable[tuple[str, str]], encode
) -> list[IndexedDoc]:
    """Index (name, text) documents into `kb`; `encode(list[str]) -> unit vectors`."""
    out: list[IndexedDoc] = []
    pending: list[tuple[IndexedDoc, int, object]] = []
    started = time.monotonic()

    def flush() -> None:
        if not pending:
            return
        vectors = encode([c.text for _, _, c in pending]).astype(np.float32)
        rows = []
        for (doc, position, c), vec in zip(pending, vectors, strict=True):
            config = config_for(doc.document.language)
            rows.append(
                (
                    doc.document.pk,
                    tenant.pk,
                    kb.pk,
                    position,
                    c.start,
                    c.end,
                    c.text,
                    config,
                    vec.tobytes(),
                )
            )
        ids = _insert(rows)
        for (doc, _, c), pid in zip(pending, ids, strict=True):
            doc.passages.append((pid, c.start, c.end))
        pending.clear()

    for name, text in docs:
        language = language_of(text)
        document = Document.objects.create(
            tenant=tenant,
            knowledge_base=kb,
            name=name[:255],
            content_type="text/plain",
            size_bytes=len(text.encode()),
            sha256="",
            raw=b"",
            text=text,
            language=language,
            status="ready",
        )
        doc = IndexedDoc(document, text, [])
        out.append(doc)
        for position, c in enumerate(chunk(text)):
            pending.append((doc, position, c))
            if len(pending) >= BATCH:
                flush()
    flush()
    print(f"   indexed {len(out)} documents in {time.monotonic() - started:.0f} s")
    return out
