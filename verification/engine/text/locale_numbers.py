"""Numbers and clock times as other languages write them, rewritten the English way.

The typed value checks (`scoring.typed_values`) read English notation. An answer in
another language states the same values in its own: "2.500 €" is 2500 where German or
Spanish group thousands with a dot, "1.250,50" is 1250.50, "14 h 30" is 14:30 in French
and "15時30分" is 15:30 in Japanese. `to_english_notation` rewrites those forms and keeps
a map from every character of the result back to the original text, so findings are
reported at the original offsets. Nothing else (words, month names) is touched: values
need no language model, words do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Languages that group thousands with a dot (or a space) and write decimals with a comma.
DECIMAL_COMMA = frozenset(
    {"de", "es", "fr", "it", "pt", "nl", "pl", "ru", "sv", "da", "no", "fi", "tr", "cs", "ro"}
)
_GROUPED = re.compile(r"(?<![\d.,])\d{1,3}(?:\.\d{3})+(?:,\d+)?(?![\d.,]*\d)")
_DECIMAL = re.compile(r"(?<![\d.,])\d+,\d+(?![\d.,]*\d)")
_FRENCH_CLOCK = re.compile(r"\b([01]?\d|2[0-3])\s?h\s?([0-5]\d)\b")
_CJK_CLOCK = re.compile(r"([01]?\d|2[0-3])時(?:([0-5]?\d)分)?")


@dataclass(frozen=True)
class Rewritten:
    text: str
    #: `origin[i]` is the index in the original text of the result's character i;
    #: `origin[len(text)]` is the original length.
    origin: tuple[int, ...]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Original offsets of the result's `[start, end)`."""
        if start >= end:
            return self.origin[start], self.origin[start]
        return self.origin[start], self.origin[end - 1] + 1


def to_english_notation(text: str, lang: str) -> Rewritten:
    """`text` with the language's number and clock notation rewritten (see module doc)."""
    edits: list[tuple[int, int, str]] = []
    if lang in DECIMAL_COMMA:
        for m in _GROUPED.finditer(text):
            edits.append((m.start(), m.end(), _swap_marks(m.group())))
        taken = [(a, b) for a, b, _ in edits]
        for m in _DECIMAL.finditer(text):
            if not any(a <= m.start() < b for a, b in taken):
                edits.append((m.start(), m.end(), _swap_marks(m.group())))
    for m in _FRENCH_CLOCK.finditer(text):
        edits.append((m.start(), m.end(), f"{int(m.group(1)):02d}:{m.group(2)}"))
    for m in _CJK_CLOCK.finditer(text):
        edits.append((m.start(), m.end(), f"{int(m.group(1)):02d}:{int(m.group(2) or 0):02d}"))
    return _apply(text, sorted(edits))


_SWAP = str.maketrans(".,", ",.")


def _swap_marks(number: str) -> str:
    """ "1.250,50" -> "1,250.50"; "2.500" -> "2,500"; "3,5" -> "3.5"."""
    return number.translate(_SWAP)


def _apply(text: str, edits: list[tuple[int, int, str]]) -> Rewritten:
    out: list[str] = []
    origin: list[int] = []
    pos = 0
    for start, end, new in edits:
        if start < pos:
            continue  # overlapping rewrite: the first one wins
        out.append(text[pos:start])
        origin.extend(range(pos, start))
        out.append(new)
        # every rewritten character points into the original value, the last at its end
        origin.extend(min(start + k, end - 1) for k in range(len(new)))
        pos = end
    out.append(text[pos:])
    origin.extend(range(pos, len(text)))
    origin.append(len(text))
    return Rewritten("".join(out), tuple(origin))
