"""`manage.py check --deploy` is clean with production settings (Django's deploy checklist)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION = {
    "DJANGO_SETTINGS_MODULE": "config.settings",
    "DEBUG": "false",
    "TRUTHLENS_REQUIRE_SECRET_KEY": "true",
    "SECURE_SSL_REDIRECT": "true",
    "SECURE_HSTS_PRELOAD": "true",
    "ALLOWED_HOSTS": "api.truthlens.example",
}


def _check(**env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("SECURE_", "SESSION_"))}
    full.pop("DEBUG", None)
    full.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_in_production_settings():
    done = _check(**PRODUCTION, SECRET_KEY=secrets.token_urlsafe(50))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_production_refuses_to_start_without_a_secret_key():
    done = _check(**PRODUCTION, SECRET_KEY="")
    assert done.returncode != 0
    assert "SECRET_KEY must be set" in done.stderr


def test_production_defaults_secure_cookies_and_hsts():
    code = (
        "from django.conf import settings as s;"
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS > 0,"
        " s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SESSION_COOKIE_HTTPONLY, s.X_FRAME_OPTIONS,"
        " 'django.middleware.csrf.CsrfViewMiddleware' in s.MIDDLEWARE,"
        " len(s.AUTH_PASSWORD_VALIDATORS) >= 4)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SECURE_", "SESSION_"))}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", DEBUG="false", SECRET_KEY="x" * 60)
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup();" + code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    expected = ["True", "True", "True", "True", "True", "DENY", "True", "True"]
    assert done.stdout.split() == expected, done.stdout + done.stderr
