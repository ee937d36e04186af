from engine.detectors.ensemble import EnsembleDetector
from engine.types import Coverage, DetectionInput, TokenPrediction, TokenProb


class Fixed:
    """A detector that returns the given tokens for every input."""

    def __init__(self, name, tokens, coverage=None, billed=0):
        self.name, self.languages = name, frozenset({"en", "de"})
        self.tokens, self.coverage, self.billed = tokens, coverage or Coverage(), billed

    def predict(self, items):
        return [TokenPrediction(list(self.tokens), self.coverage, self.billed) for _ in items]


ITEM = DetectionInput.build(["ctx"], "Paris 1950")


def test_words_take_the_highest_overlapping_subword_probability_averaged_with_lexical():
    # "Paris" = 0..5 split in two sub-words, "1950" = 6..10
    model = Fixed(
        "m",
        [TokenProb(0, 3, 0.2), TokenProb(3, 5, 0.6), TokenProb(6, 10, 0.9)],
        coverage=Coverage(windows=3, context_truncated=True),
        billed=42,
    )
    lexical = Fixed("lex", [TokenProb(0, 5, 0.0), TokenProb(6, 10, 1.0)])
    [pred] = EnsembleDetector(model, lexical).predict([ITEM])
    assert [(t.start, t.end) for t in pred.tokens] == [(0, 5), (6, 10)]
    assert [round(t.prob, 3) for t in pred.tokens] == [0.3, 0.95]
    # coverage and billing come from the model, which is what can run out of window
    assert pred.coverage.windows == 3
    assert pred.coverage.context_truncated
    assert pred.detector_tokens == 42


def test_a_word_the_model_did_not_score_counts_as_zero_from_the_model():
    model = Fixed("m", [])
    lexical = Fixed("lex", [TokenProb(0, 5, 0.8)])
    [pred] = EnsembleDetector(model, lexical, model_weight=0.25).predict([ITEM])
    assert round(pred.tokens[0].prob, 3) == 0.6


def test_name_and_languages_combine_both_parts():
    ens = EnsembleDetector(Fixed("m", []), Fixed("lex", []))
    assert ens.name == "m+lex"
    assert ens.languages == frozenset({"en", "de"})
