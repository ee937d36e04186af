"""The combiner (Detection v3, item 6): answer signals, the stored model, and the pipeline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.pipeline import DetectionConfig, verify
from engine.scoring.combiner import COMBINER_FILE, Combiner, load_combiner
from engine.scoring.signals import SIGNALS, answer_signals
from engine.scoring.typed_checks import check
from engine.train.combiner import SIGN, best_threshold, fit, shifted
from engine.types import Coverage, DetectionInput, TokenPrediction, TokenProb

SHIPPED = Path(__file__).resolve().parents[2] / "engine/weights/default"
CONTEXT = (
    "The Harbour Line ferry leaves Pier 4 at 08:15 and reaches Eastport at 08:55. "
    "A single ticket costs $6 and a day pass costs $15.",
)


def _signals(answer: str) -> dict[str, float]:
    item = DetectionInput.build(CONTEXT, answer, "How long is the ferry ride?")
    return answer_signals(item, [], check(item.context, item.response, item.query), None, None)


def test_signals_are_all_present_and_finite():
    s = _signals("The ride takes 40 minutes, from 08:15 to 08:55.")
    assert set(s) == set(SIGNALS)
    assert all(v == v and abs(v) < 10 for v in s.values())


def test_a_contradicted_value_raises_the_conflict_signal_and_a_match_the_match_signal():
    right = _signals("The ferry leaves Pier 4 at 08:15 and arrives at 08:55.")
    wrong = _signals("The ferry leaves Pier 4 at 08:15 and arrives at 09:25.")
    assert right["value_match"] > wrong["value_match"]
    assert wrong["value_conflict"] > right["value_conflict"] == 0.0


def test_an_added_clause_lowers_the_weakest_sentence_alignment():
    plain = _signals("A day pass costs $15.")
    added = _signals("A day pass costs $15. Children under five always travel free on weekends.")
    assert added["lex_min"] < plain["lex_min"]
    assert added["novel_numbers"] == 0.0  # "five" is a word, not a novel figure


def test_a_novel_figure_and_name_are_counted():
    s = _signals("The ferry, run by Bluewater Lines, reaches Eastport in 55 minutes.")
    assert s["novel_names"] > 0
    assert s["novel_numbers"] > 0


def _model(weights: dict[str, float], bias: float = 0.0) -> Combiner:
    names = tuple(weights)
    return Combiner(
        features=names,
        mean=(0.0,) * len(names),
        scale=(1.0,) * len(names),
        weights=tuple(weights.values()),
        bias=bias,
        low=(0.0,) * len(names),
        high=(1.0,) * len(names),
    )


def test_inputs_are_clipped_to_the_fitted_range_and_json_round_trips():
    m = _model({"head_prob": 2.0, "lex_min": -1.0})
    assert m.probability({"head_prob": 5.0, "lex_min": 0.0}) == m.probability(
        {"head_prob": 1.0, "lex_min": 0.0}
    )
    assert Combiner.from_dict(json.loads(m.to_json())) == m


def test_unknown_signals_and_ragged_models_are_refused():
    with pytest.raises(ValueError, match="unknown signals"):
        _model({"mystery": 1.0})
    with pytest.raises(ValueError, match="differ in length"):
        Combiner(("head_prob",), (0.0,), (1.0,), (1.0, 2.0), 0.0, (0.0,), (1.0,))


def _row(source: str, label: int, head: float, conflict: float, lex: float) -> dict:
    signals = dict.fromkeys(SIGNALS, 0.0) | {
        "head_prob": head, "value_conflict": conflict, "lex_min": lex, "contradiction": conflict
    }  # fmt: skip
    return {"source": source, "label": label, "signals": signals, "score": head}


def test_a_fitted_combiner_keeps_every_weight_on_the_side_of_its_evidence():
    import random

    rnd = random.Random(3)
    rows = []
    for source in ("customer_style", "customer_style_g", "docnli"):
        for _ in range(40):
            label = rnd.random() < 0.5
            # lexical overlap is made to point the "wrong" way: the sign bound must hold it at 0
            rows.append(_row(source, int(label), rnd.random() * 0.5 + 0.4 * label,
                             float(label and rnd.random() < 0.5), 0.3 + 0.5 * label))  # fmt: skip
    model = fit(rows)
    weights = dict(zip(model.features, model.weights, strict=True))
    for name, w in weights.items():
        assert SIGN[name] * w >= 0 or SIGN[name] == 0, (name, w)
    assert weights["head_prob"] > 0
    assert weights["value_conflict"] > 0
    assert weights["lex_min"] == 0.0
    threshold = best_threshold(model, [r for r in rows if r["source"] != "docnli"])
    moved = shifted(model, threshold)
    probe = {"head_prob": 0.5}
    assert (model.probability(probe) >= threshold) == (moved.probability(probe) >= 0.5)


def test_no_combiner_is_shipped_until_one_beats_the_response_head():
    # Fitted and measured (docs/benchmarks.md "A learned combiner, fitted and not shipped"):
    # leave-one-set-out it did not beat
    # the shipped head in AUROC, so the default scores with the head alone.
    assert load_combiner(SHIPPED) is None
    assert not (SHIPPED / COMBINER_FILE).exists()


class _HeadDetector:
    """A detector with a response head's outputs and a combiner: what the default is."""

    name = "fake-head"
    languages = frozenset({"en"})

    def __init__(self, combiner: Combiner, head_prob: float) -> None:
        self.combiner = combiner
        self.head_prob = head_prob

    def predict(self, items):
        return [
            TokenPrediction(
                tokens=[TokenProb(0, len(it.response), 0.0)],
                coverage=Coverage(windows=1),
                response_prob=self.head_prob,
                head_features={"head_prob": self.head_prob},
            )
            for it in items
        ]


def test_the_pipeline_scores_with_the_detectors_combiner():
    item = DetectionInput.build(CONTEXT, "A day pass costs $15.", None)
    config = DetectionConfig(classify_queries=False, explain=False)
    low = verify(item, config, _HeadDetector(_model({"head_prob": 4.0}, bias=-3.0), 0.1))
    high = verify(item, config, _HeadDetector(_model({"head_prob": 4.0}, bias=-3.0), 0.9))
    assert low.score < 0.5 <= high.score  # the combiner, not the head probability, decides
    assert set(high.signals) == set(SIGNALS)
    assert high.model_score == pytest.approx(_model({"head_prob": 4.0}, -3.0).probability(
        {"head_prob": 0.9}), abs=1e-6)  # fmt: skip


def test_a_contradiction_still_decides_under_the_combiner():
    item = DetectionInput.build(CONTEXT, "A day pass costs $25.", None)
    config = DetectionConfig(classify_queries=False, explain_embeddings=False)
    result = verify(item, config, _HeadDetector(_model({"head_prob": 1.0}, bias=-9.0), 0.0))
    assert result.detected
    assert any(s.label == "contradiction" for s in result.spans)
