"""Thompson-sampling math: choice, reward, Bernoulli updates, determinism under a seed."""

from __future__ import annotations

import random

import pytest

from engine import bandit


def test_the_same_seed_gives_the_same_choices():
    arms = {"lightweight": (3.0, 5.0), "standard": (4.0, 4.0), "premium": (2.0, 2.0)}
    allowed = ["lightweight", "standard", "premium"]

    def run(seed: int) -> list[str]:
        rng = random.Random(seed)
        return [bandit.choose(arms, allowed, rng) for _ in range(50)]

    assert run(7) == run(7)
    assert len(set(run(7))) > 1  # it does explore, so the equality above means something


def test_only_allowed_modes_are_chosen():
    arms = {"premium": (1000.0, 1.0), "lightweight": (1.0, 1000.0)}
    rng = random.Random(1)

    picks = {bandit.choose(arms, ["lightweight", "standard"], rng) for _ in range(200)}

    assert picks <= {"lightweight", "standard"}
    assert "standard" in picks  # an unseen arm starts at the uniform prior


def test_a_dominant_arm_is_chosen_almost_always():
    arms = {"standard": (90.0, 10.0), "premium": (10.0, 90.0)}
    rng = random.Random(3)

    picks = [bandit.choose(arms, ["standard", "premium"], rng) for _ in range(200)]

    assert picks.count("standard") >= 195


def test_nothing_allowed_is_an_error():
    with pytest.raises(ValueError, match="no mode is allowed"):
        bandit.choose({}, [], random.Random(0))


@pytest.mark.parametrize(
    ("verified", "negative", "cost", "weight", "expected"),
    [
        (True, False, 0.0, 0.1, 1.0),
        (True, False, 0.005, 0.1, 0.95),
        (True, False, 0.05, 0.1, 0.9),  # the penalty saturates at cost_scale
        (True, False, 0.05, 2.0, 0.0),  # clamped at 0
        (True, True, 0.0, 0.1, 0.0),  # negative feedback
        (False, False, 0.0, 0.1, 0.0),  # not verified
    ],
)
def test_reward(verified, negative, cost, weight, expected):
    r = bandit.reward(verified, negative, cost, weight, cost_scale=0.01)

    assert r == pytest.approx(expected)
    assert 0.0 <= r <= 1.0


def test_updates_are_bernoulli_trials_on_the_reward():
    rng = random.Random(11)

    deltas = [bandit.bernoulli_update(0.8, rng) for _ in range(2000)]

    assert all(d in ((1, 0), (0, 1)) for d in deltas)
    successes = sum(d[0] for d in deltas) / len(deltas)
    assert successes == pytest.approx(0.8, abs=0.03)
    assert bandit.bernoulli_update(1.0, rng) == (1, 0)
    assert bandit.bernoulli_update(0.0, rng) == (0, 1)


def test_update_moves_the_posterior_and_mean_follows():
    rng = random.Random(0)
    posterior = (1.0, 1.0)

    for _ in range(100):
        posterior = bandit.update(posterior, 1.0, rng)

    assert posterior == (101.0, 1.0)
    assert bandit.mean(posterior) > 0.98


def test_sampling_learns_the_better_mode():
    rng = random.Random(5)
    truth = {"lightweight": 0.3, "standard": 0.8}
    arms = {m: (1.0, 1.0) for m in truth}

    picks = []
    for _ in range(600):
        mode = bandit.choose(arms, list(truth), rng)
        arms[mode] = bandit.update(arms[mode], float(rng.random() < truth[mode]), rng)
        picks.append(mode)

    assert picks[-300:].count("standard") > 270
