"""One decision of the policy editor: its rules and its verification settings.

The form edits the decision's hallucination plugin (the only plugin type); a
decision stored without a plugin, left at the defaults, is saved without one.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.forms import formset_factory

from engine import Decision, HallucinationConfig

from .fields import (
    CONDITION_TYPES,
    MODES_AUTO,
    SEARCH_SOURCES,
    integer,
    keep_order,
    lines,
    number,
)

#: plugin configuration key -> form field (same names, listed for the error paths)
CONFIG_FIELDS = (
    "enabled",
    "mode",
    "threshold",
    "max_iterations",
    "require_disclaimer",
    "search_sources",
    "max_queries",
    "verify_threshold",
)


class DecisionForm(forms.Form):
    name = forms.CharField(max_length=100, label="Name")
    priority = forms.IntegerField(
        initial=0,
        label="Priority",
        help_text="Of the decisions whose rules match, the highest priority wins.",
    )
    operator = forms.ChoiceField(
        label="Applies when",
        choices=[("OR", "any condition matches"), ("AND", "all conditions match")],
        initial="OR",
    )
    conditions = forms.CharField(
        required=False,
        label="Conditions",
        widget=forms.Textarea(
            attrs={"rows": 3, "placeholder": "query_type: factual_qa\nkeyword: refund"}
        ),
        help_text="One per line: query_type, domain or keyword, a colon, the value.",
    )
    model_refs = forms.CharField(
        required=False,
        label="Models",
        help_text="Models for requests this decision handles (provider/model), comma separated.",
    )
    enabled = forms.BooleanField(required=False, initial=True, label="Verify")
    mode = forms.ChoiceField(
        required=False, label="Mode", choices=[("", "policy default")] + MODES_AUTO
    )
    threshold = number(
        "Hallucination threshold", "Empty: the policy's threshold.", 0, 1, required=False
    )
    max_iterations = integer(
        "Refinement rounds", "Empty: the policy's setting.", 1, 10, required=False
    )
    require_disclaimer = forms.BooleanField(required=False, label="Add a disclaimer")
    search_sources = forms.MultipleChoiceField(
        required=False,
        label="Search sources",
        choices=SEARCH_SOURCES,
        widget=forms.CheckboxSelectMultiple,
        help_text="None ticked: the policy's search sources.",
    )
    no_search = forms.BooleanField(
        required=False,
        label="Never search",
        help_text="Answers without a context are not fact-checked under this decision.",
    )
    max_queries = integer(
        "Searches per answer", "Empty: the policy's setting.", 1, 50, required=False
    )
    verify_threshold = number(
        "Threshold against retrieved evidence",
        "Empty: the policy's setting.",
        0,
        1,
        required=False,
    )

    def clean_conditions(self) -> list[dict[str, str]]:
        out = []
        for number_, line in enumerate(self.cleaned_data["conditions"].splitlines(), start=1):
            if not line.strip():
                continue
            kind, sep, value = line.partition(":")
            kind, value = kind.strip(), value.strip()
            if not sep or kind not in CONDITION_TYPES or not value:
                raise forms.ValidationError(
                    f"Line {number_}: write '<type>: <value>' with type one of "
                    f"{', '.join(CONDITION_TYPES)}."
                )
            out.append({"type": kind, "name": value})
        return out

    @staticmethod
    def initial_from(decision: Decision) -> dict[str, Any]:
        plugin = next((p for p in decision.plugins if p.type == "hallucination"), None)
        conf = plugin.configuration if plugin else HallucinationConfig()
        return {
            "name": decision.name,
            "priority": decision.priority,
            "operator": decision.rules.operator,
            "conditions": "\n".join(f"{c.type}: {c.name}" for c in decision.rules.conditions),
            "model_refs": ", ".join(decision.modelRefs),
            "enabled": conf.enabled,
            "mode": conf.mode or "",
            "threshold": conf.threshold,
            "max_iterations": conf.max_iterations,
            "require_disclaimer": conf.require_disclaimer,
            "search_sources": conf.search_sources or [],
            "no_search": conf.search_sources == [],
            "max_queries": conf.max_queries,
            "verify_threshold": conf.verify_threshold,
            # not a field: whether the stored decision had a plugin at all
            "_plugins": len(decision.plugins),
        }

    def _configuration(self) -> dict[str, Any]:
        d = self.cleaned_data
        conf: dict[str, Any] = {
            key: d[key] for key in CONFIG_FIELDS if key in d and key != "search_sources"
        }
        if "mode" in conf:
            conf["mode"] = conf["mode"] or None
        if "search_sources" in d:
            sources = keep_order(d["search_sources"], self.initial.get("search_sources"))
            conf["search_sources"] = sources or ([] if d.get("no_search") else None)
        return conf

    def to_decision(self) -> dict[str, Any]:
        """The decision as a document dict; fields with a form error are left out."""
        d = self.cleaned_data
        out: dict[str, Any] = {"name": d.get("name", "")}
        if "priority" in d:
            out["priority"] = d["priority"]
        out["rules"] = {"operator": d.get("operator") or "OR"}
        if "conditions" in d:
            out["rules"]["conditions"] = d["conditions"]
        out["modelRefs"] = lines(d.get("model_refs", ""))
        conf = self._configuration()
        defaults = HallucinationConfig().model_dump()
        if self.initial.get("_plugins", 1) or {**defaults, **conf} != defaults:
            out["plugins"] = [{"type": "hallucination", "configuration": conf}]
        else:
            out["plugins"] = []
        return out


DecisionFormSet = formset_factory(DecisionForm, extra=1, can_delete=True, max_num=50)
