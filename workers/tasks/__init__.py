"""Celery tasks; imported by `app.autodiscover_tasks`."""

from . import detect, maintenance, mitigate, webhooks

__all__ = ["detect", "maintenance", "mitigate", "webhooks"]
