"""Indexing has its own queue (`index`), and the encoder is fed length-sorted batches."""

from __future__ import annotations

import uuid

import numpy as np
import pytest
import redis
from django.conf import settings

from knowledge import indexing
from knowledge.encoder import encode
from knowledge.queueing import QUEUE_INDEX, send_index
from workers.celeryconfig import CELERY_TASK_QUEUES
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
