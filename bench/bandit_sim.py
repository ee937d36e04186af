"""Simulate Thompson-sampling mode selection on synthetic query-type mixes (docs/policies.md "Mode selection (Thompson sampling)").

Each scenario fixes, per query type, every mode's probability of a verified
and accepted answer and its LLM cost. The expected reward of (type, mode) is
then known exactly, so regret is measured against the best fixed mode *per
query type* (the oracle the bandit should find), using the engine's own
`reward`, `choose` and `bernoulli_update`. Uniform random choice and the best
single mode for all types are printed alongside for scale.

    python bench/bandit_sim.py [--seeds 20] [--rounds 10000] [--cost-weight 0.1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine

MODES = ("lightweight", "standard", "premium")
COST_USD = {"lightweight": 0.0, "standard": 0.002, "premium": 0.008}
NEGATIVE_FEEDBACK = 0.03  # share of verified answers users still flag
COST_SCALE = 0.01


@dataclass(frozen=True)
class Scenario:
    name: str
    mix: dict[str, float]  # query type -> share of traffic
    success: dict[str, dict[str, float]]  # query type -> mode -> P(verified)


SCENARIOS = [
    Scenario(
        "distinct: a different best mode per type",
        {"factual_qa": 0.5, "summarization": 0.3, "data2text": 0.2},
        {
            "factual_qa": {"lightweight": 0.55, "standard": 0.80, "premium": 0.92},
            "summarization": {"lightweight": 0.70, "standard": 0.86, "premium": 0.87},
            "data2text": {"lightweight": 0.40, "standard": 0.60, "premium": 0.85},
        },
    ),
    Scenario(
        "close: best and runner-up within 3 points",
        {"factual_qa": 0.6, "opinion": 0.25, "other": 0.15},
        {
            "factual_qa": {"lightweight": 0.70, "standard": 0.82, "premium": 0.88},
            "opinion": {"lightweight": 0.90, "standard": 0.92, "premium": 0.93},
            "other": {"lightweight": 0.60, "standard": 0.75, "premium": 0.78},
        },
    ),
]


def expected_reward(p_success: float, mode: str, cost_weight: float) -> float:
    accepted = p_success * (1 - NEGATIVE_FEEDBACK)
    return accepted * engine.arm_reward(True, False, COST_USD[mode], cost_weight, COST_SCALE)


def simulate(
    sc: Scenario, policy: str, seed: int, rounds: int, cost_weight: float, marks: list[int]
) -> dict[int, tuple[float, float, float]]:
    """(cumulative regret, cumulative best-arm share, best-arm share of the last 1k pulls)."""
    rng = random.Random(seed)
    types, weights = list(sc.mix), list(sc.mix.values())
    mu = {t: {m: expected_reward(sc.success[t][m], m, cost_weight) for m in MODES} for t in types}
    best = {t: max(MODES, key=lambda m, t=t: mu[t][m]) for t in types}
    global_best = max(MODES, key=lambda m: sum(sc.mix[t] * mu[t][m] for t in types))
    arms: dict[str, dict[str, engine.Posterior]] = {t: {} for t in types}
    regret, hits, out = 0.0, [], {}
    for n in range(1, rounds + 1):
        qt = rng.choices(types, weights)[0]
        if policy == "thompson":
            mode = engine.choose_arm(arms[qt], MODES, rng)
        elif policy == "uniform":
            mode = rng.choice(MODES)
        else:
            mode = global_best
        verified = rng.random() < sc.success[qt][mode]
        negative = verified and rng.random() < NEGATIVE_FEEDBACK
        r = engine.arm_reward(verified, negative, COST_USD[mode], cost_weight, COST_SCALE)
        if policy == "thompson":
            arms[qt][mode] = engine.update_posterior(arms[qt].get(mode, engine.PRIOR), r, rng)
        regret += mu[qt][best[qt]] - mu[qt][mode]
        hits.append(mode == best[qt])
        if n in marks:
            out[n] = (regret, sum(hits) / n, sum(hits[-1000:]) / len(hits[-1000:]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=10_000)
    ap.add_argument("--cost-weight", type=float, default=0.1)
    args = ap.parse_args()
    marks = sorted({m for m in (1_000, 10_000, args.rounds) if m <= args.rounds})

    print(
        f"Thompson sampling vs best fixed mode per query type; {args.seeds} seeds, "
        f"cost_weight={args.cost_weight}, cost_scale=${COST_SCALE}, costs {COST_USD}"
    )
    for sc in SCENARIOS:
        print(f"\n== {sc.name}  (mix {sc.mix})")
        for t in sc.mix:
            mus = {m: expected_reward(sc.success[t][m], m, args.cost_weight) for m in MODES}
            best = max(mus, key=lambda m, mus=mus: mus[m])
            row = "  ".join(f"{m}={v:.3f}" for m, v in mus.items())
            print(f"   {t:<14} E[reward] {row}   best: {best}")
        print(
            f"   {'policy':<14}{'round':>7}{'cum. regret':>19}{'best share (cum.)':>19}"
            f"{'last 1k':>9}"
        )
        for policy in ("thompson", "uniform", "global_best"):
            runs = [
                simulate(sc, policy, seed, args.rounds, args.cost_weight, marks)
                for seed in range(args.seeds)
            ]
            for mark in marks:
                regrets = [r[mark][0] for r in runs]
                shares = [r[mark][1] for r in runs]
                recent = [r[mark][2] for r in runs]
                sd = statistics.pstdev(regrets)
                print(
                    f"   {policy:<14}{mark:>7}{statistics.mean(regrets):>11.1f} ± {sd:<6.1f}"
                    f"{statistics.mean(shares):>18.1%}{statistics.mean(recent):>9.1%}"
                )


if __name__ == "__main__":
    main()
