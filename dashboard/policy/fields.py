"""Field builders and value shapes shared by the policy editor's forms."""

from __future__ import annotations

from collections.abc import Iterable

from django import forms

from engine import AUTO, MODE_NAMES

MODES = [(name, name) for name in MODE_NAMES]
MODES_AUTO = [*MODES, (AUTO, "auto (learn the best mode per query type)")]
CONDITION_TYPES = ("query_type", "domain", "keyword")
SEARCH_SOURCES = [("knowledge_base", "your knowledge base"), ("web", "web search")]


def number(
    label: str,
    help_text: str,
    min_value: float,
    max_value: float | None = None,
    required: bool = True,
) -> forms.FloatField:
    # The range is a widget hint only: `PolicyDocument` owns the bounds, so a value out
    # of range gets the same message from the editor, the YAML import and the API.
    attrs: dict[str, float | str] = {"min": min_value, "step": "any"}
    if max_value is not None:
        attrs["max"] = max_value
    return forms.FloatField(
        label=label,
        help_text=help_text,
        required=required,
        widget=forms.NumberInput(attrs=attrs),
    )


def integer(
    label: str, help_text: str, min_value: int, max_value: int, required: bool = True
) -> forms.IntegerField:
    return forms.IntegerField(
        label=label,
        help_text=help_text,
        required=required,
        widget=forms.NumberInput(attrs={"min": min_value, "max": max_value}),
    )


def text(label: str, help_text: str = "", **kwargs) -> forms.CharField:
    """A text field that keeps what was typed (no stripping), with browser CRLF made LF."""
    return _KeptCharField(label=label, help_text=help_text, strip=False, **kwargs)


class _KeptCharField(forms.CharField):
    def to_python(self, value):
        value = super().to_python(value)
        return value.replace("\r\n", "\n") if isinstance(value, str) else value


def lines(value: str) -> list[str]:
    """Items typed one per line (or comma separated), blanks dropped."""
    return [part.strip() for part in value.replace(",", "\n").splitlines() if part.strip()]


def keep_order(selected: Iterable[str], before: Iterable[str] | None) -> list[str]:
    """Ticked boxes in the order the stored list had them, new ones after.

    A browser submits boxes in page order; without this, saving an untouched form
    would reorder a list such as `allowed_modes` and record a change nobody made.
    """
    chosen = list(dict.fromkeys(selected))
    first = [value for value in (before or []) if value in chosen]
    return list(dict.fromkeys([*first, *chosen]))
