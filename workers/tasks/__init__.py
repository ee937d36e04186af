"""Celery tasks; imported by `app.autodiscover_tasks`."""

from . import detect, knowledge, maintenance, mitigate, quality, sentences, webhooks

__all__ = ["detect", "knowledge", "maintenance", "mitigate", "quality", "sentences", "webhooks"]
