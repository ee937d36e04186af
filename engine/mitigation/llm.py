"""LLM access for mitigation: litellm only, with retries, budgets and a cost record per call.

Every provider goes through `litellm.completion`, so a tenant switches model or
provider by changing a string. Transient failures (429, 5xx, timeouts, lost
connections) are retried with exponential backoff; other 4xx errors are not,
because repeating a bad request or a bad key only burns time. Before each call
the cost is estimated (prompt tokens counted by litellm + `max_tokens` of
output) and refused with `BudgetExceeded` if it could break the request or the
tenant's monthly budget: we stop *before* spending, not after.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .llm_types import (  # re-exported: callers import them from here too
    AddressRefused,
    BudgetExceeded,
    CostSource,
    LLMCall,
    LLMError,
    LLMReply,
    LLMRequest,
    Message,
    ModelConfig,
    Price,
    RetryPolicy,
)

# Without this litellm fetches its price map from GitHub at import time; workers are offline.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm  # must follow the environment default above
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_before_delay,
    wait_exponential,
)

litellm.suppress_debug_info = True  # no "Give Feedback" banners in worker logs


class Budget:
    """Spending limits for one mitigation: per request, and what is left of the month.

    Parallel calls reserve their estimate first, so two threads cannot both
    squeeze under the limit; `settle` swaps the estimate for the real cost.
    """

    def __init__(
        self, per_request_usd: float | None = None, remaining_monthly_usd: float | None = None
    ) -> None:
        self.per_request_usd = per_request_usd
        self.remaining_monthly_usd = remaining_monthly_usd
        self.spent_usd = 0.0
        self._reserved = 0.0
        self._lock = threading.Lock()

    def remaining_usd(self) -> float | None:
        """The tighter of the two limits minus what is spent or reserved; None if unlimited."""
        with self._lock:
            return self._remaining_locked()[0]

    def _remaining_locked(self) -> tuple[float | None, str]:
        used = self.spent_usd + self._reserved
        options: list[tuple[float, str]] = []
        if self.per_request_usd is not None:
            options.append((self.per_request_usd - used, "per-request"))
        if self.remaining_monthly_usd is not None:
            options.append((self.remaining_monthly_usd - used, "monthly"))
        if not options:
            return None, ""
        return min(options)

    def reserve(self, estimate_usd: float) -> None:
        with self._lock:
            remaining, scope = self._remaining_locked()
            if remaining is not None and estimate_usd > remaining:
                raise BudgetExceeded(estimate_usd, max(remaining, 0.0), scope)
            self._reserved += estimate_usd

    def settle(self, estimate_usd: float, actual_usd: float) -> None:
        with self._lock:
            self._reserved = max(self._reserved - estimate_usd, 0.0)
            self.spent_usd += actual_usd


def is_refused(exc: BaseException) -> bool:
    """Whether an `AddressRefused` is in the chain of causes (litellm and the SDKs wrap it)."""
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            return False
        if isinstance(seen, AddressRefused):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def is_transient(exc: BaseException) -> bool:
    """429, 5xx, timeouts and connection errors are worth retrying; other errors are not,
    nor is a connection the address guard refused."""
    if is_refused(exc):
        return False
    # litellm.Timeout subclasses APIConnectionError and carries status 408: check types first.
    if isinstance(exc, litellm.Timeout | litellm.APIConnectionError | litellm.RateLimitError):
        return True
    if isinstance(exc, litellm.InternalServerError | litellm.ServiceUnavailableError):
        return True
    if isinstance(exc, litellm.BadGatewayError):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and status >= 500


def retry_after_s(exc: BaseException | None) -> float | None:
    """Seconds a provider asked us to wait (`Retry-After`), when it said so in seconds."""
    if exc is None:
        return None
    for headers in (
        getattr(exc, "litellm_response_headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
    ):
        value = headers.get("retry-after") if headers is not None else None
        if value is not None:
            try:
                return max(float(value), 0.0)
            except ValueError:
                return None  # an HTTP date: rare for LLM APIs, fall back to our backoff
    return None


class _BackoffWait:
    """Exponential backoff, stretched to the provider's `Retry-After` (up to `max_retry_after_s`)."""

    def __init__(self, policy: RetryPolicy) -> None:
        self.policy = policy
        self.exponential = wait_exponential(multiplier=policy.initial_s, max=policy.max_s)

    def __call__(self, state: RetryCallState) -> float:
        wait = self.exponential(state)
        outcome = state.outcome
        asked = retry_after_s(outcome.exception() if outcome is not None else None)
        if asked is not None:
            wait = max(wait, min(asked, self.policy.max_retry_after_s))
        return wait


CompletionFn = Callable[..., Any]


