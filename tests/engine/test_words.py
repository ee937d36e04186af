import pytest

from engine.text.words import content_keys, normalize, normalize_number, stem, tokenize


@pytest.mark.parametrize(
    ("surface", "canonical"),
    [("1,000", "1000"), ("3.50", "3.5"), ("1990s", "1990"), ("21st", "21"), ("007", "7")],
)
def test_numbers_are_compared_in_canonical_form(surface, canonical):
    assert normalize_number(surface) == canonical


def test_number_words_and_months_normalise_to_shared_keys():
    assert normalize("Five") == normalize("5", "number") == "5"
    assert normalize("Sept") == normalize("September")


def test_light_stemming_joins_inflections_but_keeps_short_words():
    assert stem("towers") == stem("tower")
    assert stem("designed") == stem("designing") == stem("design")
    assert stem("stopped") == stem("stop")
    assert stem("bus") == "bus"
    assert stem("gas") == "gas"


def test_tokens_cover_words_numbers_cjk_and_symbols_with_offsets():
    text = "It's 1,000 km 🚀 東京!"
    words = tokenize(text)
    assert [w.surface for w in words] == ["It's", "1,000", "km", "🚀", "東", "京", "!"]
    assert all(text[w.start : w.end] == w.surface for w in words)


def test_content_keys_skip_stopwords_and_punctuation():
    assert content_keys("The towers were built in 1889.") == {"tower", "built", "1889"}
