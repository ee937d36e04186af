"""Postgres text-search configurations by language, and claim text to a tsquery."""

from __future__ import annotations

import re

from verification.engine.text.language import detect_language
from verification.engine.text.words import is_content, tokenize

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


def language_of(text: str) -> str:
    return detect_language(text[:5000], fallback="")


def config_for(language: str) -> str:
    return CONFIGS.get(language, FALLBACK)


def query_terms(text: str) -> list[str]:
    """The claim's content words, safe to put in a tsquery (letters and digits only)."""
    terms: list[str] = []
    for word in tokenize(text):
        if not is_content(word):
            continue
        term = re.sub(r"[^\w]", "", word.surface.lower())
        if term and term not in terms:
            terms.append(term)
    return terms[:MAX_TERMS]
