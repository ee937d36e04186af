"""A streamed gateway answer's sentences, checked on the interactive detect lane."""

from __future__ import annotations

from celery import shared_task

from verification.queue.sentences import SENTENCE_QUEUE, SENTENCE_TASK
from verification.stages.sentences import check_sentences


@shared_task(name=SENTENCE_TASK, queue=SENTENCE_QUEUE, ignore_result=True)
def check_stream_sentences(check_id: str, payload: dict) -> None:
    """No retry: a stream waits a few seconds at most, and its verdict job is the authority."""
    check_sentences(check_id, payload)
