"""The litellm client against the local fake provider: retries, timeouts, costs, budgets."""

from __future__ import annotations

import threading
import time

import pytest

from engine import (
    Budget,
    BudgetExceeded,
    LLMClient,
    LLMError,
    LLMRequest,
    Price,
    RetryPolicy,
)
from tests.fixtures.fake_llm import Reply

MESSAGES = [{"role": "user", "content": "Say hello."}]


def test_it_returns_the_text_and_prices_tokens_from_the_table(llm, client, model):
    llm.script(Reply(content="hello", prompt_tokens=200, completion_tokens=50))

    reply = client.complete(model(), MESSAGES, role="refine")

    assert reply.text == "hello"
    call = reply.call
    assert (call.prompt_tokens, call.completion_tokens) == (200, 50)
    assert call.cost_usd == pytest.approx((200 * 1.0 + 50 * 2.0) / 1e6)
    assert call.cost_source == "price_table"
    assert call.attempts == 1
    assert call.error is None
    assert call.latency_ms > 0
    assert llm.requests[0]["model"] == "primary"  # litellm strips the provider prefix


def test_it_prices_models_litellm_knows_with_litellm(llm, model):
    llm.script(Reply(content="hi", prompt_tokens=1000, completion_tokens=1000))

    call = LLMClient().complete(model("gpt-4o-mini"), MESSAGES, role="refine").call

    assert call.cost_source == "litellm"
    assert call.cost_usd == pytest.approx(1000 * 0.15e-6 + 1000 * 0.6e-6)


def test_a_price_override_never_reprices_a_model_litellm_knows(llm, model):
    # given one override for every model of a provider (one it serves is gpt-4o-mini)
    prices = {m: Price(1.5, 6.0) for m in ("gpt-4o-mini", "custom-judge")}
    llm.script(
        Reply(content="hi", prompt_tokens=1000, completion_tokens=1000),
        Reply(content="hi", prompt_tokens=1000, completion_tokens=1000),
    )
    client = LLMClient(prices=prices)
    # when each is called
    known = client.complete(model("gpt-4o-mini"), MESSAGES, role="verify").call
    custom = client.complete(model("custom-judge"), MESSAGES, role="judge").call
    # then litellm prices the model it knows, the override only the one it does not
    assert (known.cost_source, custom.cost_source) == ("litellm", "price_table")
    assert known.cost_usd == pytest.approx(1000 * 0.15e-6 + 1000 * 0.6e-6)
    assert custom.cost_usd == pytest.approx(1000 * 1.5e-6 + 1000 * 6e-6)
    assert client.estimate_cost(model("gpt-4o-mini"), MESSAGES) < 512 * 6e-6


def test_unknown_models_cost_nothing_but_say_so(llm, model):
    llm.script("hi")

    call = LLMClient().complete(model("no-such-model"), MESSAGES, role="refine").call

    assert (call.cost_usd, call.cost_source) == (0.0, "unknown")


def test_it_retries_a_429_then_succeeds(llm, client, model):
    llm.script(Reply(status=429), "after the rate limit")

    reply = client.complete(model(), MESSAGES, role="refine")

    assert reply.text == "after the rate limit"
    assert reply.call.attempts == 2
    assert len(llm.requests) == 2


def test_it_waits_as_long_as_retry_after_asks(llm, client, model):
    llm.script(Reply(status=429, headers={"Retry-After": "0.3"}), "after waiting")

    reply = client.complete(model(), MESSAGES, role="refine")

    assert reply.text == "after waiting"
    assert reply.call.latency_ms >= 300  # not the 10 ms the test backoff would give


def test_a_stream_waits_as_long_as_retry_after_asks_and_counts_attempts(
    llm, client, model, monkeypatch
):
    llm.script(Reply(status=429, headers={"Retry-After": "0.3"}), "streamed reply")
    arrivals: list[float] = []
    next_reply = llm.next_reply

    def timed(body):
        arrivals.append(time.perf_counter())
        return next_reply(body)

    monkeypatch.setattr(llm, "next_reply", timed)

    stream = client.stream(model(), MESSAGES, role="gateway")
    parts: list[str] = []
    while True:
        try:
            parts.append(next(stream))
        except StopIteration as stop:
            call = stop.value
            break

    assert "".join(parts) == "streamed reply"
    assert arrivals[1] - arrivals[0] >= 0.3  # not the 10 ms the test backoff would give
    assert call.attempts == 2
    assert len(llm.requests) == 2


