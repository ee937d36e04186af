"""Closed word classes: words that name one of a few values of the same attribute
(a colour, the weather, a weekday, a frequency ...). An answer that uses one member
where the context uses another ("blinks green" against "blinks orange", "half pay"
against "full pay") states a different value, as a wrong number does.

`LOOSE` classes are specific enough to compare anywhere in a short context; the
others (common words with other senses: "full", "spring", "second") only inside a
clause that otherwise restates the context's (see `typed_checks`).
"""

from __future__ import annotations

LOOSE: dict[str, frozenset[str]] = {
    "colour": frozenset(
        [
            "red",
            "orange",
            "yellow",
            "green",
            "blue",
            "purple",
            "violet",
            "pink",
            "brown",
            "grey",
            "gray",
            "black",
            "white",
            "amber",
            "turquoise",
            "beige",
        ]
    ),
    "weather": frozenset(
        [
            "sunny",
            "cloudy",
            "overcast",
            "rainy",
            "snowy",
            "foggy",
            "stormy",
            "showery",
            "hazy",
            "drizzly",
            "thunderstorms",
            "showers",
            "snow",
            "rain",
            "fog",
            "sleet",
            "hail",
        ]
    ),
    "weekday": frozenset(
        ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    ),
    "frequency": frozenset(
        [
            "hourly",
            "daily",
            "nightly",
            "weekly",
            "fortnightly",
            "monthly",
            "quarterly",
            "yearly",
            "annually",
            "biweekly",
        ]
    ),
}
CLAUSE_ONLY: dict[str, frozenset[str]] = {
    "extent": frozenset(["full", "half", "partial", "double", "triple", "quarter"]),
    "season": frozenset(["spring", "summer", "autumn", "winter"]),
    "ordinal": frozenset(
        ["second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]
    ),
    "material": frozenset(
        [
            "iron",
            "steel",
            "wood",
            "wooden",
            "concrete",
            "glass",
            "plastic",
            "aluminium",
            "aluminum",
            "copper",
            "bronze",
            "brick",
            "stone",
            "marble",
        ]
    ),
    "transport": frozenset(
        ["bus", "train", "tram", "car", "taxi", "ferry", "plane", "flight", "bicycle", "subway"]
    ),
    "gender": frozenset(["male", "female"]),
}
_ALL = LOOSE | CLAUSE_ONLY
_CLASS_OF = {word: name for name, members in _ALL.items() for word in members}


def word_class(word: str) -> str | None:
    """The class of `word` (lower-case), or None."""
    return _CLASS_OF.get(word.lower())


def members(name: str) -> frozenset[str]:
    return _ALL[name]


def is_loose(name: str) -> bool:
    return name in LOOSE
