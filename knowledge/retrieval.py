"""Retrieval: Postgres full-text search for candidates, re-ranked by the MiniLM encoder.

The candidates are the passages whose `tsv` (GIN-indexed) matches content words of
the claim, best `ts_rank_cd` first; their stored embeddings are then compared with
the claim's (cosine), and the two orders are fused (reciprocal rank fusion). One query covers every
text-search configuration the knowledge bases use (one per document language).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from django.db import connection

from .encoder import encode
from .models import Document, Passage
from .text_search import CONFIGS, FALLBACK, config_for, or_query, query_terms

CANDIDATES = 200
MAX_RANKED = 2000  # matches ranked per query (see `_ranked`)
PAIR_TERMS = 10
RRF_K = 60  # the usual reciprocal-rank-fusion constant  # the claim's first content words whose pairs make the selective query
_KNOWN = set(CONFIGS.values()) | {FALLBACK}


@dataclass(frozen=True)
class Hit:
    passage_id: int
    document_id: uuid.UUID
    document_name: str
    knowledge_base_id: uuid.UUID
    text: str
    start: int  # offsets of the passage in its document's extracted text
    end: int
    similarity: float  # cosine with the claim, from the encoder


def configs_of(knowledge_bases: Sequence[uuid.UUID]) -> list[str]:
    languages = (
        Document.objects.filter(knowledge_base_id__in=knowledge_bases)
        .values_list("language", flat=True)
        .distinct()
    )
    return sorted({config_for(lang) for lang in languages} & _KNOWN) or [FALLBACK]


def _ranked(
    tenant_id: int, knowledge_bases: Sequence[uuid.UUID], configs: list[str], query: str, limit: int
) -> list[int]:
    """Passage ids matching the tsquery `query`, best `ts_rank_cd` first. At most
    `MAX_RANKED` matches are ranked, so a query of common words stays fast at scale."""
    # Config names come from the fixed `_KNOWN` set, never from input: safe to inline.
    match = " OR ".join(f"(p.config = '{c}' AND p.tsv @@ to_tsquery('{c}', %s))" for c in configs)
    rank = (
        "CASE m.config "
        + " ".join(f"WHEN '{c}' THEN ts_rank_cd(m.tsv, to_tsquery('{c}', %s))" for c in configs)
        + " END"
    )
    sql = (
        f"SELECT m.id FROM (SELECT p.id, p.config, p.tsv FROM knowledge_passage p "
        f"WHERE p.tenant_id = %s AND p.knowledge_base_id = ANY(%s) AND ({match}) LIMIT %s) m "
        f"ORDER BY {rank} DESC LIMIT %s"
    )
    params = [tenant_id, list(knowledge_bases), *[query] * len(configs), MAX_RANKED]
    params += [*[query] * len(configs), limit]
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return [row[0] for row in cur.fetchall()]


def candidates(
    tenant_id: int,
    knowledge_bases: Sequence[uuid.UUID],
    text: str,
    limit: int = CANDIDATES,
    configs: Sequence[str] | None = None,
) -> list[int]:
    """Passage ids sharing content words with `text`, best full-text rank first:
    first those with two or more of its words (selective even in a large corpus),
    then, when they are too few, those with any one."""
    terms = query_terms(text)
    if not terms or not knowledge_bases:
        return []
    chosen = [c for c in (configs or configs_of(knowledge_bases)) if c in _KNOWN]
    found: list[int] = []
    if len(terms) >= 2:
        pairs = combinations(terms[:PAIR_TERMS], 2)
        found = _ranked(
            tenant_id, knowledge_bases, chosen, " | ".join(f"({a} & {b})" for a, b in pairs), limit
        )
    if len(found) < limit:
        more = _ranked(tenant_id, knowledge_bases, chosen, or_query(terms), limit)
        seen = set(found)
        found += [pid for pid in more if pid not in seen][: limit - len(found)]
    return found


def fuse(similarity: np.ndarray, k: int = RRF_K) -> list[int]:
    """Reciprocal-rank fusion of the full-text order (the candidates' order) and the
    encoder's: a passage both rank well comes first; either alone cannot bury it."""
    by_text = np.arange(len(similarity))
    by_meaning = np.empty(len(similarity), dtype=int)
    by_meaning[np.argsort(-similarity, kind="stable")] = np.arange(len(similarity))
    score = 1.0 / (k + by_text) + 1.0 / (k + by_meaning)
    return [int(i) for i in np.argsort(-score, kind="stable")]


def search(
    tenant_id: int,
    knowledge_bases: Sequence[uuid.UUID],
    text: str,
    k: int = 5,
    pool: int = CANDIDATES,
) -> list[Hit]:
    """The `k` passages of the tenant's `knowledge_bases` closest to `text`."""
    return search_many(tenant_id, knowledge_bases, [text], k, pool)[0]


def search_many(
    tenant_id: int,
    knowledge_bases: Sequence[uuid.UUID],
    texts: Sequence[str],
    k: int = 5,
    pool: int = CANDIDATES,
) -> list[list[Hit]]:
    """`search` for several claims: the knowledge bases' configurations are read once
    and the claims are encoded in one batch."""
    if not texts:
        return []
    configs = configs_of(knowledge_bases)
    vectors = encode(list(texts))
    return [
        _hits(tenant_id, candidates(tenant_id, knowledge_bases, text, pool, configs), vector, k)
        for text, vector in zip(texts, vectors, strict=True)
    ]


def _hits(tenant_id: int, ids: list[int], vector: np.ndarray, k: int) -> list[Hit]:
    """The candidates `ids` (full-text order) re-ranked with the claim's `vector`."""
    if not ids:
        return []
    by_id = {
        r.id: r
        for r in Passage.objects.filter(pk__in=ids, tenant_id=tenant_id)
        .select_related("document")
        .only("id", "text", "start", "end", "embedding", "knowledge_base_id", "document__name")
    }
    rows = [by_id[pid] for pid in ids if pid in by_id]  # full-text rank order
    matrix = np.stack([np.frombuffer(bytes(r.embedding), dtype=np.float32) for r in rows])
    similarity = matrix @ vector
    return [
        Hit(
            passage_id=rows[i].id,
            document_id=rows[i].document_id,
            document_name=rows[i].document.name,
            knowledge_base_id=rows[i].knowledge_base_id,
            text=rows[i].text,
            start=rows[i].start,
            end=rows[i].end,
            similarity=float(similarity[i]),
        )
        for i in fuse(similarity)[:k]
    ]
