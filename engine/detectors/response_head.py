"""The response head: one calibrated example-level probability from token probabilities.

Span-max (the highest token probability) lets a single doubtful word decide a
whole answer, which makes it a poor ranking score: in a long answer some
word is almost always off. The response head is a small logistic regression
over length-robust summaries of the two ensemble members' token
probabilities (the MiniLM model's and the lexical detector's):

* ``pair``: the model's pair head, whether the answer as a whole is entailed
  by some context window (v2 models; without one it repeats ``model_max``);
* ``model_max``, ``model_top3``: the strongest learned token signals;
* ``lexical_max``: an absent number, date or name;
* ``unsupported_share``: the share of content words the context never uses
  (the overlap signal, which stays informative for long answers);
* ``content_words_log``: answer length, so the others can be read against it.

Its weights are non-negative on every probability feature (a more suspicious
token never lowers the score), fitted with class-balanced weights on the
human labels of the TRAINING sets only (`python -m engine.train.head`),
and stored as JSON beside the model. Inference is a dot product: no sklearn.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..text.words import is_content, tokenize
from ..types import TokenProb

FEATURES = (
    "pair",
    "model_max",
    "model_top3",
    "lexical_max",
    "unsupported_share",
    "content_words_log",
)
HEAD_FILE = "response_head.json"
#: A content word scored above this by the lexical detector is absent from the
#: context (present words score <= 0.12, absent ones >= 0.45 after discounts).
LEXICAL_ABSENT = 0.3


def word_probs(words: Sequence[tuple[int, int]], sub: Sequence[TokenProb]) -> list[float]:
    """Per word, the highest probability of the sub-word tokens overlapping it (0 if none)."""
    ordered = sorted(sub, key=lambda t: t.start)
    out: list[float] = []
    i = 0
    for start, end in words:
        while i < len(ordered) and ordered[i].end <= start:
            i += 1
        j, best = i, 0.0
        while j < len(ordered) and ordered[j].start < end:
            best = max(best, ordered[j].prob)
            j += 1
        out.append(best)
    return out


def response_features(
    response: str,
    model_tokens: Sequence[TokenProb],
    lexical_tokens: Sequence[TokenProb],
    pair_prob: float | None = None,
) -> dict[str, float]:
    """The head's inputs for one answer; all zeros for an answer without content words.

    `lexical_tokens` must be the lexical detector's output for `response`
    (one token per `words.tokenize` word, in order).
    """
    words = tokenize(response)
    if len(lexical_tokens) != len(words):
        raise ValueError("lexical_tokens must hold one probability per word of the response")
    content = [i for i, w in enumerate(words) if is_content(w)]
    if not content:
        return dict.fromkeys(FEATURES, 0.0)
    model = word_probs([(w.start, w.end) for w in words], model_tokens)
    m = sorted(model[i] for i in content)
    lexical = [lexical_tokens[i].prob for i in content]
    return {
        "pair": m[-1] if pair_prob is None else pair_prob,
        "model_max": m[-1],
        "model_top3": sum(m[-3:]) / len(m[-3:]),
        "lexical_max": max(lexical),
        "unsupported_share": sum(p > LEXICAL_ABSENT for p in lexical) / len(lexical),
        "content_words_log": math.log1p(len(content)),
    }


@dataclass(frozen=True)
class ResponseHead:
    """Standardised logistic regression: `σ(b + Σ w_i (x_i − μ_i) / s_i)`."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    #: The range each feature took in training: inputs are clipped to it, so an
    #: answer far longer than any training answer is not extrapolated linearly.
    low: tuple[float, ...] | None = None
    high: tuple[float, ...] | None = None
    meta: dict[str, Any] = field(default_factory=dict[str, Any], compare=False)

    def __post_init__(self) -> None:
        n = len(self.features)
        lengths = {len(self.mean), len(self.scale), len(self.weights), n}
        lengths |= {len(b) for b in (self.low, self.high) if b is not None}
        if lengths != {n}:
            raise ValueError("response head: features, mean, scale and weights differ in length")
        if unknown := set(self.features) - set(FEATURES):
            raise ValueError(f"response head: unknown features {sorted(unknown)}")
        if any(s <= 0 for s in self.scale):
            raise ValueError("response head: scales must be positive")

    def probability(self, features: Mapping[str, float]) -> float:
        x = [features[name] for name in self.features]
        if self.low is not None:
            x = [max(v, lo) for v, lo in zip(x, self.low, strict=True)]
        if self.high is not None:
            x = [min(v, hi) for v, hi in zip(x, self.high, strict=True)]
        z = self.bias + sum(
            w * (v - mu) / s
            for v, mu, s, w in zip(x, self.mean, self.scale, self.weights, strict=True)
        )
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)  # no overflow for very negative z
        return e / (1.0 + e)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1) + "\n"

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> ResponseHead:
        return cls(
            features=tuple(raw["features"]),
            mean=tuple(float(x) for x in raw["mean"]),
            scale=tuple(float(x) for x in raw["scale"]),
            weights=tuple(float(x) for x in raw["weights"]),
            bias=float(raw["bias"]),
            low=None if raw.get("low") is None else tuple(float(x) for x in raw["low"]),
            high=None if raw.get("high") is None else tuple(float(x) for x in raw["high"]),
            meta=dict(raw.get("meta", {})),
        )


def load_head(model_dir: Path) -> ResponseHead | None:
    """The head stored in `model_dir`, or None when the folder has none."""
    path = model_dir / HEAD_FILE
    if not path.is_file():
        return None
    return ResponseHead.from_dict(json.loads(path.read_text(encoding="utf-8")))
