"""The Celery application: `celery -A workers worker -Q detect`."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("truthlens")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["workers"], related_name="tasks")

from . import signals  # noqa: E402,F401 - connects the Celery signal handlers
