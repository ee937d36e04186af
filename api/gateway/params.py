"""Which parts of an OpenAI chat request go to the upstream, and how.

Every field but ours (`truthlens`) and the ones the gateway owns (`model`,
`messages`, `stream`) is forwarded. OpenAI's documented chat parameters go to
litellm as keyword arguments (it maps them per provider); anything else (what
the SDKs send with `extra_body=`, `metadata`, provider extensions) goes in
litellm's `extra_body`, which lands in the upstream's JSON body unchanged.
"""

from __future__ import annotations

from typing import Any

OPENAI_PARAMS = frozenset(
    {
        "audio",
        "frequency_penalty",
        "function_call",
        "functions",
        "logit_bias",
        "logprobs",
        "max_completion_tokens",
        "max_tokens",
        "modalities",
        "n",
        "parallel_tool_calls",
        "prediction",
        "presence_penalty",
        "prompt_cache_key",
        "reasoning_effort",
        "response_format",
        "safety_identifier",
        "seed",
        "service_tier",
        "stop",
        "store",
        "temperature",
        "tool_choice",
        "tools",
        "top_logprobs",
        "top_p",
        "user",
        "verbosity",
        "web_search_options",
    }
)
OWN_FIELDS = frozenset({"model", "messages", "stream", "stream_options", "truthlens"})


def split_params(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(litellm keyword parameters, extra_body) of a chat request body."""
    params: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in body.items():
        if key in OWN_FIELDS:
            continue
        (params if key in OPENAI_PARAMS else extra)[key] = value
    return params, extra
