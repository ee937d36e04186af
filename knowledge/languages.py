"""The language of each passage, and the warning a document gets when the detector
cannot check (some of) it.

Languages are told per passage, not per document: a manual with Arabic, Hebrew,
Japanese and English sections gets each section's stemming (`text_search.config_for`),
and the document's `language` is the one most of its text is in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine import UNDETERMINED
from verification.tenant_config import service_detector

from .text_search import language_of


def passage_languages(texts: Sequence[str], document_language: str) -> list[str]:
    """Each passage's language; one too short or ambiguous to tell takes the document's."""
    return [language_of(t, fallback=document_language) for t in texts]


def main_language(texts: Sequence[str], languages: Sequence[str]) -> str:
    """The language most of the text (by characters) is in ("" for none)."""
    weight: Counter[str] = Counter()
    for text, lang in zip(texts, languages, strict=True):
        if lang and lang != UNDETERMINED:
            weight[lang] += len(text)
    return weight.most_common(1)[0][0] if weight else ""


def checkable_languages() -> frozenset[str]:
    """The languages the service's detector checks (it is loaded once per process)."""
    return service_detector().languages


def language_warnings(languages: Sequence[str], checkable: frozenset[str]) -> list[str]:
    """A warning naming the passages whose language the detector cannot check."""
    unchecked = Counter(
        lang for lang in languages if lang and lang != UNDETERMINED and lang not in checkable
    )
    if not unchecked:
        return []
    named = ", ".join(f"{lang}: {n}" for lang, n in sorted(unchecked.items()))
    return [
        f"{sum(unchecked.values())} of {len(languages)} passages are in a language the "
        f"detector cannot check ({named}; it checks {', '.join(sorted(checkable))}): "
        "answers checked against them get only the language-free checks (numbers, dates, "
        "amounts)"
    ]
