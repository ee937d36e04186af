"""Numbers and clock times as other languages write them, rewritten the English way.

The typed value checks (`scoring.typed_values`) read English notation. An answer in
another language states the same values in its own: "2.500 €" is 2500 where German or
Spanish group thousands with a dot, "1.250,50" is 1250.50, "14 h 30" is 14:30 in French
and "15時30分" is 15:30 in Japanese. A date names its month in the language ("14. Juli
2026", "8 de diciembre", "12 agosto 2025"), money may follow its number ("975 €", "34
euros", "1.800 £") and a duration or a distance names its unit ("5 settimane", "28
kilómetros", "4 Stunden und 55 Minuten"). `to_english_notation` rewrites those forms and
keeps a map from every character of the result back to the original text, so findings
are reported at the original offsets. These are closed word lists, not a language model:
other words are not touched, since words need one.
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

#: Month names of the languages with a decimal comma that customers write most.
_MONTHS = {
    "January": "januar janvier enero gennaio janeiro januari jänner",
    "February": "februar février fevrier febrero febbraio fevereiro februari",
    "March": "märz marz mars marzo março maart",
    "April": "april avril abril aprile",
    "May": "mai mayo maggio maio mei",
    "June": "juni juin junio giugno junho",
    "July": "juli juillet julio luglio julho",
    "August": "august août aout agosto augustus",
    "September": "september septembre septiembre setiembre settembre setembro",
    "October": "oktober octobre octubre ottobre outubro",
    "November": "november novembre noviembre novembro",
    "December": "dezember décembre decembre diciembre dicembre dezembro",
}
_MONTH_OF = {name: en for en, names in _MONTHS.items() for name in names.split()}
_LOCAL_DATE = re.compile(
    r"\b(?P<day>[0-3]?\d)(?:\.|er|º|°)?\s+(?:de\s+)?(?P<month>"
    + "|".join(sorted(_MONTH_OF, key=len, reverse=True))
    + r")\b(?:\s+(?:de\s+|del\s+)?(?P<year>(?:19|20)\d\d)\b)?",
    re.IGNORECASE,
)
#: A range of days in one month: "du 18 au 22 juillet 2026", "vom 18. bis 22. Juli",
#: "del 14 al 18 de agosto": both ends are dates of that month.
_LOCAL_RANGE = re.compile(
    r"\b(?P<first>[0-3]?\d)\.?\s+(?:au|bis|al|a|ao|tot|–|-)\s+(?P<last>[0-3]?\d)(?:\.|er)?\s+"
    r"(?:de\s+)?(?P<month>"
    + "|".join(sorted(_MONTH_OF, key=len, reverse=True))
    + r")\b(?:\s+(?:de\s+|del\s+)?(?P<year>(?:19|20)\d\d)\b)?",
    re.IGNORECASE,
)
#: Money written after its number: "975 €", "34 euros", "1,800 £" (after the marks swap).
_CURRENCY_AFTER = re.compile(
    r"(?<![\d.,])(?P<n>\d[\d,]*(?:\.\d+)?)\s?(?P<cur>€|£|euros?\b|EUR\b|libras?\b|Pfund\b|"
    r"sterline\b)",
    re.IGNORECASE,
)
_SIGN = {"€": "€", "£": "£", "euro": "€", "euros": "€", "eur": "€", "libra": "£", "libras": "£",
         "pfund": "£", "sterline": "£"}  # fmt: skip
#: Units of time and distance after a number.
_UNITS = {
    "days": "días dias giorni tage tagen jours dagen día dia giorno tag jour dag",
    "working days": "werktage werktagen werktagen",
    "weeks": "semanas settimane wochen semaines weken semana settimana woche semaine",
    "months": "meses mesi monate monaten mois maanden mese monat maand",
    "years": "años anos anni jahre jahren ans jaar año anno jahr",
    "hours": "horas ore stunden heures uur hora heure ora stunde",
    "minutes": "minutos minuti minuten minuto minute minuut",
    "nights": "noches noites notti nächte nächten nuits nachten noche noite notte nacht nuit",
    "km": "kilómetros quilômetros quilómetros chilometri kilometer kilomètres kilometros",
}
_UNIT_OF = {name: en for en, names in _UNITS.items() for name in names.split()}
#: Numbers written as words, read only before a unit word ("drei Monate", "tres noches").
_NUMBER_WORDS = {
    2: "zwei deux dos due dois twee",
    3: "drei trois tres tre três drie",
    4: "vier quatre cuatro quattro quatro",
    5: "fünf cinq cinco cinque vijf",
    6: "sechs six seis sei zes",
    7: "sieben sept siete sette sete zeven",
    8: "acht huit ocho otto oito",
    9: "neun neuf nueve nove negen",
    10: "zehn dix diez dieci dez tien",
    12: "zwölf douze doce dodici doze twaalf",
}
_NUMBER_OF = {name: n for n, names in _NUMBER_WORDS.items() for name in names.split()}
_WORD_NUMBER = re.compile(
    r"\b(?P<word>"
    + "|".join(sorted(_NUMBER_OF, key=len, reverse=True))
    + r")(?=\s+(?:"
    + "|".join(sorted(_UNIT_OF, key=len, reverse=True))
    + r")\b)",
    re.IGNORECASE,
)
_LOCAL_UNIT = re.compile(
    r"(?<=\d)(?P<gap>\s+)(?P<unit>"
    + "|".join(sorted(_UNIT_OF, key=len, reverse=True))
    + r")\b(?:\s+(?P<and>und|y|et|e|en)(?=\s+\d))?",
    re.IGNORECASE,
)


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
    numbers = _apply(text, sorted(edits))
    if lang == "en":
        return numbers
    counted = _compose(numbers, _apply(numbers.text, _count_edits(numbers.text)))
    return _compose(counted, _apply(counted.text, _word_edits(counted.text)))


def _count_edits(text: str) -> list[tuple[int, int, str]]:
    """Numbers written as words before a unit word, as digits ("drei Monate": 3 Monate)."""
    return [
        (m.start(), m.end(), str(_NUMBER_OF[m["word"].lower()]))
        for m in _WORD_NUMBER.finditer(text)
    ]


def _word_edits(text: str) -> list[tuple[int, int, str]]:
    """Month names, money after its number and unit words, rewritten the English way."""
    edits: list[tuple[int, int, str]] = []
    for m in _LOCAL_RANGE.finditer(text):
        month, year = _MONTH_OF[m["month"].lower()], f" {m['year']}" if m["year"] else ""
        new = f"{int(m['first'])} {month}{year} to {int(m['last'])} {month}{year}"
        edits.append((m.start(), m.end(), new))
    for m in _LOCAL_DATE.finditer(text):
        month = _MONTH_OF[m["month"].lower()]
        edits.append(
            (
                m.start(),
                m.end(),
                f"{int(m['day'])} {month}" + (f" {m['year']}" if m["year"] else ""),
            )
        )
    for m in _CURRENCY_AFTER.finditer(text):
        sign = _SIGN[m["cur"].lower()]
        edits.append((m.start(), m.end(), f"{sign}{m['n']}"))
    for m in _LOCAL_UNIT.finditer(text):
        unit = _UNIT_OF[m["unit"].lower()]
        edits.append((m.start(), m.end(), f" {unit}" + (" and" if m["and"] else "")))
    return sorted(edits)


def _compose(first: Rewritten, second: Rewritten) -> Rewritten:
    """`second` (a rewrite of `first.text`) with its map pointing into `first`'s original."""
    return Rewritten(second.text, tuple(first.origin[k] for k in second.origin))


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
        origin.extend(
            end - 1 if k == len(new) - 1 else min(start + k, end - 1) for k in range(len(new))
        )
        pos = end
    out.append(text[pos:])
    origin.extend(range(pos, len(text)))
    origin.append(len(text))
    return Rewritten("".join(out), tuple(origin))
