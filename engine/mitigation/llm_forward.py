"""Forwarding a client's chat request through litellm as it was sent (the gateway's call).

Unlike `LLMClient.complete`, nothing is imposed on the request: no temperature,
no `max_tokens` unless the client set them, every OpenAI parameter passed on
(`allowed_openai_params`, so litellm does not drop e.g. `user`), and the whole
response returned (tool calls, `n` choices, logprobs). Parameters litellm does not
know travel in `extra_body`, so they reach the upstream's JSON body and can never
be read as litellm's own arguments (`api_base`, `api_key`, `mock_response`...).
"""

from __future__ import annotations

import time
from collections.abc import Generator, Mapping
from dataclasses import dataclass
from typing import Any

from .llm import LLMClient, close_stream
from .llm_types import LLMCall, LLMError, Message, ModelConfig


@dataclass
class Forwarded:
    response: dict[str, Any]  # the upstream's chat.completion, as a plain dict
    call: LLMCall


def _kwargs(
    config: ModelConfig,
    messages: list[Message],
    params: Mapping[str, Any],
    extra_body: Mapping[str, Any] | None,
) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        **params,
        "model": config.model,
        "messages": messages,
        "timeout": config.timeout_s,
        # tenacity owns retries; the OpenAI SDK's own would multiply them silently.
        "max_retries": 0,
        "num_retries": 0,
        # A parameter the provider cannot take is the client's to hear about, not to lose.
        "drop_params": False,
        "allowed_openai_params": sorted(params),
        # litellm would treat `tools` naming MCP servers as its own proxy's; ours are the client's.
        "_skip_mcp_handler": True,
    }
    if extra_body:
        kwargs["extra_body"] = dict(extra_body)
    if config.api_base:
        kwargs["api_base"] = config.api_base
    if config.api_key:
        kwargs["api_key"] = config.api_key
    return kwargs


def _usage(call: LLMCall, usage: Any) -> None:
    if usage:
        call.prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        call.completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)


def forward(
    client: LLMClient,
    config: ModelConfig,
    messages: list[Message],
    params: Mapping[str, Any],
    extra_body: Mapping[str, Any] | None = None,
    role: str = "gateway",
) -> Forwarded:
    """One upstream chat completion with the client's parameters. Raises `LLMError`."""
    call = LLMCall(model=config.model, role=role, own_key=config.own_key)
    started = time.perf_counter()
    try:
        response = client.run(call, config, **_kwargs(config, messages, params, extra_body))
    except LLMError:
        raise
    except Exception as exc:
        call.latency_ms = (time.perf_counter() - started) * 1000
        call.error = f"{type(exc).__name__}: {str(exc)[:300]}"
        raise LLMError(call.error, call) from exc
    call.latency_ms = (time.perf_counter() - started) * 1000
    _usage(call, getattr(response, "usage", None))
    call.cost_usd, call.cost_source = client.price_tokens(
        config.model, call.prompt_tokens, call.completion_tokens
    )
    return Forwarded(response=response.model_dump(exclude_none=True), call=call)


def forward_stream(
    client: LLMClient,
    config: ModelConfig,
    messages: list[Message],
    params: Mapping[str, Any],
    extra_body: Mapping[str, Any] | None = None,
    role: str = "gateway",
) -> Generator[dict[str, Any], None, LLMCall]:
    """Yield the upstream's stream chunks as dicts; the `LLMCall` is the return value.

    Retries apply only until the stream opens: once chunks reached a caller,
    repeating the call would duplicate them. Usage is always requested.
    """
    call = LLMCall(model=config.model, role=role, own_key=config.own_key)
    stream_params = {**params, "stream": True, "stream_options": {"include_usage": True}}
    started = time.perf_counter()
    try:
        chunks = client.run(call, config, **_kwargs(config, messages, stream_params, extra_body))
    except LLMError:
        raise
    except Exception as exc:
        call.error = f"{type(exc).__name__}: {str(exc)[:300]}"
        raise LLMError(call.error, call) from exc
    finished = False
    try:
        for chunk in chunks:
            _usage(call, getattr(chunk, "usage", None))
            yield chunk.model_dump(exclude_none=True)
        finished = True
    except Exception as exc:  # the upstream broke off mid-stream
        call.error = f"{type(exc).__name__}: {str(exc)[:300]}"
        raise LLMError(call.error, call) from exc
    finally:
        if not finished:  # the client went away (GeneratorExit): stop the upstream too
            close_stream(chunks)
    call.latency_ms = (time.perf_counter() - started) * 1000
    if not call.prompt_tokens:  # provider sent no usage: count locally
        call.prompt_tokens = client.count_prompt_tokens(config, messages)
    call.cost_usd, call.cost_source = client.price_tokens(
        config.model, call.prompt_tokens, call.completion_tokens
    )
    return call
