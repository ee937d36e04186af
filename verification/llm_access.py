"""A tenant's LLM access (litellm names, base URL, decrypted key, prices) as engine objects."""

from __future__ import annotations

from django.conf import settings

from tenants.models import LLMSettings

from .engine.mitigation import LLMClient, ModelConfig, Price, RetryPolicy


def prices(llm: LLMSettings) -> dict[str, Price]:
    """Configured prices (USD per 1M tokens); the tenant's table wins over the deployment's."""
    table: dict[str, Price] = {}
    for entry in settings.TRUTHLENS["LLM_PRICES"]:  # "model=in:out"
        model, _, pair = entry.partition("=")
        p_in, _, p_out = pair.partition(":")
        table[model] = Price(float(p_in), float(p_out))
    for model, price in (llm.price_table or {}).items():
        table[model] = Price(float(price.get("input", 0)), float(price.get("output", 0)))
    return table


def model_config(llm: LLMSettings, name: str, max_tokens: int = 512) -> ModelConfig:
    return ModelConfig(
        model=name,
        api_base=llm.api_base or None,
        api_key=llm.api_key or None,
        timeout_s=llm.timeout_seconds,
        max_tokens=max_tokens,
    )


def client_for(llm: LLMSettings) -> LLMClient:
    """The tenant's client: its prices, and `max_retries` retries after the first attempt."""
    return LLMClient(prices=prices(llm), retry=RetryPolicy(attempts=llm.max_retries + 1))
