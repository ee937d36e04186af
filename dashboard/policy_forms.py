"""The policy editor's forms: global settings and one form per decision.

Forms only shape input; `PolicyDocument` is the single validator, and its
errors (with their field paths) are put back onto the field they concern.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.forms import formset_factory

from verification.engine.modes import AUTO, MODE_NAMES
from verification.engine.policy import PolicyDocument
from verification.engine.types import QUERY_TYPES

MODES = [(name, name) for name in MODE_NAMES]
MODES_AUTO = [*MODES, (AUTO, "auto (Thompson sampling)")]
CONDITION_TYPES = ("query_type", "domain", "keyword")
SEARCH_SOURCES = [("knowledge_base", "your knowledge base"), ("web", "web search")]


def _num(min_value: float, max_value: float | None = None, step: str = "any", required=True):
    attrs = {"min": min_value, "step": step}
    if max_value is not None:
        attrs["max"] = max_value
    return forms.FloatField(required=required, widget=forms.NumberInput(attrs=attrs))


def _int(min_value: int, max_value: int, required=True):
    return forms.IntegerField(
        required=required, widget=forms.NumberInput(attrs={"min": min_value, "max": max_value})
    )


def _lines(value: str) -> list[str]:
    return [part.strip() for part in value.replace(",", "\n").splitlines() if part.strip()]


class GlobalSettingsForm(forms.Form):
    enabled = forms.BooleanField(required=False, help_text="Verify answers at all.")
    require_context = forms.BooleanField(
        required=False,
        help_text="Gateway: refuse chat requests that carry no context to verify against.",
    )
    default_mode = forms.ChoiceField(choices=MODES_AUTO)
    threshold = _num(0, 1)
    token_threshold = _num(0, 1)
    aggregation = forms.ChoiceField(
        choices=[
            ("calibrated", "calibrated (response head)"),
            ("span_max", "span max"),
            ("noisy_or", "Noisy-OR"),
        ]
    )
    skip_query_types = forms.MultipleChoiceField(
        required=False,
        choices=[(q, q.replace("_", " ")) for q in QUERY_TYPES],
        widget=forms.CheckboxSelectMultiple,
    )
    allowed_modes = forms.MultipleChoiceField(
        required=False, choices=MODES, widget=forms.CheckboxSelectMultiple
    )
    warning_template = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="May use {score}, {spans} and {threshold}.",
    )
    cost_weight = _num(0, 10)
    standard_max_iterations = _int(1, 10)
    standard_convergence_threshold = _num(0, 1)
    premium_verification_models = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="One model per line, e.g. anthropic/claude-3-5-haiku.",
    )
    premium_judge_model = forms.CharField(required=False)
    premium_max_iterations = _int(1, 5)
    premium_require_consensus = forms.BooleanField(required=False)
    budget_per_request_usd = _num(0, required=False)
    budget_monthly_usd = _num(0, required=False)
    fact_check_search_sources = forms.MultipleChoiceField(
        label="Search sources",
        required=False,
        choices=SEARCH_SOURCES,
        widget=forms.CheckboxSelectMultiple,
        help_text="Where to look for evidence when an answer comes without a context.",
    )
    fact_check_knowledge_base = forms.CharField(
        label="Default knowledge base",
        required=False,
        max_length=40,
        help_text="Its id (kb_…) or name; used when a request names none.",
    )
    fact_check_max_queries = _int(1, 50)
    fact_check_max_queries.label = "Searches per answer"
    fact_check_verify_threshold = _num(0, 1, required=False)
    fact_check_verify_threshold.label = "Threshold against retrieved evidence"
    fact_check_verify_threshold.help_text = "Empty: the policy threshold."

    FIELD_PATHS = {
        ("fact_check", "search_sources"): "fact_check_search_sources",
        ("fact_check", "knowledge_base"): "fact_check_knowledge_base",
        ("fact_check", "max_queries"): "fact_check_max_queries",
        ("fact_check", "verify_threshold"): "fact_check_verify_threshold",
        ("standard", "max_iterations"): "standard_max_iterations",
        ("standard", "convergence_threshold"): "standard_convergence_threshold",
        ("premium", "verification_models"): "premium_verification_models",
        ("premium", "judge_model"): "premium_judge_model",
        ("premium", "max_iterations"): "premium_max_iterations",
        ("premium", "require_consensus"): "premium_require_consensus",
        ("budgets", "per_request_usd"): "budget_per_request_usd",
        ("budgets", "monthly_usd"): "budget_monthly_usd",
    }

    @staticmethod
    def initial_from(doc: PolicyDocument) -> dict[str, Any]:
        return {
            "enabled": doc.enabled,
            "require_context": doc.require_context,
            "default_mode": doc.default_mode,
            "threshold": doc.threshold,
            "token_threshold": doc.token_threshold,
            "aggregation": doc.aggregation,
            "skip_query_types": doc.skip_query_types,
            "allowed_modes": doc.allowed_modes,
            "warning_template": doc.warning_template,
            "cost_weight": doc.cost_weight,
            "standard_max_iterations": doc.standard.max_iterations,
            "standard_convergence_threshold": doc.standard.convergence_threshold,
            "premium_verification_models": "\n".join(doc.premium.verification_models),
            "premium_judge_model": doc.premium.judge_model or "",
            "premium_max_iterations": doc.premium.max_iterations,
            "premium_require_consensus": doc.premium.require_consensus,
            "budget_per_request_usd": doc.budgets.per_request_usd,
            "budget_monthly_usd": doc.budgets.monthly_usd,
            "fact_check_search_sources": doc.fact_check.search_sources,
            "fact_check_knowledge_base": doc.fact_check.knowledge_base or "",
            "fact_check_max_queries": doc.fact_check.max_queries,
            "fact_check_verify_threshold": doc.fact_check.verify_threshold,
        }

    def to_document(self) -> dict[str, Any]:
        d = self.cleaned_data
        return {
            "enabled": d["enabled"],
            "require_context": d["require_context"],
            "default_mode": d["default_mode"],
            "threshold": d["threshold"],
            "token_threshold": d["token_threshold"],
            "aggregation": d["aggregation"],
            "skip_query_types": list(d["skip_query_types"]),
            "allowed_modes": list(d["allowed_modes"]),
            "warning_template": d["warning_template"],
            "cost_weight": d["cost_weight"],
            "standard": {
                "max_iterations": d["standard_max_iterations"],
                "convergence_threshold": d["standard_convergence_threshold"],
            },
            "premium": {
                "verification_models": _lines(d["premium_verification_models"]),
                "judge_model": d["premium_judge_model"].strip() or None,
                "max_iterations": d["premium_max_iterations"],
                "require_consensus": d["premium_require_consensus"],
            },
            "budgets": {
                "per_request_usd": d["budget_per_request_usd"],
                "monthly_usd": d["budget_monthly_usd"],
            },
            "fact_check": {
                "search_sources": list(d["fact_check_search_sources"]),
                "knowledge_base": d["fact_check_knowledge_base"].strip() or None,
                "max_queries": d["fact_check_max_queries"],
                "verify_threshold": d["fact_check_verify_threshold"],
            },
        }

    def field_for(self, loc: tuple) -> str | None:
        if len(loc) >= 2 and tuple(loc[:2]) in self.FIELD_PATHS:
            return self.FIELD_PATHS[tuple(loc[:2])]
        if loc and loc[0] in self.fields:
            return str(loc[0])
        return None


class DecisionForm(forms.Form):
    name = forms.CharField(max_length=100)
    priority = forms.IntegerField(initial=0)
    operator = forms.ChoiceField(
        choices=[("OR", "any condition (OR)"), ("AND", "all conditions (AND)")], initial="OR"
    )
    conditions = forms.CharField(
        required=False,
        widget=forms.Textarea(
            attrs={"rows": 3, "placeholder": "query_type: factual_qa\nkeyword: refund"}
        ),
        help_text="One per line: query_type, domain or keyword, a colon, the value.",
    )
    model_refs = forms.CharField(
        required=False, label="Models", help_text="modelRefs, comma separated."
    )
    enabled = forms.BooleanField(required=False, initial=True, label="Verify")
    mode = forms.ChoiceField(required=False, choices=[("", "policy default")] + MODES_AUTO)
    threshold = _num(0, 1, required=False)
    max_iterations = _int(1, 10, required=False)
    require_disclaimer = forms.BooleanField(required=False)
    search_sources = forms.MultipleChoiceField(
        required=False,
        choices=SEARCH_SOURCES,
        widget=forms.CheckboxSelectMultiple,
        help_text="None ticked: the global search sources.",
    )
    max_queries = _int(1, 50, required=False)
    verify_threshold = _num(0, 1, required=False)

    def clean_conditions(self) -> list[dict[str, str]]:
        out = []
        for number, line in enumerate(self.cleaned_data["conditions"].splitlines(), start=1):
            if not line.strip():
                continue
            kind, sep, value = line.partition(":")
            kind, value = kind.strip(), value.strip()
            if not sep or kind not in CONDITION_TYPES or not value:
                raise forms.ValidationError(
                    f"Line {number}: write '<type>: <value>' with type one of "
                    f"{', '.join(CONDITION_TYPES)}."
                )
            out.append({"type": kind, "name": value})
        return out

    @staticmethod
    def initial_from(decision) -> dict[str, Any]:
        plugin = next((p for p in decision.plugins if p.type == "hallucination"), None)
        conf = plugin.configuration if plugin else None
        return {
            "name": decision.name,
            "priority": decision.priority,
            "operator": decision.rules.operator,
            "conditions": "\n".join(f"{c.type}: {c.name}" for c in decision.rules.conditions),
            "model_refs": ", ".join(decision.modelRefs),
            "enabled": conf.enabled if conf else True,
            "mode": (conf.mode or "") if conf else "",
            "threshold": conf.threshold if conf else None,
            "max_iterations": conf.max_iterations if conf else None,
            "require_disclaimer": conf.require_disclaimer if conf else False,
            "search_sources": (conf.search_sources or []) if conf else [],
            "max_queries": conf.max_queries if conf else None,
            "verify_threshold": conf.verify_threshold if conf else None,
        }

    def to_decision(self) -> dict[str, Any]:
        d = self.cleaned_data
        return {
            "name": d["name"].strip(),
            "priority": d["priority"],
            "rules": {"operator": d["operator"], "conditions": d["conditions"]},
            "modelRefs": _lines(d["model_refs"]),
            "plugins": [
                {
                    "type": "hallucination",
                    "configuration": {
                        "enabled": d["enabled"],
                        "mode": d["mode"] or None,
                        "threshold": d["threshold"],
                        "max_iterations": d["max_iterations"],
                        "require_disclaimer": d["require_disclaimer"],
                        "search_sources": list(d["search_sources"]) or None,
                        "max_queries": d["max_queries"],
                        "verify_threshold": d["verify_threshold"],
                    },
                }
            ],
        }


DecisionFormSet = formset_factory(DecisionForm, extra=1, can_delete=True, max_num=50)


class YamlImportForm(forms.Form):
    yaml_text = forms.CharField(
        required=False,
        label="Paste YAML",
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false", "class": "mono"}),
    )
    yaml_file = forms.FileField(required=False, label="…or upload a .yaml file")

    def clean(self):
        data = super().clean()
        upload = data.get("yaml_file")
        if upload:
            if upload.size > 256 * 1024:
                raise forms.ValidationError("The file is larger than 256 KB.")
            try:
                data["yaml_text"] = upload.read().decode("utf-8")
            except UnicodeDecodeError as exc:
                raise forms.ValidationError("The file is not UTF-8 text.") from exc
        if not (data.get("yaml_text") or "").strip():
            raise forms.ValidationError("Paste a policy or choose a file.")
        return data


class PolicyTestForm(forms.Form):
    context = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text="Grounding passages; separate passages with a blank line.",
        max_length=100_000,
    )
    query = forms.CharField(required=False, widget=forms.TextInput(), max_length=5_000)
    response = forms.CharField(
        label="Answer to check", widget=forms.Textarea(attrs={"rows": 4}), max_length=20_000
    )
    domain = forms.CharField(
        required=False, max_length=100, help_text="As sent in the request's metadata.domain."
    )
    decision = forms.CharField(
        required=False, help_text="Force a decision by name (optional).", max_length=100
    )

    def passages(self) -> list[str]:
        text = self.cleaned_data["context"].replace("\r\n", "\n")
        return [p.strip() for p in text.split("\n\n") if p.strip()]