def close_stream(chunks: Any) -> None:
    """Close an upstream stream left unfinished (the client went away): the HTTP
    response under litellm's wrapper is closed, so the provider stops generating."""
    for stream in (getattr(chunks, "completion_stream", None), chunks):
        close = getattr(stream, "close", None)
        if callable(close):
            with contextlib.suppress(Exception):  # best effort: the connection is going away
                close()


def litellm_knows(model: str) -> bool:
    """Does litellm's (local) price map have a price for `model`?"""
    try:
        litellm.cost_per_token(model=model, prompt_tokens=1, completion_tokens=1)
    except Exception:  # litellm raises assorted errors for unmapped models
        return False
    return True


class LLMClient:
    """Calls models through litellm and accounts for every call.

    `prices` maps a model name (with or without its `provider/` prefix) to a
    `Price` for models litellm has no price for (self-hosted, fine-tuned, new):
    a model litellm's map knows is priced by litellm, whatever the table says,
    so one provider-wide override cannot reprice the well-known models it serves.
    """

    def __init__(
        self,
        prices: Mapping[str, Price] | None = None,
        retry: RetryPolicy | None = None,
        max_workers: int = 4,
        completion: CompletionFn | None = None,
    ) -> None:
        self.prices = dict(prices or {})
        self.retry = retry or RetryPolicy()
        self.max_workers = max_workers
        # Injectable for tests only; production always uses litellm.completion.
        self._completion = completion or litellm.completion

    # -- pricing ---------------------------------------------------------------------------

    def _table_price(self, model: str) -> Price | None:
        """The table's price of `model`, only when litellm's map has none."""
        table = self.prices.get(model) or self.prices.get(model.split("/", 1)[-1])
        if table is None or litellm_knows(model):
            return None
        return table

    def price_tokens(
        self, model: str, prompt_tokens: int, completion_tokens: int
    ) -> tuple[float, CostSource]:
        """USD for a token count: litellm's map, else the price table, else unknown (0)."""
        table = self._table_price(model)
        if table is not None:
            cost = prompt_tokens * table.input_per_mtok + completion_tokens * table.output_per_mtok
            return cost / 1e6, "price_table"
        try:
            p, c = litellm.cost_per_token(
                model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
            )
            return float(p) + float(c), "litellm"
        except Exception:  # litellm raises assorted errors for unmapped models
            return 0.0, "unknown"

    def count_prompt_tokens(self, config: ModelConfig, messages: list[Message]) -> int:
        # litellm ships its tokenizers; tiktoken.get_encoding would download them.
        try:
            return int(litellm.token_counter(model=config.model, messages=messages))
        except Exception:  # an odd message shape must not skip the budget check: over-count
            return sum(len(str(m.get("content") or "")) for m in messages) // 3 + 8

    def estimate_cost(self, config: ModelConfig, messages: list[Message]) -> float:
        """Worst case for one call: the whole prompt plus `max_tokens` of output."""
        prompt = self.count_prompt_tokens(config, messages)
        cost, _ = self.price_tokens(config.model, prompt, config.max_tokens)
        return cost

    def _actual_cost(self, config: ModelConfig, response: Any, call: LLMCall) -> None:
        if self._table_price(config.model) is None:
            try:
                call.cost_usd = float(litellm.completion_cost(completion_response=response))
                call.cost_source = "litellm"
                return
            except Exception:  # unmapped model: fall through to the token price
                pass
        call.cost_usd, call.cost_source = self.price_tokens(
            config.model, call.prompt_tokens, call.completion_tokens
        )

    # -- calls -----------------------------------------------------------------------------

    def run(self, call: LLMCall, config: ModelConfig, **kwargs: Any) -> Any:
        """`litellm.completion(**kwargs)` for `config`, counted in `call`: transient errors
        retried `config.max_retries` times (else this client's policy), every attempt and
        wait within one deadline of `config.timeout_s`, each attempt's timeout what is left
        of it. The only retry layer: litellm's and the SDKs' own are off (`max_retries=0`)."""
        if config.refusal:
            call.error = config.refusal
            raise LLMError(config.refusal, call)
        retries = self.retry.attempts - 1 if config.max_retries is None else config.max_retries
        deadline = time.monotonic() + config.timeout_s

        def count_attempt(state: RetryCallState) -> None:
            call.attempts = state.attempt_number

        def attempt() -> Any:
            left = deadline - time.monotonic()
            if left <= 0:
                raise litellm.Timeout(
                    message=f"no answer within {config.timeout_s:g} s",
                    model=config.model,
                    llm_provider="",
                )
            return self._completion(**{**kwargs, "timeout": left})

        retrying = Retrying(
            retry=retry_if_exception(is_transient),
            wait=_BackoffWait(self.retry),
            stop=stop_after_attempt(retries + 1) | stop_before_delay(config.timeout_s),
            before=count_attempt,
            reraise=True,
        )
        return retrying(attempt)

    @staticmethod
    def _request(config: ModelConfig, messages: list[Message], **extra: Any) -> dict[str, Any]:
        """litellm.completion's keyword arguments for one call to `config`."""
        kwargs: dict[str, Any] = {
            "model": config.model,
            "messages": messages,
            "timeout": config.timeout_s,
            "max_tokens": config.max_tokens,
            "temperature": config.temperature,
            # tenacity owns retries; the OpenAI SDK's own would multiply them silently.
            "max_retries": 0,
            "num_retries": 0,
            # Tenants pick any provider; one that rejects e.g. `temperature` should not fail.
            "drop_params": True,
            **extra,
        }
        if config.api_base:
            kwargs["api_base"] = config.api_base
        if config.api_key:
            kwargs["api_key"] = config.api_key
        return kwargs

    def complete(
        self,
        config: ModelConfig,
        messages: list[Message],
        role: str,
        budget: Budget | None = None,
    ) -> LLMReply:
        """One chat completion. Raises `BudgetExceeded` before calling, `LLMError` on failure."""
        call = LLMCall(model=config.model, role=role, own_key=config.own_key)
        estimate = self.estimate_cost(config, messages)
        call.estimated_cost_usd = estimate
        if budget is not None:
            budget.reserve(estimate)
        kwargs = self._request(config, messages)
        started = time.perf_counter()
        try:
            response = self.run(call, config, **kwargs)
        except LLMError:
            if budget is not None:
                budget.settle(estimate, 0.0)
            raise
        except Exception as exc:
            call.latency_ms = (time.perf_counter() - started) * 1000
            call.error = f"{type(exc).__name__}: {str(exc)[:300]}"
            if budget is not None:
                budget.settle(estimate, 0.0)  # failed calls are not billed by providers
            raise LLMError(call.error, call) from exc
        call.latency_ms = (time.perf_counter() - started) * 1000
        usage = getattr(response, "usage", None)
        call.prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        call.completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        self._actual_cost(config, response, call)
        if budget is not None:
            budget.settle(estimate, call.cost_usd)
        text = response.choices[0].message.content or ""
        return LLMReply(text=text, call=call)

    def stream(
        self, config: ModelConfig, messages: list[Message], role: str
    ) -> Generator[str, None, LLMCall]:
        """Yield the answer's text as the model produces it; the `LLMCall` is the return value.

        Retries apply only until the first chunk arrives: once text has been
        forwarded to a caller, repeating the call would duplicate it.
        """
        call = LLMCall(model=config.model, role=role, own_key=config.own_key)
        kwargs = self._request(
            config, messages, stream=True, stream_options={"include_usage": True}
        )
        started = time.perf_counter()
        try:
            chunks = self.run(call, config, **kwargs)
        except LLMError:
            raise
        except Exception as exc:
            call.error = f"{type(exc).__name__}: {str(exc)[:300]}"
            raise LLMError(call.error, call) from exc
        parts: list[str] = []
        finished = False
        try:
            for chunk in chunks:
                usage = getattr(chunk, "usage", None)
                if usage:
                    call.prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
                    call.completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
                choices = getattr(chunk, "choices", None) or []
                delta = getattr(choices[0], "delta", None) if choices else None
                text = getattr(delta, "content", None) if delta is not None else None
                if text:
                    parts.append(text)
                    yield text
            finished = True
        finally:
            if not finished:  # closed early (GeneratorExit) or broken: stop the upstream
                close_stream(chunks)
        call.latency_ms = (time.perf_counter() - started) * 1000
        if not call.prompt_tokens:  # provider sent no usage: count locally
            call.prompt_tokens = self.count_prompt_tokens(config, messages)
        call.cost_usd, call.cost_source = self.price_tokens(
            config.model, call.prompt_tokens, call.completion_tokens
        )
        return call

    def complete_many(
        self, requests: Sequence[LLMRequest], budget: Budget | None = None
    ) -> list[LLMReply | LLMError | BudgetExceeded]:
        """Run independent calls in parallel; each slot holds its reply or its error, in order."""

        def one(req: LLMRequest) -> LLMReply | LLMError | BudgetExceeded:
            try:
                return self.complete(req.config, req.messages, req.role, budget)
            except (LLMError, BudgetExceeded) as exc:
                return exc

        if not requests:
            return []
        workers = max(1, min(self.max_workers, len(requests)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="llm") as pool:
            return list(pool.map(one, requests))
