"""Gunicorn settings; threads because `"wait": N` requests block on I/O, not CPU."""

import os

bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", "2"))
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS", "16"))
timeout = 60
graceful_timeout = 30
accesslog = "-"
