"""Indexing has its own queue (`index`), and the encoder is fed length-sorted batches."""

from __future__ import annotations

import uuid

import numpy as np
import pytest
import redis
from django.conf import settings

from config.celery_settings import CELERY_TASK_QUEUES
from knowledge import indexing
from knowledge.encoder import encode
from knowledge.queueing import QUEUE_INDEX, send_index
from workers.tasks.knowledge import index_document


def test_documents_are_sent_to_the_index_queue_not_detect():
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.delete("index")
    detect_before = broker.llen("detect")
    doc_id = uuid.uuid4()
    assert send_index(doc_id)
    assert broker.llen("index") == 1
    assert broker.llen("detect") == detect_before
    assert str(doc_id) in broker.lpop("index").decode()
    assert QUEUE_INDEX == "index"
    assert index_document.queue == "index"
    assert "index" in {q.name for q in CELERY_TASK_QUEUES}


@pytest.mark.parametrize("batch", [2, 64])
def test_embed_returns_each_texts_vector_in_its_own_place(monkeypatch, batch):
    monkeypatch.setattr(indexing, "BATCH", batch)
    texts = [
        "a much longer passage about the Eiffel Tower and its iron lattice",
        "short",
        "mid size text",
    ]
    seen: list[int] = []
    vectors = indexing.embed(texts, seen.append)
    assert seen[-1] == 3
    assert seen == sorted(seen)
    for text, row in zip(texts, vectors, strict=True):
        expected = encode([text])[0]
        assert float(np.frombuffer(row, dtype=np.float32) @ expected) > 0.999


# Indexing's cost (issue 24): the encoder in length-sorted batches, and a number of SQL
# statements per document that does not grow with its passages.

SENTENCES = [
    "The old iron tower stands near the river, and visitors climb it every morning.",
    "Its lattice was painted again last year by a team of forty workers.",
    "From the top you can see the bridge, the museum and the long gardens.",
    "The station below sells tickets for the lift and for the stairs.",
]


def _text(paragraphs: int) -> str:
    """`paragraphs` English paragraphs of 65 to 118 words (about one passage each)."""
    out = []
    for p in range(paragraphs):
        words = f"Paragraph {p} is about the tower.".split()
        n = 65 + (p * 37) % 40
        while len(words) < n:
            words += SENTENCES[(p + len(words)) % len(SENTENCES)].split()
        out.append(" ".join(words))
    return "\n\n".join(out)


class FakeEncoder:
    """Unit vectors from each text's hash; records the batches it was given."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, texts):
        self.calls.append(list(texts))
        rows = np.stack(
            [np.random.default_rng(abs(hash(t)) % 2**32).standard_normal(384) for t in texts]
        ).astype(np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.fixture
def fake_encoder(monkeypatch):
    fake = FakeEncoder()
    monkeypatch.setattr(indexing, "encode_passages", fake)
    return fake


def _document(tenant, paragraphs: int, name: str):
    from knowledge import actions
    from knowledge.models import KnowledgeBase

    kb = KnowledgeBase.objects.get_or_create(tenant=tenant, name="cost")[0]
    upload = actions.Upload(name, "text/plain", _text(paragraphs).encode())
    return actions.add_document(kb, upload)


def _index_counting_queries(doc) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        indexing.run(doc.pk)
    doc.refresh_from_db()
    assert doc.status == "ready"
    return len(queries)


def test_a_document_is_encoded_in_few_length_sorted_batches(tenant_a, fake_encoder, monkeypatch):
    monkeypatch.setattr(indexing, "BATCH", 16)
    doc = _document(tenant_a.tenant, 70, "seventy.txt")
    _index_counting_queries(doc)
    n = doc.passages_total
    assert n > 50
    assert n % 16
    # ceil(n / 16) calls, each a full batch but the last, not one call per passage
    assert [len(c) for c in fake_encoder.calls] == [16] * (n // 16) + [n % 16]
    lengths = [len(t) for c in fake_encoder.calls for t in c]
    assert lengths == sorted(lengths)
    assert sorted(t for c in fake_encoder.calls for t in c) == sorted(
        doc.passages.values_list("text", flat=True)
    )


def test_sql_statements_do_not_grow_with_the_passage_count(tenant_a, fake_encoder, monkeypatch):
    monkeypatch.setattr(indexing, "BATCH", 8)
    monkeypatch.setattr(indexing, "PROGRESS_SECONDS", float("inf"))  # progress at the end only
    small = _document(tenant_a.tenant, 3, "small.txt")
    large = _document(tenant_a.tenant, 120, "large.txt")
    small_queries = _index_counting_queries(small)
    large_queries = _index_counting_queries(large)
    assert small.passages_total <= 3
    assert large.passages_total > 90
    assert large_queries == small_queries
    assert large_queries < 40


def test_passages_are_written_whole_in_one_statement(tenant_a, fake_encoder):
    from django.db import connection

    from knowledge.models import Passage, TermStat
    from knowledge.text_search import config_for

    doc = _document(tenant_a.tenant, 12, "twelve.txt")
    _index_counting_queries(doc)
    passages = list(Passage.objects.filter(document=doc).order_by("position"))
    n = doc.passages_total
    assert n > 5
    assert [p.position for p in passages] == list(range(n))
    assert all(p.version == doc.version == 1 for p in passages)
    assert all(p.tenant_id == doc.tenant_id for p in passages)
    assert all(p.knowledge_base_id == doc.knowledge_base_id for p in passages)
    for p in passages:
        assert p.text == doc.text[p.start : p.end]
        assert p.config == config_for(doc.language) == "english"
        assert isinstance(p.location, dict)  # a JSON object, not a JSON string
        expected = fake_encoder([p.text])[0]
        assert bytes(p.embedding) == expected.tobytes()
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM knowledge_passage WHERE document_id = %s"
            " AND tsv = to_tsvector('english', text) AND length(tsv) > 0",
            [doc.pk],
        )
        assert cur.fetchone()[0] == n
    # the statistics triggers counted the rows inserted in one statement
    counted = TermStat.objects.get(knowledge_base_id=doc.knowledge_base_id, lexeme="")
    assert counted.ndoc == n


@pytest.mark.parametrize(("seconds", "expected"), [(0.0, [8, 16, 20]), (float("inf"), [20])])
def test_progress_is_written_when_due_and_at_the_end(monkeypatch, fake_encoder, seconds, expected):
    monkeypatch.setattr(indexing, "BATCH", 8)
    monkeypatch.setattr(indexing, "PROGRESS_SECONDS", seconds)
    seen: list[int] = []
    indexing.embed([f"text {i}" * (i + 1) for i in range(20)], seen.append)
    assert seen == expected


@pytest.mark.parametrize(("dtype", "closest"), [("float32", 0.99999), ("bfloat16", 0.999)])
def test_passages_encoded_at_the_index_dtype_stay_close_to_float32(settings, dtype, closest):
    from knowledge.encoder import encode_passages

    settings.TRUTHLENS = {**settings.TRUTHLENS, "INDEX_DTYPE": dtype}
    texts = ["The Eiffel Tower is 330 metres tall.", "Paris is the capital of France. " * 20]
    rows = encode_passages(texts)
    reference = encode(texts)
    assert rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    cosines = np.sum(rows * reference, axis=1)
    assert float(cosines.min()) > closest
    if dtype == "float32":
        assert np.allclose(rows, reference, atol=1e-6)
    else:  # the matrix products did run in bf16
        assert not np.allclose(rows, reference, atol=1e-6)
