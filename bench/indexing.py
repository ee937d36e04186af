"""Indexing speed: passages per second through the indexing task's own code.

Uploads documents into a fresh tenant's knowledge base (`actions.add_document`, as the API
does) and runs the task body (`indexing.run`) on each, in this process, as an index worker
does with its encoder already loaded (`workers/signals.py` preloads it). Prints passages/s
over the whole run (parse, chunk, embed, write passages and their tsvectors), the
encoder's share, and the SQL statements per document. The encoder runs at
`TRUTHLENS_INDEX_DTYPE` (float32 unless set).

    python bench/indexing.py                    # README.md and docs/*.md, 3 copies
    python bench/indexing.py --files a.pdf b.md --copies 1
    TRUTHLENS_INDEX_DTYPE=bfloat16 python bench/indexing.py --json bench/results/x.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import django_env  # noqa: E402,F401
from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from knowledge import actions, indexing  # noqa: E402
from knowledge.encoder import encode_passages  # noqa: E402
from knowledge.languages import checkable_languages  # noqa: E402
from knowledge.models import Document, KnowledgeBase  # noqa: E402
from tenants.models import Tenant  # noqa: E402

SLUG = "bench-indexing"
TYPES = {".md": "text/markdown", ".pdf": "application/pdf", ".html": "text/html"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", nargs="*", type=Path)
    parser.add_argument("--copies", type=int, default=3, help="upload each file this many times")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    files = args.files or [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

    Tenant.objects.filter(slug=SLUG).delete()
    tenant = Tenant.objects.create(slug=SLUG, name=SLUG)
    kb = KnowledgeBase.objects.create(tenant=tenant, name="bench")
    # an index worker loads the encoder and the detector (its languages) when it starts
    encode_passages(["warm up"])
    checkable_languages()

    for copy in range(args.copies):
        for path in files:
            # a distinct first line per copy, so the duplicate-upload check lets it in
            raw = path.read_bytes() if path.suffix == ".pdf" else f"copy {copy}\n\n".encode()
            raw += b"" if path.suffix == ".pdf" else path.read_bytes()
            kind = TYPES.get(path.suffix, "text/plain")
            upload = actions.Upload(f"{copy}-{path.name}", kind, raw)
            actions.add_document(kb, upload)
    ids = list(Document.objects.filter(knowledge_base=kb).values_list("pk", flat=True))

    encoder_seconds = 0.0
    real_encode = indexing.encode_passages

    def timed_encode(texts):
        nonlocal encoder_seconds
        started = time.perf_counter()
        try:
            return real_encode(texts)
        finally:
            encoder_seconds += time.perf_counter() - started

    indexing.encode_passages = timed_encode
    started = time.perf_counter()
    with CaptureQueriesContext(connection) as queries:
        for pk in ids:
            indexing.run(pk)
    seconds = time.perf_counter() - started
    docs = Document.objects.filter(knowledge_base=kb)
    passages = sum(d.passages_total for d in docs)
    result = {
        "dtype": settings.TRUTHLENS["INDEX_DTYPE"],
        "documents": len(ids),
        "ready": docs.filter(status="ready").count(),
        "passages": passages,
        "bytes": sum(d.size_bytes for d in docs),
        "seconds": round(seconds, 2),
        "passages_per_s": round(passages / seconds, 1),
        "encoder_seconds": round(encoder_seconds, 2),
        "encoder_passages_per_s": round(passages / encoder_seconds, 1) if encoder_seconds else None,
        "sql_statements_per_document": round(len(queries) / max(1, len(ids)), 1),
    }
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    tenant.delete()
    return 0 if result["ready"] == result["documents"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
