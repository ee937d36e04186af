"""Fixtures for the mitigation engine: a local OpenAI-compatible server and a fast client."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from engine import LLMClient, ModelConfig, Price, RetryPolicy
from tests.fixtures.fake_llm import FakeLLM

#: $1 per million prompt tokens, $2 per million completion tokens for the fake models.
TEST_PRICE = Price(input_per_mtok=1.0, output_per_mtok=2.0)


@pytest.fixture(scope="session")
def _llm_server() -> Iterator[FakeLLM]:
    server = FakeLLM()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def llm(_llm_server: FakeLLM) -> Iterator[FakeLLM]:
    """The fake provider, emptied for each test."""
    _llm_server.reset()
    yield _llm_server
    _llm_server.reset()


@pytest.fixture
def client() -> LLMClient:
    # Millisecond backoff keeps retry tests fast; the policy shape is what is under test.
    prices = {name: TEST_PRICE for name in ("primary", "verifier-a", "verifier-b", "judge")}
    return LLMClient(prices=prices, retry=RetryPolicy(attempts=3, initial_s=0.01, max_s=0.05))


@pytest.fixture
def model(llm: FakeLLM) -> Callable[..., ModelConfig]:
    """`model("judge")` -> a config pointing litellm's openai provider at the fake server."""

    def make(name: str = "primary", **kw: object) -> ModelConfig:
        opts: dict = {"api_base": llm.api_base, "api_key": "sk-test", "timeout_s": 5.0}
        opts.update(kw)
        return ModelConfig(model=f"openai/{name}", **opts)

    return make
