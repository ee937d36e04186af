"""Errors in the client's language: OpenAI's `{"error": {...}}` (and Anthropic's) shapes.

The official SDKs pick their exception class from the HTTP status and read the
message from `error.message`; so each gateway error keeps the problem+json
fields the rest of the API documents and adds the `error` object beside them.
An upstream failure keeps its meaning: a 429 stays a 429 (with `Retry-After`),
a 400/404/422 is the client's request, a timeout is a 504 and anything else the
upstream did wrong is a 502. An upstream 401/403 is the tenant's upstream key,
not the client's TruthLens key, so it is a 502 too: the client cannot fix it.
"""

from __future__ import annotations

from typing import Any

import litellm
from rest_framework.response import Response

from api.errors import problem, problem_exception_handler
from engine import LLMError, retry_after_s
from verification.llm_errors import plain_error

_OPENAI_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "invalid_request_error",
    431: "invalid_request_error",
    415: "invalid_request_error",
    429: "rate_limit_error",
}


def openai_error(
    status: int, message: str, *, param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    kind = _OPENAI_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
    return {"message": message, "type": kind, "param": param, "code": code}


def problem_message(body: dict) -> tuple[list, str]:
    """A problem body's field errors, and one message for an SDK's error object: the field
    errors joined ("messages: required"), else the problem's detail."""
    errors = body.get("errors") or []
    message = body.get("detail", "")
    if errors:
        message = "; ".join(f"{e['field']}: {e['message']}".lstrip(": ") for e in errors)
    return errors, message


def gateway_exception_handler(exc, context):
    """The API's problem+json handler, plus the `error` object the SDKs read."""
    response = problem_exception_handler(exc, context)
    if response is not None and isinstance(response.data, dict):
        body = response.data
        errors, message = problem_message(body)
        body["error"] = openai_error(
            response.status_code,
            message,
            param=errors[0]["field"] if errors else getattr(exc, "param", None),
            code=getattr(exc, "openai_code", None) or body["type"].rsplit("/", 1)[-1],
        )
        response.content_type = "application/json"
    return response


def _upstream_status(exc: BaseException | None) -> tuple[int, str]:
    if isinstance(exc, litellm.Timeout):
        return 504, "upstream_timeout"
    if isinstance(exc, litellm.RateLimitError):
        return 429, "upstream_rate_limited"
    if isinstance(exc, litellm.UnsupportedParamsError):
        return 400, "unsupported_parameter"
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and status in (400, 404, 413, 422):
        return status, "upstream_rejected_request"
    return 502, "upstream_error"


def upstream_error_response(exc: LLMError) -> Response:
    """The response for an upstream call that failed for good (retries spent)."""
    cause = exc.__cause__
    status, code = _upstream_status(cause)
    detail = plain_error(cause) if cause is not None else str(exc)
    message = f"the upstream model failed: {detail}"
    body = problem(status, message, slug=code.replace("_", "-"), title="Upstream model error")
    body["error"] = openai_error(status, message, code=code)
    response = Response(body, status=status, content_type="application/json")
    # The provider's `max_retries` were already spent here, within its deadline: the
    # official SDKs' own retries (2 by default) would multiply the upstream calls.
    response["x-should-retry"] = "false"
    retry_after = _retry_after(cause)
    if status == 429 or retry_after:
        response["Retry-After"] = retry_after or "5"
    return response


def _retry_after(exc: BaseException | None) -> str | None:
    seconds = retry_after_s(exc)
    return str(max(1, round(seconds))) if seconds is not None else None


def late_error(late_ids: list[str]) -> dict[str, Any]:
    """The `error` object of an answer refused because its verdict was late."""
    return openai_error(
        503,
        "the answer could not be verified in time and this tenant's policy refuses "
        f"unverified answers (on_unverified: refuse); verifications: {', '.join(late_ids)}",
        code="verification_timeout",
    )


def late_response(late_ids: list[str]) -> Response:
    """503 for an answer the policy refuses unverified. Not retried by the SDKs
    (`x-should-retry: false`): a retry pays for another upstream call under the same load."""
    error = late_error(late_ids)
    body = problem(503, error["message"], slug="verification-timeout", title="Verification late")
    body["error"] = error
    body["truthlens"] = {"verified": False, "reason": "timeout", "ids": late_ids}
    response = Response(body, status=503, content_type="application/json")
    response["x-should-retry"] = "false"
    response["X-TruthLens-Verified"] = "false"
    response["X-TruthLens-Unverified-Reason"] = "timeout"
    return response
