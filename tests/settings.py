"""Settings for the test suite: the real settings with test-friendly environment defaults.

Real Postgres and Redis are used; Redis database 13 keeps test traffic away
from a locally running service.
"""

import os

os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/13")
os.environ.setdefault("TRUTHLENS_WEBHOOK_ALLOWED_HOSTS", "127.0.0.1,localhost")
# The fake LLM servers listen on 127.0.0.1.
os.environ.setdefault("TRUTHLENS_LLM_ALLOWED_HOSTS", "127.0.0.1,localhost")
os.environ.setdefault("TRUTHLENS_WEBHOOK_RETRY_BASE_SECONDS", "0.5")
os.environ.setdefault("TRUTHLENS_SWEEP_INTERVAL_SECONDS", "1")
os.environ.setdefault("TRUTHLENS_OUTBOX_RELAY_AFTER_SECONDS", "1")
os.environ.setdefault("TRUTHLENS_DETECTOR", "lexical")
# Publish in the request thread: a relay thread's database connection would outlive the
# test that started it (tests/api/test_lean_ingest.py drives the relay and stops it).
os.environ.setdefault("TRUTHLENS_OUTBOX_PUBLISH", "inline")
os.environ.setdefault("TRUTHLENS_REQUEST_LOG_WRITE", "inline")  # same: no thread outlives a test
os.environ.setdefault("CACHE_KEY_PREFIX", "truthlens-test")

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast test users
