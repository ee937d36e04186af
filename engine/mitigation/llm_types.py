"""The plain data of LLM calls: model settings, prices, call records, replies and
errors. No litellm here, so code that only names these types (the web process,
settings that build a `ModelConfig`, error handling) does not import it; the
client that makes the calls is `llm.py`."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Message = dict[str, Any]
CostSource = Literal["price_table", "litellm", "unknown"]


@dataclass(frozen=True)
class ModelConfig:
    """Where and how to call one model. `model` uses litellm names (`openai/gpt-4o-mini`).

    `timeout_s` bounds the whole call, its retries and their waits included (one
    deadline); `max_retries` (None: the client's `RetryPolicy`) is how often a
    transient failure is tried again. A config with a `refusal` is never called:
    the call fails at once with that reason (a model no provider serves).
    """

    model: str
    api_base: str | None = None
    api_key: str | None = None
    timeout_s: float = 30.0
    max_tokens: int = 512
    temperature: float = 0.0
    max_retries: int | None = None
    refusal: str = ""
    #: Called with the tenant's own provider credentials (its key, its server): the
    #: tenant pays the provider directly, so the call is reported, never billed.
    own_key: bool = False


@dataclass(frozen=True)
class Price:
    """USD per million tokens, for models litellm has no price for (self-hosted, new).

    A model litellm's price map knows is always priced by litellm: an override
    must not change what a known model costs."""

    input_per_mtok: float
    output_per_mtok: float


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 3
    initial_s: float = 0.5
    max_s: float = 8.0
    # A provider's Retry-After is honoured up to this; longer waits are better spent failing
    # over (the worker's own retry or a cheaper mode) than holding a mitigate slot.
    max_retry_after_s: float = 20.0


@dataclass
class LLMCall:
    """What one logical call cost, successful or not (retries are folded into `attempts`)."""

    model: str
    role: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    cost_usd: float = 0.0
    estimated_cost_usd: float = 0.0
    cost_source: CostSource = "unknown"
    attempts: int = 0
    error: str | None = None
    own_key: bool = False  # made with the tenant's own credentials (`ModelConfig.own_key`)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class LLMRequest:
    config: ModelConfig
    messages: list[Message]
    role: str


@dataclass
class LLMReply:
    text: str
    call: LLMCall


class LLMError(Exception):
    """A call failed for good (non-retryable, or retries exhausted); `call` holds its record."""

    def __init__(self, message: str, call: LLMCall) -> None:
        super().__init__(message)
        self.call = call


class AddressRefused(Exception):
    """A connection refused because its address is not one we may call (SSRF guard).

    The guard that raises it lives outside the engine; the engine only needs to know
    that retrying it is pointless."""


class BudgetExceeded(Exception):
    """Raised before a call whose estimated cost would exceed the remaining budget."""

    def __init__(self, estimate_usd: float, remaining_usd: float, scope: str) -> None:
        super().__init__(
            f"estimated ${estimate_usd:.6f} exceeds the remaining {scope} budget "
            f"${remaining_usd:.6f}"
        )
        self.estimate_usd = estimate_usd
        self.remaining_usd = remaining_usd
        self.scope = scope
