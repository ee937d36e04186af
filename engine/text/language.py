"""Offline, deterministic language identification for answers.

A detector trained on English must not silently "verify" a German answer,
so the pipeline asks this module first. Two signals, both deterministic:
the Unicode script of the letters (decisive for CJK, Cyrillic, Arabic, ...)
and, for Latin script, hits on each language's most frequent function words
plus its characteristic letters. Short texts carry too little signal; they
take the caller's fallback (the context's language) instead of a guess.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

UNDETERMINED = "und"
MIN_WORDS = 4  # fewer Latin words than this: defer to the fallback
MIN_HITS = 1.5  # function-word evidence (shared words count fractionally) to name a language

_WORD_RE = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")

# Script name prefix (from unicodedata.name) → language. Japanese kana wins
# over Han because Japanese text mixes both.
_SCRIPTS = {
    "HIRAGANA": "ja", "KATAKANA": "ja", "HANGUL": "ko", "CJK": "zh",
    "CYRILLIC": "ru", "GREEK": "el", "ARABIC": "ar", "HEBREW": "he",
    "DEVANAGARI": "hi", "THAI": "th", "BENGALI": "bn", "TAMIL": "ta",
    "GEORGIAN": "ka", "ARMENIAN": "hy", "TELUGU": "te", "GUJARATI": "gu",
}  # fmt: skip

_FUNCTION_WORDS: dict[str, frozenset[str]] = {
    lang: frozenset(words.split())
    for lang, words in {
        "en": "the and of to is in that it was for on are with as his they be at this have "
        "from or had by but not what all were when we there can an which their has would "
        "been its who did does how why where you he she my your me so just like really yes "
        "yeah than very about more some if out up also because think know much many these "
        "those them our could should will don't it's i'm i've that's there's any been into "
        "only other then over after before well even most such here",
        "fr": "le la les des est et un une du en que qui dans pour pas sur au avec il elle "
        "sont ce cette mais ou nous vous leur été aux par à se ne très",
        "de": "der die das und ist nicht ein eine zu den von mit sich des auf für im dem "
        "auch es sie wir war wird sind bei aus nach oder",
        "es": "el la los las de que y en un una es por con para no se del al como más pero "
        "su lo fue son está este esta",
        "it": "il lo la gli le di che è e un una per non con del della sono da nel si ma "
        "come anche questo questa alla ed stata stato",
        "pt": "o a os as de que e do da em um uma para com não no na se por mais dos das "
        "como mas foi ao são está",
        "nl": "de het een en van is dat op te in niet zijn voor met die er aan ook als maar "
        "om bij door naar wordt",
        "sv": "och att det som en på är av för med till den inte har de ett om var jag men "
        "från eller också",
        "da": "og at det som en på er af for med til den ikke har de et om var jeg men fra "
        "eller også",
        "pl": "i w na z że się nie do to jest jak co ale po od są przez dla jego jej tak",
        "tr": "ve bir bu da de için ile çok ne var daha olarak gibi en ama ya kadar sonra olan",
        "id": "dan yang di ini itu dengan untuk tidak dari dalam akan pada juga ke karena "
        "ada oleh atau",
        "ro": "și în de la cu un o este că nu pe din se mai pentru care sunt au",
        "cs": "a je se na v že to s z do jsou ale jak tak pro od po by byl",
        "fi": "ja on ei se että oli hän mutta kun tai ovat myös niin kuin joka",
    }.items()
}

_LANGS_OF_WORD: dict[str, tuple[str, ...]] = {}
for _lang, _vocab in _FUNCTION_WORDS.items():
    for _word in _vocab:
        _LANGS_OF_WORD[_word] = (*_LANGS_OF_WORD.get(_word, ()), _lang)

# Letters that only (or mostly) occur in one Latin-script language.
_LETTERS = {
    "ß": "de", "ä": "de", "ñ": "es", "¿": "es", "¡": "es", "ã": "pt", "õ": "pt",
    "ç": "fr", "œ": "fr", "ê": "fr", "ø": "da", "æ": "da",
    "å": "sv", "ł": "pl", "ą": "pl", "ę": "pl", "ğ": "tr", "ş": "tr", "ı": "tr",
    "ă": "ro", "ț": "ro", "ř": "cs", "ě": "cs", "ů": "cs",
}  # fmt: skip


def _script(ch: str) -> str | None:
    """Script bucket of a letter: "LATIN", a key of `_SCRIPTS`, or None for other scripts."""
    try:
        name = unicodedata.name(ch)
    except ValueError:
        return None
    if name.startswith("LATIN"):
        return "LATIN"
    for prefix in _SCRIPTS:
        if name.startswith(prefix):
            return prefix
    return None


def detect_language(text: str, fallback: str = UNDETERMINED) -> str:
    """ISO 639-1 code of `text`, or `fallback` when the text is too short or ambiguous.

    Same input, same answer (no randomness). Non-Latin scripts are named from
    the letters alone (a short "東京です" is still Japanese); Latin text needs
    at least `MIN_WORDS` words and `MIN_HITS` function-word hits.
    """
    scripts: Counter[str] = Counter()
    for ch in text:
        if ch.isalpha():
            bucket = _script(ch)
            if bucket is not None:
                scripts[bucket] += 1
    letters = sum(scripts.values())
    if letters == 0:
        return fallback
    if scripts["HIRAGANA"] + scripts["KATAKANA"] > 0 and (
        scripts["HIRAGANA"] + scripts["KATAKANA"] + scripts["CJK"] >= 0.3 * letters
    ):
        return "ja"
    non_latin = [(n, s) for s, n in scripts.items() if s != "LATIN"]
    if non_latin:
        count, script = max(non_latin)
        # A dominant foreign script decides; a few quoted foreign letters in an
        # English sentence ("Beijing (北京)") do not.
        if count >= 0.3 * letters:
            lang = _SCRIPTS[script]
            if lang == "ru" and re.search("[іїєґ]", text.casefold()):
                return "uk"
            if lang == "ar" and re.search("[پچژگ]", text):
                return "fa"
            return lang
    return _latin_language(text, fallback)


def _latin_language(text: str, fallback: str) -> str:
    words = [w.casefold().replace("’", "'") for w in _WORD_RE.findall(text)]
    if len(words) < MIN_WORDS:
        return fallback
    hits: dict[str, float] = dict.fromkeys(_FUNCTION_WORDS, 0.0)
    for w in words:
        # ASCII single letters ("a", "i", "w") are too ambiguous to count ("è" is not); a word shared
        # by several languages ("do", "to", "no") counts as a fraction to each.
        langs = _LANGS_OF_WORD.get(w, ()) if len(w) > 1 or not w.isascii() else ()
        for lang in langs:
            hits[lang] += 1.0 / len(langs)
    for ch in text.casefold():
        if ch in _LETTERS:
            hits[_LETTERS[ch]] += 1.0
    ranked = sorted(hits.items(), key=lambda kv: (-kv[1], kv[0]))
    (best, top), (_, second) = ranked[0], ranked[1]
    if top < MIN_HITS or top < 1.25 * second:
        return fallback
    return best


def answer_language(response: str, context: Iterable[str] = ()) -> str:
    """Language of an answer, defaulting short answers to the context's language.

    "Paris." or "1889" cannot be identified on their own; they take the
    language of their context, and a short pure-ASCII answer with no usable
    context is taken as English rather than rejected.
    """
    lang = detect_language(response)
    if lang != UNDETERMINED:
        return lang  # the answer names its own language: no need to read the context
    sample = " ".join(context)[:4000]
    context_lang = detect_language(sample) if sample else UNDETERMINED
    if context_lang == UNDETERMINED and response.isascii():
        return "en"
    return context_lang
