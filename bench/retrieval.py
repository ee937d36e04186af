"""Knowledge-base retrieval: recall of the gold evidence, and latency at 10k and 1M passages.

    python bench/retrieval.py [--limit N] [--million] [--queries 200] [--reuse [--keep-million]]
    python bench/retrieval.py --index-dtype bfloat16   # passages encoded as TRUTHLENS_INDEX_DTYPE=bfloat16 would

Retrieval set (training data only): every WiCE claim (`wice_tokens` train + dev) with
supporting sentences is a query; its cited page, one sentence per paragraph, is a
document, and a hit is a retrieved passage that holds one of the gold supporting
sentences. Distractor documents: the knowledge snippets of `begin/dev` and
`faithdial_audit/test` (the training sets' contexts) and HaluEval QA knowledge,
up to 10 000 passages in all. Printed: recall@5 and @20 (and of the full-text
candidates alone), and search latency p50/p95 over the claims.

`--million` then adds 1 000 000 generated passages (each 3 to 6 sentences drawn at
random from the distractor documents' sentences, seed 13; embeddings are random unit
vectors, as only the candidates' embeddings are read) to the same knowledge base
and measures latency again (`--reuse --million --keep-million` measures a kept 1M
corpus again without rebuilding it). `candidates_p*_ms` time the database part alone
(full-text candidates, no encoder). Needs a migrated database (DATABASE_URL, as the
service); it works in its own tenant, `bench-retrieval`, deleted first.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

import bench.django_env  # noqa: E402, F401 - sets Django up before the models are imported
import knowledge.encoder  # noqa: E402
from bench.kb_corpus import IndexedDoc, _insert, fresh_tenant, index_texts  # noqa: E402
from engine import get_encoder  # noqa: E402
from knowledge.models import Document, KnowledgeBase, Passage  # noqa: E402
from knowledge.retrieval import candidates, search  # noqa: E402
from tenants.models import Tenant  # noqa: E402

DATA = Path(os.environ.get("TRUTHLENS_DATA_DIR", ROOT.parent / "shared" / "data"))
TARGET_PASSAGES = 10_000


def wice() -> list[dict]:
    rows = []
    for split in ("train", "dev"):
        for line in (DATA / "wice_tokens" / f"{split}.jsonl").open():
            r = json.loads(line)
            gold = sorted({i for group in r["supporting_sentences"] for i in group})
            if gold:
                rows.append({**r, "gold": gold, "name": f"wice-{split}-{len(rows)}"})
    return rows


def distractors() -> list[tuple[str, str]]:
    out, seen = [], set()
    for f in ("begin/dev.jsonl", "faithdial_audit/test.jsonl"):
        for line in (DATA / f).open():
            text = json.loads(line)["context"].strip()
            if text and text not in seen:
                seen.add(text)
                out.append((f"{f}:{len(out)}", text))
    for line in (DATA / "halueval" / "qa.jsonl").open():
        text = json.loads(line)["knowledge"].strip()
        if text and text not in seen:
            seen.add(text)
            out.append((f"halueval:{len(out)}", text))
    return out


def _percentiles(ms: list[float]) -> tuple[float, float]:
    ms = sorted(ms)
    return statistics.median(ms), ms[min(len(ms) - 1, int(0.95 * len(ms)))]


def measure(tenant, kb, queries, gold_of, k_values=(5, 20), pool: int = 50) -> dict:
    hits = {k: 0 for k in k_values}
    fts_hits = 0
    times, db_times = [], []
    search(tenant.pk, [kb.pk], "warm up the encoder", k=1, pool=pool)
    for q in queries:
        started = time.perf_counter()
        found = search(tenant.pk, [kb.pk], q["claim"], k=max(k_values), pool=pool)
        times.append((time.perf_counter() - started) * 1000)
        gold = gold_of(q)
        for k in k_values:
            hits[k] += any(h.passage_id in gold for h in found[:k])
        started = time.perf_counter()
        found_ids = candidates(tenant.pk, [kb.pk], q["claim"], pool)
        db_times.append((time.perf_counter() - started) * 1000)
        fts_hits += any(pid in gold for pid in found_ids)
    p50, p95 = _percentiles(times)
    db_p50, db_p95 = _percentiles(db_times)
    n = len(queries)
    return {
        "queries": n,
        **{f"recall@{k}": round(hits[k] / n, 4) for k in k_values},
        f"fts_candidates_recall@{pool}": round(fts_hits / n, 4),
        "p50_ms": round(p50, 1),
        "p95_ms": round(p95, 1),
        "candidates_p50_ms": round(db_p50, 1),
        "candidates_p95_ms": round(db_p95, 1),
    }


def add_million(tenant, kb, sentences: list[str], n: int, seed: int = 13) -> None:
    rng = random.Random(seed)
    doc = Document.objects.create(
        tenant=tenant, knowledge_base=kb, name="generated", content_type="text/plain",
        size_bytes=0, sha256="", raw=b"", language="en", status="ready",
    )  # fmt: skip
    started = time.monotonic()
    vec_rng = np.random.default_rng(seed)
    batch = 10_000
    for offset in range(0, n, batch):
        rows = []
        vecs = vec_rng.standard_normal((batch, 384)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        for i in range(batch):
            text = " ".join(rng.choice(sentences) for _ in range(rng.randint(3, 6)))
            rows.append(
                (
                    doc.pk,
                    tenant.pk,
                    kb.pk,
                    offset + i,
                    0,
                    len(text),
                    text,
                    "english",
                    vecs[i].tobytes(),
                )
            )
        _insert(rows)
        if (offset // batch) % 10 == 0:
            print(f"   {offset + batch} generated passages, {time.monotonic() - started:.0f} s")
    _vacuum()
    print(f"   {n} passages added in {time.monotonic() - started:.0f} s (vacuumed)")


def _vacuum() -> None:
    """VACUUM ANALYZE after bulk changes, as autovacuum would do in time: fresh planner
    statistics and a visibility map, so the figures are of the steady state."""
    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE knowledge_passage")
        cur.execute("VACUUM ANALYZE knowledge_termstat")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--limit", type=int, default=None, help="use only the first N WiCE claims")
    p.add_argument("--million", action="store_true", help="also measure latency at 1M passages")
    p.add_argument("--queries", type=int, default=200, help="claims timed at 1M passages")
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--pool", type=int, default=200, help="full-text candidates re-ranked")
    p.add_argument(
        "--index-dtype",
        choices=("float32", "bfloat16"),
        default="float32",
        help="encode the passages as indexing does at this TRUTHLENS_INDEX_DTYPE (claims: float32)",
    )
    p.add_argument(
        "--reuse", action="store_true", help="measure the corpus a previous run left (no indexing)"
    )
    p.add_argument(
        "--keep-million",
        action="store_true",
        help="with --reuse --million: keep the generated passages a previous run left and "
        "measure only at that size",
    )
    args = p.parse_args(argv)
    call_command("migrate", verbosity=0)
    encoder = get_encoder()
    encode_passages = encoder.encode
    if args.index_dtype != "float32":
        settings.TRUTHLENS["INDEX_DTYPE"] = args.index_dtype
        encode_passages = knowledge.encoder.encode_passages
    claims = wice()[: args.limit]
    if args.reuse:
        tenant = Tenant.objects.get(slug="bench-retrieval")
        kb = KnowledgeBase.objects.get(tenant=tenant, name="bench")
        kept = args.keep_million and Document.objects.filter(knowledge_base=kb, name="generated")
        if not kept and Document.objects.filter(knowledge_base=kb, name="generated").exists():
            Document.objects.filter(knowledge_base=kb, name="generated").delete()
            _vacuum()  # a million dead rows would otherwise be measured too
        docs = [
            IndexedDoc(
                d,
                d.text,
                list(Passage.objects.filter(document=d).values_list("id", "start", "end")),
            )
            for d in (Document.objects.get(knowledge_base=kb, name=c["name"]) for c in claims)
        ]
    else:
        tenant = fresh_tenant("bench-retrieval")
        kb = KnowledgeBase.objects.create(tenant=tenant, name="bench")
        print(f"== indexing {len(claims)} WiCE pages + distractors")
        docs = index_texts(
            tenant, kb, [(c["name"], "\n\n".join(c["evidence"])) for c in claims], encode_passages
        )
    gold_passages = []
    for c, doc in zip(claims, docs, strict=True):
        offsets, pos = [], 0
        for sentence in c["evidence"]:
            offsets.append((pos, pos + len(sentence)))
            pos += len(sentence) + 2
        spans = [offsets[i] for i in c["gold"] if i < len(offsets)]
        gold_passages.append(
            {pid for pid, s, e in doc.passages if any(s <= a and b <= e for a, b in spans)}
        )
    if not args.reuse:
        total = sum(len(d.passages) for d in docs)
        extra = []
        for name, text in distractors():
            if total >= TARGET_PASSAGES:
                break
            extra.append((name, text))
            total += max(1, len(text.split()) // 120)
        index_texts(tenant, kb, extra, encode_passages)
    n_passages = Passage.objects.filter(knowledge_base=kb).count()
    gold_by_claim = {c["claim"]: g for c, g in zip(claims, gold_passages, strict=True)}
    print(f"== {n_passages} passages; {len(claims)} claims")
    results = {}
    if not (args.reuse and args.keep_million and kept):
        small = measure(tenant, kb, claims, lambda q: gold_by_claim[q["claim"]], pool=args.pool)
        print(json.dumps({"passages": n_passages, **small}, indent=2))
        results["small"] = {"passages": n_passages, **small}
    if args.million:
        # Drawn from the distractors only: a passage made of a claim's own evidence sentences
        # would be a correct answer that the gold set does not count.
        sentences = [
            sent
            for _, text in distractors()
            for sent in re.split(r"(?<=[.!?])\s+", text)
            if len(sent.split()) >= 5
        ]
        if not (args.reuse and args.keep_million and kept):
            add_million(tenant, kb, sentences, 1_000_000)
        n_passages = Passage.objects.filter(knowledge_base=kb).count()
        big = measure(
            tenant, kb, claims[: args.queries], lambda q: gold_by_claim[q["claim"]], pool=args.pool
        )
        print(json.dumps({"passages": n_passages, **big}, indent=2))
        results["million"] = {"passages": n_passages, **big}
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