def test_it_gives_up_on_5xx_after_the_retry_budget(llm, client, model):
    llm.script(Reply(status=503), Reply(status=500), Reply(status=502), "never reached")

    with pytest.raises(LLMError) as err:
        client.complete(model(), MESSAGES, role="refine")

    assert err.value.call.attempts == 3
    assert err.value.call.cost_usd == 0.0
    assert err.value.call.error
    assert len(llm.requests) == 3


def test_it_does_not_retry_a_400(llm, client, model):
    llm.script(Reply(status=400), "never reached")

    with pytest.raises(LLMError) as err:
        client.complete(model(), MESSAGES, role="refine")

    assert err.value.call.attempts == 1
    assert len(llm.requests) == 1


def test_a_timeout_ends_the_call_at_its_one_deadline(llm, client, model):
    # the timeout bounds the whole call, retries included: a hung attempt used it all
    llm.script(Reply(content="too late", delay=1.5), "in time")
    started = time.monotonic()

    with pytest.raises(LLMError) as err:
        client.complete(model(timeout_s=0.5), MESSAGES, role="refine")

    assert time.monotonic() - started < 1.0
    assert err.value.call.attempts == 1


def test_a_fast_failure_is_retried_within_the_deadline(llm, client, model):
    llm.script(Reply(status=503, delay=0.2), "in time")

    reply = client.complete(model(timeout_s=2), MESSAGES, role="refine")

    assert reply.text == "in time"
    assert reply.call.attempts == 2


def test_a_config_with_its_own_retries_overrides_the_clients_policy(llm, client, model):
    from dataclasses import replace

    llm.script(*[Reply(status=503)] * 4)

    with pytest.raises(LLMError):
        client.complete(replace(model(), max_retries=0), MESSAGES, role="refine")

    assert len(llm.requests) == 1


def test_malformed_provider_json_is_an_error_not_a_crash(llm, model):
    llm.script(Reply(raw="this is not json"))
    no_retry = LLMClient(retry=RetryPolicy(attempts=1))

    with pytest.raises(LLMError):
        no_retry.complete(model(), MESSAGES, role="refine")


def test_it_refuses_a_call_over_budget_before_making_it(llm, client, model):
    budget = Budget(per_request_usd=1e-9)

    with pytest.raises(BudgetExceeded) as err:
        client.complete(model(max_tokens=100), MESSAGES, role="refine", budget=budget)

    assert err.value.scope == "per-request"
    assert llm.requests == []
    assert budget.spent_usd == 0.0


def test_the_tighter_of_request_and_monthly_budget_applies(client, model):
    budget = Budget(per_request_usd=1.0, remaining_monthly_usd=1e-9)

    with pytest.raises(BudgetExceeded) as err:
        client.complete(model(), MESSAGES, role="refine", budget=budget)

    assert err.value.scope == "monthly"


def test_the_budget_is_charged_the_actual_cost(llm, client, model):
    llm.script(Reply(content="a", prompt_tokens=100), Reply(content="b", prompt_tokens=300))
    budget = Budget(per_request_usd=1.0)

    calls = [client.complete(model(), MESSAGES, "refine", budget).call for _ in range(2)]

    assert budget.spent_usd == pytest.approx(sum(c.cost_usd for c in calls))
    assert budget.remaining_usd() == pytest.approx(1.0 - budget.spent_usd)


def test_estimates_count_prompt_tokens_plus_max_tokens(client, model):
    cfg = model(max_tokens=100)

    estimate = client.estimate_cost(cfg, MESSAGES)

    prompt = client.count_prompt_tokens(cfg, MESSAGES)
    assert prompt > 0
    assert estimate == pytest.approx((prompt * 1.0 + 100 * 2.0) / 1e6)


def test_many_calls_run_in_parallel_and_keep_their_order(llm, client, model):
    in_flight, peak, lock = [0], [0], threading.Lock()

    def slow_echo(body):
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.3)
        with lock:
            in_flight[0] -= 1
        return Reply(content=f"from {body['model']}")

    llm.responder = slow_echo
    names = ["verifier-a", "verifier-b", "judge"]

    out = client.complete_many([LLMRequest(model(n), MESSAGES, "verify") for n in names])

    assert [o.text for o in out] == [f"from {n}" for n in names]  # type: ignore[union-attr]
    assert peak[0] >= 2


def test_many_calls_report_failures_in_their_slot(llm, client, model):
    llm.responder = lambda body: Reply(status=400) if body["model"] == "judge" else Reply("ok")

    out = client.complete_many(
        [LLMRequest(model(n), MESSAGES, "verify") for n in ("primary", "judge")]
    )

    assert out[0].text == "ok"  # type: ignore[union-attr]
    assert isinstance(out[1], LLMError)
