"""Celery tasks; imported by `app.autodiscover_tasks`."""

from . import detect, maintenance, webhooks

__all__ = ["detect", "maintenance", "webhooks"]
