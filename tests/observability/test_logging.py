import json
import logging

import pytest
from pythonjsonlogger.json import JsonFormatter

from observability.logcontext import ContextFilter, RedactFilter, bind, redact


def _capture() -> tuple[logging.Logger, list[str]]:
    lines: list[str] = []

    class ListHandler(logging.Handler):
        def emit(self, record):
            lines.append(self.format(record))

    handler = ListHandler()
    handler.setFormatter(
        JsonFormatter("%(levelname)s %(message)s %(request_id)s %(tenant_id)s %(job_id)s")
    )
    handler.addFilter(ContextFilter())
    handler.addFilter(RedactFilter())
    logger = logging.getLogger("truthlens.test")
    logger.handlers = [handler]
    logger.propagate = False
    return logger, lines


def test_log_lines_are_json_with_the_bound_ids():
    logger, lines = _capture()
    with bind(request_id="r1", tenant_id="7", job_id="ver_x"):
        logger.warning("hello")
    logger.warning("outside")
    first, second = (json.loads(line) for line in lines)
    assert (first["request_id"], first["tenant_id"], first["job_id"]) == ("r1", "7", "ver_x")
    assert second["request_id"] == ""


def test_secrets_are_masked_in_messages():
    logger, lines = _capture()
    logger.warning("key %s and %s", "tl_abcdefgh_SuperSecretValue123456", "whsec_abcdef123")
    message = json.loads(lines[0])["message"]
    assert "SuperSecret" not in message
    assert "abcdef123" not in message
    assert "tl_abcdefgh_[REDACTED]" in message
    assert redact("Authorization: Bearer abc.def") == "Authorization: Bearer [REDACTED]"


@pytest.mark.django_db
def test_the_api_echoes_the_request_id_and_mints_one_when_missing(client_a):
    assert (
        client_a.get("/v1/verifications", HTTP_X_REQUEST_ID="abc-123")["X-Request-Id"] == "abc-123"
    )
    minted = client_a.get("/v1/verifications", HTTP_X_REQUEST_ID="bad id!")["X-Request-Id"]
    assert minted != "bad id!"
    assert len(minted) == 32


@pytest.mark.django_db
def test_metrics_require_the_token_when_configured(settings):
    from rest_framework.test import APIClient

    settings.METRICS_TOKEN = "s3cret"
    assert APIClient().get("/metrics").status_code == 401
    ok = APIClient().get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret")
    assert ok.status_code == 200
    assert b"truthlens_queue_depth" in ok.content
