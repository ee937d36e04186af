"""Postgres text-search configurations by language, and text to what full-text search reads.

Postgres' parser has no word breaker for Chinese, Japanese or Korean: a run of CJK
characters becomes one "word" (a whole clause), which a claim's words never equal.
So runs of CJK characters are written as their overlapping character bigrams
("東京タワー" -> "東京 京タ タワ ワー"), both in the passages' tsvectors
(`search_text`) and in a claim's terms (`query_terms`): a sentence copied from
a Japanese document shares all its bigrams with the passage. Bigrams rather than
pg_trgm's trigrams, because most CJK words are one or two characters long, and
because lexemes in the tsvector keep the document frequencies (`TermStat`) and the
scoped GIN index that retrieval already uses. Text without CJK is unchanged.
"""

from __future__ import annotations

import re

from engine import detect_language, is_content, tokenize

#: ISO 639-1 -> a text-search configuration every Postgres ships.
CONFIGS = {
    "ar": "arabic", "ca": "catalan", "da": "danish", "de": "german", "el": "greek",
    "en": "english", "es": "spanish", "eu": "basque", "fi": "finnish", "fr": "french",
    "ga": "irish", "hi": "hindi", "hu": "hungarian", "id": "indonesian", "it": "italian",
    "lt": "lithuanian", "ne": "nepali", "nl": "dutch", "no": "norwegian", "pt": "portuguese",
    "ro": "romanian", "ru": "russian", "sr": "serbian", "sv": "swedish", "ta": "tamil",
    "tr": "turkish",
}  # fmt: skip
FALLBACK = "simple"
MAX_TERMS = 24
MAX_BIGRAMS = 48  # a copied CJK sentence of ~50 characters keeps all its bigrams
#: Han, kana, Hangul (the ranges `engine.text.words` tokenises one by one).
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")


def language_of(text: str, fallback: str = "") -> str:
    return detect_language(text[:5000], fallback=fallback)


def config_for(language: str) -> str:
    return CONFIGS.get(language, FALLBACK)


def bigrams(run: str) -> list[str]:
    """A run of CJK characters as its overlapping bigrams (a single character as itself)."""
    return [run] if len(run) < 2 else [run[i : i + 2] for i in range(len(run) - 1)]


def search_text(text: str) -> str:
    """`text` as `to_tsvector` should read it: CJK runs as bigrams, all else unchanged."""
    if not _CJK_RUN.search(text):
        return text
    return _CJK_RUN.sub(lambda m: " " + " ".join(bigrams(m.group())) + " ", text)


def query_terms(text: str) -> list[str]:
    """The claim's content words, safe to put in a tsquery (letters and digits only),
    then the bigrams of its CJK runs."""
    terms: list[str] = []
    for word in tokenize(_CJK_RUN.sub(" ", text)):
        if not is_content(word):
            continue
        term = re.sub(r"[^\w]", "", word.surface.lower())
        if term and term not in terms:
            terms.append(term)
    grams: list[str] = []
    for run in _CJK_RUN.findall(text):
        grams += [g for g in bigrams(run) if g not in grams]
    return terms[:MAX_TERMS] + grams[:MAX_BIGRAMS]
