"""Human names for places in a policy document: `plugins.0.configuration.threshold` of
the first decision reads "Decision 1 → Hallucination threshold".

Labels come from the editor's form fields, so a field is named the same beside its
input and in the list of problems, and `dump` paths (YAML import) read the same way.
"""

from __future__ import annotations

from engine import MODES, PolicyDocument

from .decision_form import CONFIG_FIELDS, DecisionForm
from .forms import GlobalSettingsForm

#: A mode's settings are the policy section named after it (`standard`, `premium`).
SECTIONS = {
    **{
        name: f"{spec.label} mode"
        for name, spec in MODES.items()
        if name in PolicyDocument.model_fields
    },
    "budgets": "Budgets",
    "cascade": "Judge for uncertain spans",
    "fact_check": "Fact-checking without a context",
}


def _label(form_class, field: str) -> str:
    return str(form_class.base_fields[field].label)


def decision_field(sub: tuple) -> str | None:
    """The decision form field a path inside one decision names (`rules.conditions` -> conditions)."""
    if not sub:
        return None
    head = sub[0]
    if head in ("name", "priority"):
        return str(head)
    if head == "rules":
        return "operator" if sub[1:2] == ("operator",) else "conditions"
    if head == "modelRefs":
        return "model_refs"
    if head == "plugins" and len(sub) >= 4 and sub[2] == "configuration":
        key = str(sub[3])
        return key if key in CONFIG_FIELDS else None
    return None


def global_label(loc: tuple) -> str:
    name = GlobalSettingsForm.field_for(loc)
    if name is None:
        return " → ".join(SECTIONS.get(str(p), str(p).replace("_", " ")) for p in loc)
    label = _label(GlobalSettingsForm, name)
    section = SECTIONS.get(str(loc[0])) if len(loc) > 1 else None
    return f"{section} → {label}" if section else label


def human_loc(loc: tuple, decision_names: list[str] | None = None) -> str:
    """A pydantic error path as the editor names it; "Policy" for the whole document."""
    if not loc:
        return "Policy"
    if loc[0] == "decisions":
        if len(loc) < 2 or not isinstance(loc[1], int):
            return "Decisions"
        number = loc[1] + 1
        names = decision_names or []
        name = names[loc[1]] if loc[1] < len(names) and names[loc[1]] else ""
        head = f"Decision {number}" + (f" ({name})" if name else "")
        field = decision_field(tuple(loc[2:]))
        if field is None:
            return head if len(loc) == 2 else f"{head} → {'.'.join(map(str, loc[2:]))}"
        return f"{head} → {_label(DecisionForm, field)}"
    return global_label(tuple(loc))
