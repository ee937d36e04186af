"""Thompson sampling over mitigation modes (docs/policies.md "Mode selection (Thompson sampling)").

An arm is `(tenant, query_type, mode)` with a Beta(α, β) posterior on the
probability that the mode yields an accepted answer at an acceptable cost. The
storage (Postgres rows, atomic `F()` updates) lives outside the engine; these
functions are the math, pure and deterministic under a seeded `random.Random`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

Posterior = tuple[float, float]
PRIOR: Posterior = (1.0, 1.0)  # uniform: no opinion before the first pull


def choose(
    arms: Mapping[str, Posterior],
    allowed: Sequence[str],
    rng: random.Random,
    prior: Posterior = PRIOR,
) -> str:
    """Sample each allowed mode's posterior and return the mode with the highest draw.

    Modes missing from `arms` start at `prior`; arms for modes the policy no
    longer allows are ignored. Draws happen in `allowed` order, so the same
    seed gives the same choice. Raises `ValueError` when nothing is allowed.
    """
    if not allowed:
        raise ValueError("no mode is allowed")
    best_mode, best_draw = allowed[0], -1.0
    for mode in dict.fromkeys(allowed):  # de-duplicate, keep order
        alpha, beta = arms.get(mode, prior)
        draw = rng.betavariate(max(alpha, 1e-9), max(beta, 1e-9))
        if draw > best_draw:
            best_mode, best_draw = mode, draw
    return best_mode


def reward(
    outcome_verified: bool,
    negative_feedback: bool,
    cost_usd: float,
    cost_weight: float,
    cost_scale: float = 0.01,
) -> float:
    """Reward in [0, 1]: 1 for a verified answer nobody complained about, minus a cost penalty.

    The penalty is `cost_weight × min(1, cost_usd / cost_scale)`: `cost_scale` is
    the spend at which the full weight applies (a cent by default), so a
    weight of 0.1 means "a cent of LLM calls costs a tenth of a success".
    A failed or disputed outcome earns 0 whatever it cost: cheap and wrong is
    still wrong.
    """
    if not outcome_verified or negative_feedback:
        return 0.0
    if cost_scale <= 0:
        raise ValueError("cost_scale must be positive")
    penalty = cost_weight * min(1.0, max(cost_usd, 0.0) / cost_scale)
    return min(1.0, max(0.0, 1.0 - penalty))


def bernoulli_update(r: float, rng: random.Random) -> tuple[int, int]:
    """(dα, dβ) for a fractional reward: a success with probability `r`.

    Turning r into a Bernoulli trial keeps the Beta posterior conjugate and its
    counts integer (Agrawal & Goyal, 2012), so stored arms stay easy to read.
    """
    r = min(1.0, max(0.0, r))
    return (1, 0) if rng.random() < r else (0, 1)


def update(posterior: Posterior, r: float, rng: random.Random) -> Posterior:
    da, db = bernoulli_update(r, rng)
    return posterior[0] + da, posterior[1] + db


def mean(posterior: Posterior) -> float:
    """The posterior mean α/(α+β), what the dashboard shows per arm."""
    alpha, beta = posterior
    return alpha / (alpha + beta)
