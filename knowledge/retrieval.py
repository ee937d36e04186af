"""Retrieval: Postgres full-text search for candidates, re-ranked by the MiniLM encoder.

The candidates are the passages whose `tsv` (GIN-indexed) holds the claim's rarest
content words (document frequencies from `TermStat`, kept by triggers), scored by the
inverse document frequencies of all the claim's words they hold; their stored
embeddings are then compared with the claim's (cosine), and the two orders are fused
(reciprocal rank fusion). Each text-search configuration the knowledge bases use
(one per document language) is searched with the claim's lexemes under it.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from django.db import connection

from .encoder import encode
from .models import Passage, TermStat
from .text_search import CONFIGS, FALLBACK, query_terms

CANDIDATES = 200
ANCHOR_POSTINGS = 3000  # passages the rarest words of a claim may hold together (`_anchors`)
MAX_SCANNED = 3000  # passages holding a rare word scored per claim and configuration
PAIR_TERMS = 4  # the next rarest words, two of which make a passage a candidate
PAIRS_SCANNED = 1000  # passages holding two of them scored per claim and configuration
RRF_K = 60  # the usual reciprocal-rank-fusion constant
#: A retrieved passage counts as evidence for a claim from this cosine similarity
#: (verifying, the search endpoint and the dashboard's search tool).
MIN_SIMILARITY = 0.35
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
    version: int = 1  # the document version the passage was indexed from
    location: dict | None = None  # page or heading path in the original file (Passage.location)


def configs_of(knowledge_bases: Sequence[uuid.UUID]) -> list[str]:
    """The text-search configurations the knowledge bases' passages use (each passage
    has its own language): the passage counts of `TermStat` (its empty lexeme), read
    through its unique index, never the passages."""
    configs = (
        TermStat.objects.filter(
            knowledge_base_id__in=knowledge_bases, config__in=sorted(_KNOWN), lexeme="", ndoc__gt=0
        )
        .values_list("config", flat=True)
        .distinct()
    )
    return sorted(set(configs)) or [FALLBACK]


def _tsquery(lexemes: Sequence[str], op: str) -> str:
    """tsquery input naming `lexemes` exactly (quoted: no parsing or stemming again)."""
    quoted = ("'" + lex.replace("\\", "\\\\").replace("'", "''") + "'" for lex in lexemes)
    return f" {op} ".join(quoted)


def _term_stats(
    tenant_id: int, knowledge_bases: Sequence[uuid.UUID], config: str, terms: Sequence[str]
) -> tuple[dict[str, int], int]:
    """The claim's lexemes under `config` with their document frequencies in the
    knowledge bases (`TermStat`), and the number of passages there."""
    sql = (
        "WITH q AS (SELECT DISTINCT unnest(tsvector_to_array(to_tsvector(%s::regconfig, %s)))"
        " AS lexeme) "
        "SELECT t.lexeme, sum(t.ndoc) FROM knowledge_termstat t "
        "WHERE t.tenant_id = %s AND t.knowledge_base_id = ANY(%s) AND t.config = %s "
        "AND t.lexeme = ANY(ARRAY(SELECT lexeme FROM q) || ''::text) GROUP BY t.lexeme"
    )
    with connection.cursor() as cur:
        cur.execute(sql, [config, " ".join(terms), tenant_id, list(knowledge_bases), config])
        found = {lexeme: int(n) for lexeme, n in cur.fetchall()}
    total = found.pop("", 0)
    return {lex: n for lex, n in found.items() if n > 0}, total


def _anchors(df: dict[str, int]) -> list[tuple[str, int]]:
    """(tsquery, passages read at most) pairs whose matches are the candidates:

    * any of the rarest lexemes whose passages together stay within `ANCHOR_POSTINGS`
      (none when even the rarest is that common);
    * two together of the next `PAIR_TERMS` rarest: in a large knowledge base the
      claim's rare words (a name, a title) may be missing from the evidence, which
      still shares two of its more common ones.
    """
    rarest = sorted(df, key=lambda lex: (df[lex], lex))
    chosen: list[str] = []
    read = 0
    for lex in rarest:
        if read + df[lex] > ANCHOR_POSTINGS:
            break
        chosen.append(lex)
        read += df[lex]
    queries = [(_tsquery(chosen, "|"), MAX_SCANNED)] if chosen else []
    rest = rarest[len(chosen) : len(chosen) + PAIR_TERMS]
    if len(rest) >= 2:
        pairs = (f"({_tsquery([x, y], '&')})" for x, y in combinations(rest, 2))
        queries.append((" | ".join(pairs), PAIRS_SCANNED))
    return queries


def _ranked(
    tenant_id: int,
    knowledge_bases: Sequence[uuid.UUID],
    config: str,
    df: dict[str, int],
    total: int,
    limit: int,
    documents: Sequence[uuid.UUID] | None = None,
) -> list[tuple[int, float]]:
    """(passage id, score) of the passages matching the claim's anchors (`_anchors`),
    best first: the score sums the inverse document frequencies of the claim's words
    a passage holds (a BM25-style weight without length normalisation)."""
    lexemes = sorted(df)
    weights = [math.log(1 + (total - df[lex] + 0.5) / (df[lex] + 0.5)) for lex in lexemes]
    # A passage holds a lexeme when its tsvector matches it alone (a binary search in
    # the sorted tsvector). The config name comes from the fixed `_KNOWN` set, never
    # from input: safe to inline.
    holds = " + ".join("CASE WHEN m.tsv @@ %s::tsquery THEN %s ELSE 0 END" for _ in lexemes)
    params: list[object] = []
    for lex, weight in zip(lexemes, weights, strict=True):
        params += [_tsquery([lex], "|"), weight]
    # One knowledge base, one config and the words: all three in the GIN index
    # (`passage_scoped_tsv_gin`), which `= ANY(...)` could not use.
    scope = (
        "SELECT p.id, p.tsv FROM knowledge_passage p WHERE p.tenant_id = %s "
        f"AND p.knowledge_base_id = %s AND p.config = '{config}' AND p.tsv @@ %s::tsquery"
    )
    # a metadata filter's documents (`knowledge.metadata`), checked on each candidate
    only = " AND p.document_id = ANY(%s::uuid[])" if documents is not None else ""
    parts = []
    for kb in knowledge_bases:
        earlier: list[str] = []
        for query, most in _anchors(df):
            # a passage matching an earlier part's query came with it (or its limit cut it)
            unseen = "".join(" AND NOT p.tsv @@ %s::tsquery" for _ in earlier)
            parts.append(f"({scope}{unseen}{only} LIMIT %s)")
            params += [tenant_id, kb, query, *earlier]
            params += [[str(d) for d in documents], most] if documents is not None else [most]
            earlier.append(query)
    if not parts:
        return []
    sql = (
        f"SELECT m.id, {holds} AS score FROM ({' UNION ALL '.join(parts)}) m "
        "ORDER BY score DESC, m.id LIMIT %s"
    )
    params.append(limit)
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return [(pid, float(score)) for pid, score in cur.fetchall()]


def candidates(
    tenant_id: int,
    knowledge_bases: Sequence[uuid.UUID],
    text: str,
    limit: int = CANDIDATES,
    configs: Sequence[str] | None = None,
    documents: Sequence[uuid.UUID] | None = None,
) -> list[int]:
    """Passage ids sharing content words with `text`, best first (see `_ranked`). The
    search starts from the claim's rarest words, so its cost follows how many
    passages hold those, not the size of the knowledge base."""
    terms = query_terms(text)
    if not terms or not knowledge_bases or (documents is not None and not documents):
        return []
    scored: list[tuple[float, int]] = []
    for config in (c for c in (configs or configs_of(knowledge_bases)) if c in _KNOWN):
        df, total = _term_stats(tenant_id, knowledge_bases, config, terms)
        if df:
            ranked = _ranked(tenant_id, knowledge_bases, config, df, total, limit, documents)
            scored += [(-score, pid) for pid, score in ranked]
    return [pid for _, pid in sorted(scored)[:limit]]


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
    documents: Sequence[uuid.UUID] | None = None,
) -> list[Hit]:
    """The `k` passages of the tenant's `knowledge_bases` closest to `text` (only in
    `documents` when given: a metadata filter's)."""
    return search_many(tenant_id, knowledge_bases, [text], k, pool, documents)[0]


def search_many(
    tenant_id: int,
    knowledge_bases: Sequence[uuid.UUID],
    texts: Sequence[str],
    k: int = 5,
    pool: int = CANDIDATES,
    documents: Sequence[uuid.UUID] | None = None,
) -> list[list[Hit]]:
    """`search` for several claims: the knowledge bases' configurations are read once
    and the claims are encoded in one batch."""
    if not texts:
        return []
    configs = configs_of(knowledge_bases)
    vectors = encode(list(texts))
    return [
        _hits(
            tenant_id,
            candidates(tenant_id, knowledge_bases, text, pool, configs, documents),
            vector,
            k,
        )
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
        .only(
            "id",
            "text",
            "start",
            "end",
            "embedding",
            "knowledge_base_id",
            "version",
            "location",
            "document__name",
        )
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
            version=rows[i].version,
            location=rows[i].location or None,
        )
        for i in fuse(similarity)[:k]
    ]
