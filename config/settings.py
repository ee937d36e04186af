"""Django settings, driven by the environment (documented in docs/settings.md)."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from .env import env_bool, env_choice, env_float, env_int, env_list, env_str

# Offline by construction: litellm must not fetch its price map, HF must not
# reach the hub. Set before anything imports those libraries.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG and env_bool("TRUTHLENS_REQUIRE_SECRET_KEY", False):
        raise ImproperlyConfigured("SECRET_KEY must be set in production")
    SECRET_KEY = "dev-insecure-secret-key-change-me"  # local default only

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_prometheus",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django.contrib.postgres",
    "tenants",
    "knowledge",
    "verification",
    "api",
    "dashboard",
    "quality",
    # its AppConfig loads the Celery app (workers/app.py) once Django is set up, so publishing
    # from web processes uses the configured broker and carries the request id
    "workers",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "axes",  # after the apps whose sign-in it guards
    "csp",
]

MIDDLEWARE = [
    # under DEBUG too, errors are problem+json, never Django's technical pages
    "config.debug_pages.NoTechnicalPagesMiddleware",
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    "api.middleware.RequestIdMiddleware",
    # one insert per authenticated API request, for the console's request log
    "api.request_log.RequestLogMiddleware",
    "api.middleware.BodySizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "config.headers.SecurityHeadersMiddleware",  # Permissions-Policy, no-store when private
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # after the session and sign-in, before the views: a too-big dashboard body gets HTML
    "dashboard.middleware.BodyTooLargeMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
    # last, as django-axes asks: it turns a locked-out sign-in into the lockout page
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

DATABASE_URL = env_str("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/truthlens")
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 60, minimum=0)
    )
}
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DATABASES["default"].setdefault("OPTIONS", {})
DATABASES["default"]["OPTIONS"].setdefault("connect_timeout", env_int("DB_CONNECT_TIMEOUT", 5))
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"]["ENGINE"] = "django_prometheus.db.backends.postgresql"

REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0")
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "truthlens"),
        "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
    }
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
LOGIN_URL = "/dashboard/login/"

# --- sign-in guessing (django-axes) --------------------------------------------
# AxesStandaloneBackend only refuses locked-out sign-ins; ModelBackend checks passwords.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# An account, or a client address, with this many failed sign-ins is locked out (429) until
# the lock expires (attempts during the lock do not extend it). A success clears the count.
AXES_FAILURE_LIMIT = env_int("TRUTHLENS_LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_float("TRUTHLENS_LOGIN_LOCKOUT_MINUTES", 15, minimum=0.1))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # per account and per address, separately
AXES_RESET_ON_SUCCESS = True
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "dashboard.signin_lockout.locked_out_response"  # 429 + Retry-After
AXES_CLIENT_IP_CALLABLE = "tenants.audit.client_ip"  # REMOTE_ADDR, as the audit log reads it
OTP_TOTP_ISSUER = "TruthLens"  # the name authenticator apps show next to the account
AXES_VERBOSE = False  # our own log line and audit event say it (tenants.signin_lockout)

# --- e-mail (invitations) ----------------------------------------------------
# SMTP when EMAIL_HOST is set; otherwise mail is printed on the console (`make run`).
EMAIL_HOST = env_str("EMAIL_HOST", "")
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, minimum=1)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "TruthLens <no-reply@truthlens.local>")

# --- security (production defaults; DEBUG relaxes nothing else) -------------
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
# HSTS on by default outside DEBUG (only sent on HTTPS responses); a year, with subdomains.
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# Probes and scrapers talk plain HTTP inside the cluster even when SSL redirect is on.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy (django-csp): scripts and styles only from our own static files (the
# dashboard has no inline script or <style>; Chart.js is a vendored file). Inline style
# *attributes* stay allowed: they cannot run code. The API docs page (Swagger UI's inline
# bootstrap script) and Django's admin keep their own ways.
CONTENT_SECURITY_POLICY = {
    "EXCLUDE_URL_PREFIXES": ["/v1/docs", "/admin/"],
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "style-src-attr": ["'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

# --- REST framework ----------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["api.authentication.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["api.permissions.HasTenantKey"],
    "DEFAULT_THROTTLE_CLASSES": ["api.throttles.TenantRateThrottle"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["api.parsers.BoundedJSONParser"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "api.negotiation.StrictFormatNegotiation",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "EXCEPTION_HANDLER": "api.errors.problem_exception_handler",
    "UNAUTHENTICATED_USER": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "TruthLens API",
    "DESCRIPTION": "Verify LLM answers against their grounding context and mitigate hallucinations.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # every operation's error statuses in problem+json (api/schema.py)
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.document_errors",
    ],
}

# --- TruthLens ---------------------------------------------------------------
TRUTHLENS = {
    # request limits
    "MAX_BODY_BYTES": env_int("TRUTHLENS_MAX_BODY_BYTES", 1_048_576, minimum=1024),
    "MAX_PASSAGES": env_int("TRUTHLENS_MAX_PASSAGES", 1000, minimum=1),
    # knowledge-base document uploads (a plan may allow less per document)
    "MAX_UPLOAD_BYTES": env_int("TRUTHLENS_MAX_UPLOAD_BYTES", 50 * 1024 * 1024, minimum=1024),
    # per-tenant default rate (plans may override): "<n>/<period>"
    "DEFAULT_RATE": env_str("TRUTHLENS_DEFAULT_RATE", "600/min"),
    # key guessing: this many failed API authentications from one client address within the
    # window lock the address out (429 + Retry-After) for LOCKOUT seconds
    "BAD_KEY_LIMIT": env_int("TRUTHLENS_BAD_KEY_LIMIT", 20, minimum=1),
    "BAD_KEY_WINDOW_SECONDS": env_int("TRUTHLENS_BAD_KEY_WINDOW_SECONDS", 60, minimum=1),
    "BAD_KEY_LOCKOUT_SECONDS": env_int("TRUTHLENS_BAD_KEY_LOCKOUT_SECONDS", 300, minimum=1),
    # detection
    "DETECTOR": env_str("TRUTHLENS_DETECTOR", "embedded"),
    # precision of a mounted checkpoint: auto = bf16/fp16 on GPU, bf16 on CPUs with bf16
    # units (AMX, AVX512-BF16), else float32; float32 forces full precision everywhere
    "DETECTOR_DTYPE": env_choice(
        "TRUTHLENS_DETECTOR_DTYPE", "auto", ("auto", "float32", "bfloat16", "float16", "int8")
    ),
    "DETECT_BATCH_SIZE": env_int("TRUTHLENS_DETECT_BATCH_SIZE", 8, minimum=1),
    # load the detector in each worker process at start (first-job latency) rather than lazily
    "PRELOAD_MODELS": env_bool("TRUTHLENS_PRELOAD_MODELS", True),
    # reliability: a running job whose lease expired is re-enqueued by the sweeper
    "JOB_LEASE_SECONDS": env_int("TRUTHLENS_JOB_LEASE_SECONDS", 300, minimum=1),
    # API keys, their tenant, plan and policy are cached this long per process
    # (tenants.auth_cache); a revocation reaches the other processes within it
    "AUTH_CACHE_SECONDS": env_float("TRUTHLENS_AUTH_CACHE_SECONDS", 5, minimum=0),
    # how POST /v1/verifications publishes a new job's message after commit: "relay" (the
    # process's relay thread, off the request path, batched) or "inline" (in the request)
    "OUTBOX_PUBLISH": env_choice("TRUTHLENS_OUTBOX_PUBLISH", "relay", ("relay", "inline")),
    "OUTBOX_RELAY_AFTER_SECONDS": env_float("TRUTHLENS_OUTBOX_RELAY_AFTER_SECONDS", 10, minimum=0),
    "SWEEP_INTERVAL_SECONDS": env_float("TRUTHLENS_SWEEP_INTERVAL_SECONDS", 15, minimum=0.2),
    "MAX_JOB_ATTEMPTS": env_int("TRUTHLENS_MAX_JOB_ATTEMPTS", 5, minimum=1),
    # evaluations of a policy on a dataset: one with no progress (no batch done) for this long
    # is re-queued by the sweeper (its worker died), and failed after this many claims
    "EVALUATION_STALL_SECONDS": env_int("TRUTHLENS_EVALUATION_STALL_SECONDS", 600, minimum=1),
    "MAX_EVALUATION_ATTEMPTS": env_int("TRUTHLENS_MAX_EVALUATION_ATTEMPTS", 3, minimum=1),
    # fault injection for the kill tests: sleep this long in the first detection attempt
    "FAULT_DETECT_SLEEP_SECONDS": env_float("TRUTHLENS_FAULT_DETECT_SLEEP_SECONDS", 0, minimum=0),
    # knowledge bases: a document indexing longer than this is re-enqueued by the sweeper
    "INDEX_LEASE_SECONDS": env_int("TRUTHLENS_INDEX_LEASE_SECONDS", 600, minimum=1),
    # precision of the passage encoder when indexing: bfloat16 is about twice as fast on CPUs
    # with bf16 units (AVX512-BF16, AMX) and slower on others; claims are always float32
    "INDEX_DTYPE": env_choice("TRUTHLENS_INDEX_DTYPE", "float32", ("float32", "bfloat16")),
    # how many knowledge bases a tenant may create
    "MAX_KNOWLEDGE_BASES": env_int("TRUTHLENS_MAX_KNOWLEDGE_BASES", 50, minimum=1),
    # web search providers' endpoints (overridable per tenant for self-hosted proxies)
    "WEB_SEARCH_BASES": {"tavily": "https://api.tavily.com", "serper": "https://google.serper.dev"},
    # webhooks
    "WEBHOOK_TIMEOUT_SECONDS": env_float("TRUTHLENS_WEBHOOK_TIMEOUT_SECONDS", 10, minimum=0.1),
    "WEBHOOK_RETRY_BASE_SECONDS": env_float("TRUTHLENS_WEBHOOK_RETRY_BASE_SECONDS", 30, minimum=0),
    "WEBHOOK_RETRY_MAX_DELAY_SECONDS": env_float("TRUTHLENS_WEBHOOK_RETRY_MAX_DELAY_SECONDS", 3600),
    "WEBHOOK_RETRY_WINDOW_SECONDS": env_float("TRUTHLENS_WEBHOOK_RETRY_WINDOW_SECONDS", 86400),
    # after an endpoint's secret is rotated the old one keeps signing for this long (0: stops now)
    "WEBHOOK_SECRET_OVERLAP_SECONDS": env_float(
        "TRUTHLENS_WEBHOOK_SECRET_OVERLAP_SECONDS", 86400, minimum=0
    ),
    # hosts/CIDRs exempt from the private-address refusal (tests: 127.0.0.1)
    "WEBHOOK_ALLOWED_HOSTS": env_list("TRUTHLENS_WEBHOOK_ALLOWED_HOSTS", []),
    # hosts/CIDRs a tenant's LLM provider (API base) may reach although they are private or
    # loopback: a model served next to TruthLens (vLLM, Ollama, a LiteLLM proxy). Tenants
    # cannot change it; it is read at every connection.
    "LLM_ALLOWED_HOSTS": env_list("TRUTHLENS_LLM_ALLOWED_HOSTS", []),
    # Fernet key(s) for secrets at rest; first encrypts, all decrypt (rotation)
    "ENCRYPTION_KEYS": env_list("TRUTHLENS_ENCRYPTION_KEYS", []),
    "PUBLIC_BASE_URL": env_str("TRUTHLENS_PUBLIC_BASE_URL", "http://127.0.0.1:8000"),
    # the console's API request log: rows kept per tenant, and for how many days at most
    # the console's request log: "background" (a thread per process writes rows in batches,
    # off the request path) or "inline" (one INSERT in each request)
    "REQUEST_LOG_WRITE": env_choice(
        "TRUTHLENS_REQUEST_LOG_WRITE", "background", ("background", "inline")
    ),
    "REQUEST_LOG_ROWS": env_int("TRUTHLENS_REQUEST_LOG_ROWS", 1000, minimum=1),
    "REQUEST_LOG_RETENTION_DAYS": env_int("TRUTHLENS_REQUEST_LOG_RETENTION_DAYS", 30, minimum=1),
    # the nightly partition maintenance: detach expired job partitions into the `archive`
    # schema (for an operator to dump, then drop) instead of dropping them
    "JOB_RETENTION_ARCHIVE": env_bool("TRUTHLENS_JOB_RETENTION_ARCHIVE", False),
    # how long an invitation link works
    "INVITATION_TTL_HOURS": env_int("TRUTHLENS_INVITATION_TTL_HOURS", 72, minimum=1),
    # Thompson sampling seed; empty = OS entropy (production). Tests set one.
    "BANDIT_SEED": env_str("TRUTHLENS_BANDIT_SEED", "") or None,
    # USD per 1M tokens for models litellm has no price for: "model=in:out,model2=in:out"
    "LLM_PRICES": env_list("TRUTHLENS_LLM_PRICES", []),
    "GATEWAY_WAIT_SECONDS": env_float("TRUTHLENS_GATEWAY_WAIT_SECONDS", 30, minimum=0),
    # Sentence annotations in streams run the detector in the web process (loaded once there).
    "GATEWAY_STREAM_ANNOTATIONS": env_bool("TRUTHLENS_GATEWAY_STREAM_ANNOTATIONS", True),
}

from .celery_settings import *  # noqa: E402,F403 - Celery settings live in their own module

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "context": {"()": "observability.logcontext.ContextFilter"},
        "redact": {"()": "observability.logcontext.RedactFilter"},
    },
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s "
            "%(request_id)s %(tenant_id)s %(job_id)s",
        },
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": env_str("LOG_FORMAT", "json"),
            "filters": ["context", "redact"] if env_bool("LOG_REDACT", True) else ["context"],
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # axes says INFO on every sign-in; its lockouts are WARNING (and logged by the dashboard)
    "loggers": {"django.db.backends": {"level": "WARNING"}, "axes": {"level": "WARNING"}},
}
DATA_UPLOAD_MAX_MEMORY_SIZE = TRUTHLENS["MAX_BODY_BYTES"]

# Production: /metrics requires this bearer token when set (or restrict it by network policy).
METRICS_TOKEN = env_str("TRUTHLENS_METRICS_TOKEN", "")
TRACING_EXPORTER = env_str("TRUTHLENS_TRACING", "")  # "", "console" or "otlp"
