"""Small formatting filters for the dashboard templates."""

from __future__ import annotations

from decimal import Decimal

from django import template

from engine import BASE_MODE, MODES, change_step, rewrites_answer, risk_level

register = template.Library()


@register.filter
def pct(value, digits: int = 0) -> str:
    """0.423 -> '42%'; None -> '—'."""
    if value is None or value == "":
        return "—"
    return f"{float(value) * 100:.{int(digits)}f}%"


@register.filter
def usd(value, digits: int = 4) -> str:
    if value is None or value == "":
        return "—"
    amount = Decimal(str(value))
    return f"${amount:,.{int(digits)}f}"


@register.filter
def money(value) -> str:
    """US dollars with thousands separators and 2 decimals; more (up to 8) only below a cent.

    1234.5 -> '$1,234.50', 0 -> '$0.00', 0.00105 -> '$0.00105', -2 -> '-$2.00'. The
    charts' `money()` in static/dashboard/charts.js follows the same rule.
    """
    if value is None or value == "":
        return "—"
    amount = Decimal(str(value))
    sign = "-" if amount < 0 else ""
    amount = abs(amount)
    if amount == 0 or amount >= Decimal("0.01"):
        return f"{sign}${amount:,.2f}"
    return f"{sign}${amount:.8f}".rstrip("0")


@register.filter
def thousands(value) -> str:
    """An integer with thousands separators: 1234567 -> '1,234,567'; None -> '—'."""
    if value is None or value == "":
        return "—"
    return f"{int(value):,}"


@register.filter
def score_level(value) -> str:
    """CSS modifier for a score: the engine's risk level (low / moderate / high), or none."""
    if value is None:
        return "none"
    return risk_level(float(value))


@register.filter
def ms(value) -> str:
    if value is None or value == "":
        return "—"
    value = float(value)
    return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.0f} ms"


@register.filter
def width(value) -> str:
    """A 0..1 fraction as a CSS percentage, clamped."""
    try:
        return f"{max(0.0, min(1.0, float(value))) * 100:.1f}%"
    except (TypeError, ValueError):
        return "0%"


@register.filter
def diff_class(line: str) -> str:
    if line.startswith(("--- ", "+++ ")):  # the names of the two sides
        return "hunk"
    return {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "ctx")


@register.simple_tag(takes_context=True)
def page_url(context, number) -> str:
    query = context.get("filter_query", "")
    return f"?{query}&page={number}" if query else f"?page={number}"


# Mode names and properties come from the registry (`engine/modes.py`), never from literals
# in templates: a new mode shows up with its own label and behaviour.


@register.filter
def mode_label(name) -> str:
    """A mode's label ("Lightweight"); an unregistered name as it is."""
    spec = MODES.get(name or "")
    return spec.label if spec is not None else str(name or "")


@register.filter
def mode_rewrites(name) -> bool:
    """False for a mode that only adds a warning to the answer."""
    return rewrites_answer(name or "")


@register.filter
def mode_judges(name) -> bool:
    """True for a mode where other models answer and a judge decides."""
    return change_step(name or "") == "judge"


@register.simple_tag
def judge_modes() -> str:
    """The modes that ask other models and a judge, by name ("premium")."""
    return " or ".join(name for name, spec in MODES.items() if spec.change_step == "judge")


@register.simple_tag
def base_mode() -> str:
    """The mode that needs no LLM ("lightweight")."""
    return BASE_MODE
