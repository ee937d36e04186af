"""The combiner: one calibrated answer-level probability from every signal (Detection v3).

A standardised logistic regression over `signals.SIGNALS`, fitted by
`python -m engine.train.combiner` on the training sources and the
customer-style development sets, each source weighing the same and each class within
it the same. Weights on evidence of a hallucination (a model probability, an absent
value, a conflict, novelty) are non-negative, and weights on evidence of support
(matching values, alignment) are non-positive, so more suspicious evidence never
lowers the score. Inputs are clipped to the range seen in fitting.

Stored as `combiner.json` beside the detector's weights; inference is a dot product,
with no scikit-learn at run time. Its `threshold` (fitted on development data) is
mapped onto 0.5 by the intercept, so the policy's threshold keeps its meaning.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .signals import SIGNALS

COMBINER_FILE = "combiner.json"


@dataclass(frozen=True)
class Combiner:
    """`σ(b + Σ w_i (clip(x_i) − μ_i) / s_i)` over named signals."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    low: tuple[float, ...]
    high: tuple[float, ...]
    meta: dict[str, Any] = field(default_factory=dict[str, Any], compare=False)

    def __post_init__(self) -> None:
        n = len(self.features)
        sizes = {len(self.mean), len(self.scale), len(self.weights), len(self.low), len(self.high)}
        if sizes != {n}:
            raise ValueError("combiner: features, mean, scale, weights and ranges differ in length")
        if unknown := set(self.features) - set(SIGNALS):
            raise ValueError(f"combiner: unknown signals {sorted(unknown)}")
        if any(s <= 0 for s in self.scale):
            raise ValueError("combiner: scales must be positive")

    def probability(self, signals: Mapping[str, float]) -> float:
        z = self.bias
        for name, mu, s, w, lo, hi in zip(
            self.features, self.mean, self.scale, self.weights, self.low, self.high, strict=True
        ):
            x = min(max(float(signals.get(name, 0.0)), lo), hi)
            z += w * (x - mu) / s
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1) + "\n"

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Combiner:
        def floats(key: str) -> tuple[float, ...]:
            return tuple(float(x) for x in raw[key])

        return cls(
            features=tuple(raw["features"]),
            mean=floats("mean"),
            scale=floats("scale"),
            weights=floats("weights"),
            bias=float(raw["bias"]),
            low=floats("low"),
            high=floats("high"),
            meta=dict(raw.get("meta", {})),
        )


def load_combiner(model_dir: Path) -> Combiner | None:
    """The combiner stored in `model_dir`, or None when the folder has none."""
    path = model_dir / COMBINER_FILE
    if not path.is_file():
        return None
    return Combiner.from_dict(json.loads(path.read_text(encoding="utf-8")))
