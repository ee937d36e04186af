"""The default detector: the learned MiniLM token classifier averaged with lexical grounding.

Why an ensemble: the two make different mistakes. The encoder reads the
context and picks up paraphrase and meaning, but it is small and was
fine-tuned on short knowledge snippets. The lexical detector never misses
a number or name that is absent from a long context. On the generated
DEV split of the training data (`python bench/ensemble_dev.py`; no
evaluation set was used), the example-level AUROC was 0.916 for MiniLM
alone, 0.899 for lexical alone and 0.936 for the equal-weight mean. The
weight is the plain mean, fixed a priori rather than fitted.

Tokens are the lexical detector's words. A word's encoder probability is
the highest probability of the sub-word tokens that overlap it, so a word
half-marked by the encoder still counts as marked. Coverage (windows,
truncation) and billed tokens come from the encoder, which is the part
that can run out of window.

With a response head (`response_head.py`, shipped beside the model), each
prediction also carries `response_prob`: one calibrated example-level
probability, used by the "calibrated" aggregation (the policy default).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ..scoring import typed_checks
from ..scoring.combiner import Combiner, load_combiner
from ..scoring.findings import Finding
from ..types import DetectionInput, TokenPrediction, TokenProb
from .base import Detector
from .response_head import ResponseHead, response_features, word_probs


def combine(
    learned: TokenPrediction, grounded: TokenPrediction, model_weight: float = 0.5
) -> TokenPrediction:
    """Per lexical word: weighted mean of its encoder probability and its lexical one."""
    overlap = word_probs([(w.start, w.end) for w in grounded.tokens], learned.tokens)
    tokens = [
        TokenProb(w.start, w.end, model_weight * m + (1 - model_weight) * w.prob)
        for w, m in zip(grounded.tokens, overlap, strict=True)
    ]
    return TokenPrediction(
        tokens=tokens,
        coverage=learned.coverage,
        detector_tokens=learned.detector_tokens,
        pair_prob=learned.pair_prob,
    )


class EnsembleDetector:
    def __init__(
        self,
        model: Detector,
        lexical: Detector,
        model_weight: float = 0.5,
        head: ResponseHead | None = None,
        typed: bool = True,
        combiner: Combiner | None = None,
    ) -> None:
        if not 0.0 <= model_weight <= 1.0:
            raise ValueError("model_weight must be in [0, 1]")
        self.model = model
        self.lexical = lexical
        self.model_weight = model_weight
        self.head = head
        #: the pipeline's answer-level model over every signal (`scoring/combiner.py`)
        self.combiner = combiner
        self.typed = typed  # apply `typed_checks` (see there) to both members' tokens
        self.name = f"{model.name}+{lexical.name}"
        self.languages = model.languages & lexical.languages

    def predict(self, items: Sequence[DetectionInput]) -> list[TokenPrediction]:
        learned = self.model.predict(items)
        grounded = self.lexical.predict(items)
        out = []
        for item, a, b in zip(items, learned, grounded, strict=True):
            a, b, findings = typed_inputs(item, a, b, self.typed)
            combined = combine(a, b, self.model_weight)
            if self.typed:  # the pipeline reuses them instead of checking again
                combined.typed_findings = findings
            if self.head is not None:
                features = response_features(item.response, a.tokens, b.tokens, _pair(a))
                raw = self.head.probability(features)
                combined.head_features = {**features, "head_prob": raw}
                combined.response_prob = typed_checks.floor_score(raw, findings, item.context)
            out.append(combined)
        return out


def typed_inputs(
    item: DetectionInput, learned: TokenPrediction, grounded: TokenPrediction, typed: bool = True
) -> tuple[TokenPrediction, TokenPrediction, list[Finding]]:
    """Both members' predictions with the typed checks applied (before the head reads
    them, so the score moves with them), and the findings."""
    findings = typed_checks.check(item.context, item.response, item.query) if typed else []
    if findings:
        learned = replace(learned, tokens=typed_checks.adjust(learned.tokens, findings))
        grounded = replace(grounded, tokens=typed_checks.adjust(grounded.tokens, findings))
    return learned, grounded, findings


def _pair(learned: TokenPrediction) -> float | None:
    # The pair head judges the whole answer against one window; when the context was
    # split, no window holds all the evidence, so its minimum says little.
    return learned.pair_prob if learned.coverage.windows <= 1 else None


def head_inputs(
    item: DetectionInput, learned: TokenPrediction, grounded: TokenPrediction, typed: bool = True
) -> tuple[TokenPrediction, TokenPrediction, dict[str, float], list[Finding]]:
    """`typed_inputs` plus the head's features: what the ensemble's head reads, shared
    with the head's fitting (`train/head.py`), so both see the same inputs."""
    learned, grounded, findings = typed_inputs(item, learned, grounded, typed)
    features = response_features(item.response, learned.tokens, grounded.tokens, _pair(learned))
    return learned, grounded, features, findings


def shipped_ensemble(
    model: Detector, lexical: Detector, model_dir: Path | None = None
) -> EnsembleDetector:
    """The default detector ("embedded"): `model` (the shipped MiniLM classifier, on any
    device) with `lexical`, weighted as the shipped response head's fit chose (equal
    weights when it says nothing), and that response head."""
    # embedded imports torch; a lexical-only ensemble must not load it
    from .embedded import DEFAULT_MODEL_DIR
    from .response_head import load_head

    head = load_head(model_dir or DEFAULT_MODEL_DIR)
    weight = float(head.meta.get("model_weight", 0.5)) if head is not None else 0.5
    combiner = load_combiner(model_dir or DEFAULT_MODEL_DIR)
    return EnsembleDetector(model, lexical, model_weight=weight, head=head, combiner=combiner)
