"""The memo caches of the text helpers: the same results as the uncached work, a new
list (or set) per call, and bounded (`engine/text/memo.py`)."""

from engine.scoring import typed_values
from engine.text import sentences, words
from engine.text.memo import memoise_text

TEXTS = [
    "The tower is 330 metres tall. It was built in 1889 by Gustave Eiffel's company.",
    "Dr. Smith arrived at 3 p.m.; the meeting, however, had ended at 2:45.",
    "Revenue rose 6 %, and the CEO said $1.65B was spent on 12 new stores.",
    "",
    "x" * 3_000 + " 42 towers. " + "Paris is the capital of France. " * 100,
]


def test_memoised_text_function_returns_new_lists_and_stays_bounded():
    calls: list[str] = []

    @memoise_text(10, 3, long_chars=100, long_size=2)
    def chars(text: str) -> list[str]:
        calls.append(text)
        return list(text)

    first = chars("abc")
    first.append("changed")  # a caller's change must not reach the cache
    assert chars("abc") == ["a", "b", "c"]
    assert calls == ["abc"]  # the second call came from the cache
    for text in ("d", "e", "f", "g"):
        chars(text)
    assert chars.cache_info().currsize == 3  # type: ignore[attr-defined]
    long = "y" * 50
    assert chars(long) == list(long)
    assert chars(long) == list(long)
    assert calls.count(long) == 1  # the long tier kept it, apart from the short texts
    assert chars.long_cache_info().currsize == 1  # type: ignore[attr-defined]
    assert chars.cache_info().currsize == 3  # type: ignore[attr-defined]
    huge = "z" * 200
    chars(huge)
    chars(huge)
    assert calls.count(huge) == 2  # past `long_chars`: never cached
    chars.cache_clear()  # type: ignore[attr-defined]
    assert chars.cache_info().currsize == 0  # type: ignore[attr-defined]
    assert chars.long_cache_info().currsize == 0  # type: ignore[attr-defined]


def _fresh_tokens(text: str) -> list[words.Word]:
    return [
        words.Word(m.start(), m.end(), m.group(), m.lastgroup)  # type: ignore[arg-type]
        for m in words._TOKEN_RE.finditer(text)
    ]


def test_word_caches_give_the_uncached_results():
    words.tokenize.cache_clear()  # type: ignore[attr-defined]
    words._content_norms.cache_clear()  # type: ignore[attr-defined]
    for _ in range(2):  # a miss, then a hit
        for text in TEXTS:
            tokens = words.tokenize(text)
            assert tokens == _fresh_tokens(text)
            keys = words.content_keys(text)
            assert keys == {w.norm for w in _fresh_tokens(text) if words.is_content(w)}
            keys.add("changed")  # a caller's change must not reach the cache
            assert "changed" not in words.content_keys(text)
            tokens.clear()
            assert words.tokenize(text) == _fresh_tokens(text)
    assert words.normalize("Towers") == words.normalize.__wrapped__("Towers")
    assert words.stem("running") == words.stem.__wrapped__("running") == "run"
    assert words.normalize.cache_info().maxsize == words.WORD_CACHE_SIZE
    assert words.stem.cache_info().maxsize == words.WORD_CACHE_SIZE
    assert words.tokenize.cache_info().maxsize == words.TEXT_CACHE_SIZE  # type: ignore[attr-defined]


def test_sentence_and_value_caches_give_the_uncached_results():
    for _ in range(2):
        for text in TEXTS:
            split = sentences.split_sentences(text)
            assert split == sentences.split_sentences.__wrapped__(text)  # type: ignore[attr-defined]
            split.clear()
            assert split != sentences.split_sentences(text) or not text.strip()
            found = typed_values.values(text)
            assert found == typed_values.values.__wrapped__(text)  # type: ignore[attr-defined]
    assert sentences.split_sentences.cache_info().currsize > 0  # type: ignore[attr-defined]
