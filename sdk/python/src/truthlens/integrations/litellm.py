"""A LiteLLM proxy guardrail that verifies each completion after the call.

In the proxy's config.yaml:

    guardrails:
      - guardrail_name: truthlens
        litellm_params:
          guardrail: truthlens.integrations.litellm.TruthLensGuardrail
          mode: post_call
          default_on: true

with `TRUTHLENS_API_KEY` and `TRUTHLENS_BASE_URL` in the proxy's environment. The request's
messages and the model's answer are sent to TruthLens as `messages`, so the context is found
where the gateway finds it (tool results, system prompt, tagged documents). `on_flagged`:
`annotate` (default: `x-truthlens-*` response headers only), `replace` (the answer becomes
TruthLens's corrected or warned `final_response`) or `block` (the call fails with the spans).
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from litellm.integrations.custom_guardrail import CustomGuardrail
from litellm.types.guardrails import GuardrailEventHooks

from ..aio import AsyncTruthLens
from ..errors import TruthLensError
from ..models import Verification
from ._text import describe

log = logging.getLogger(__name__)


class TruthLensFlagged(ValueError):
    """Raised by `on_flagged="block"`: the answer was flagged (the proxy answers an error)."""

    def __init__(self, result: Verification):
        self.verification = result
        super().__init__(f"TruthLens flagged the answer: {describe(result)}")


class TruthLensGuardrail(CustomGuardrail):
    def __init__(
        self,
        api_key: str | None = None,
        api_base: str | None = None,
        on_flagged: Literal["annotate", "replace", "block"] = "annotate",
        fail_open: bool = True,
        verify_timeout: float = 30.0,
        **kwargs: Any,
    ):
        kwargs.setdefault("event_hook", GuardrailEventHooks.post_call)
        super().__init__(**kwargs)
        self._client_args = {"api_key": api_key, "base_url": api_base}
        self.on_flagged = on_flagged
        self.fail_open = fail_open
        self.verify_timeout = verify_timeout

    async def async_post_call_success_hook(
        self, data: dict, user_api_key_dict: Any, response: Any
    ) -> Any:
        if not self.should_run_guardrail(data=data, event_type=GuardrailEventHooks.post_call):
            return response
        answer = _answer(response)
        if not answer:
            return response  # a tool call or an empty answer: nothing to verify
        messages = [*_plain(data.get("messages") or []), {"role": "assistant", "content": answer}]
        try:
            async with AsyncTruthLens(**self._client_args) as client:
                result = await client.verify(messages=messages, timeout=self.verify_timeout)
        except TruthLensError as exc:
            if not self.fail_open:
                raise
            log.warning("TruthLens could not verify the answer, passing it: %s", exc)
            return response
        _annotate(response, result)
        if result.detected:
            if self.on_flagged == "block":
                raise TruthLensFlagged(result)
            if self.on_flagged == "replace" and result.final_response:
                response.choices[0].message.content = result.final_response
        return response


def _answer(response: Any) -> str:
    choices = getattr(response, "choices", None) or []
    if not choices:
        return ""
    message = getattr(choices[0], "message", None)
    content = getattr(message, "content", None)
    return content if isinstance(content, str) else ""


def _plain(messages: list[Any]) -> list[dict[str, Any]]:
    """The messages as plain dicts with the fields TruthLens reads."""
    plain = []
    for message in messages:
        item = message if isinstance(message, dict) else dict(message)
        kept = {k: item[k] for k in ("role", "content", "name", "tool_call_id") if k in item}
        plain.append({k: v for k, v in kept.items() if v is not None})
    return plain


def _annotate(response: Any, result: Verification) -> None:
    """Headers the proxy adds to its answer (`_hidden_params["additional_headers"]`)."""
    hidden = getattr(response, "_hidden_params", None)
    if hidden is None:
        return
    headers = hidden.setdefault("additional_headers", {})
    headers["x-truthlens-id"] = result.id
    headers["x-truthlens-detected"] = str(result.detected).lower()
    if result.score is not None:
        headers["x-truthlens-score"] = f"{result.score:.4f}"
    hidden["truthlens"] = result.model_dump(mode="json")
