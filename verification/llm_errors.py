"""LLM provider errors in plain words, for people and API clients.

litellm's exceptions read like `litellm.InternalServerError: OpenAIException - ...`:
class names and SDK plumbing. Test connection and the gateway say instead what
happened and what to do, keeping the provider's own message where it helps.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import litellm

from engine import is_refused


def _first_line(exc: BaseException) -> str:
    """The provider's own message, without litellm's and the SDK's class-name prefixes
    (`litellm.InternalServerError: OpenAIException - ...`)."""
    text = (str(exc).strip().splitlines() or [""])[0]
    for _ in range(3):
        head, sep, rest = text.partition(" - ")
        if sep and ("Exception" in head or "Error" in head):
            text = rest.strip()
            continue
        head, sep, rest = text.partition(": ")
        if (
            sep
            and head.replace(".", "").replace("_", "").isalnum()
            and ("Exception" in head or "Error" in head)
        ):
            text = rest.strip()
            continue
        break
    return text[:300]


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def plain_error(
    exc: BaseException, base: str = "the provider", timeout_s: float | None = None
) -> str:
    """A provider's error in plain words: what happened and what to do, never a class name."""
    if is_refused(exc):
        detail = next((str(e) for e in _chain(exc) if str(e).startswith("TruthLens refused")), "")
        return detail or f"TruthLens refused to connect to {base}."
    status = _status(exc)
    detail = _first_line(exc)
    said = f" The provider said: {detail}" if detail else ""
    if isinstance(exc, litellm.AuthenticationError) or status in (401, 403):
        return "The provider refused the API key (authentication failed). Replace the key."
    if isinstance(exc, litellm.NotFoundError) or status == 404:
        return "The provider does not know this model (not found). Check the model name."
    if isinstance(exc, litellm.RateLimitError) or status == 429:
        return "The provider is rate-limiting this key (429). Try again later."
    if isinstance(exc, litellm.Timeout):
        within = f" within {timeout_s:g} s" if timeout_s else " in time"
        return f"No answer from {base}{within}."
    if _unreachable(exc):
        return f"Could not reach {base}: check the API base URL and that the server is up."
    if isinstance(exc, litellm.BadRequestError) or status in (400, 422):
        return f"The provider rejected the request ({status or 400}).{said}"
    if status is not None and status >= 500:
        return f"The provider failed with an error of its own ({status}).{said}"
    return f"The call to the provider failed.{said}"


def _unreachable(exc: BaseException) -> bool:
    """No connection was made: litellm reports it as APIConnectionError or, through the
    OpenAI SDK, as a 500 reading "Connection error."."""
    for cause in _chain(exc):
        if isinstance(cause, httpx.ConnectError | httpx.ConnectTimeout):
            return True
        if (
            type(cause).__name__ == "APIConnectionError"
            and "connection error" in str(cause).lower()
        ):
            return True
    return "connection error." in str(exc).lower()


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            return
        yield seen
        seen = seen.__cause__ or seen.__context__
