"""The policy editor's global settings form, and where its fields live in the document.

Forms only shape input; `PolicyDocument` (plus `engine/policy_checks.py` when
publishing) is the single validator, and its errors, with their field paths, are
put back onto the field they concern. `GlobalSettingsForm.PATHS` is the one table
from a field to its place in the document: loading, saving and naming errors all
read it, so a setting cannot be shown but not saved, or saved but not named.
"""

from __future__ import annotations

from typing import Any

from django import forms

from engine import MODES as MODE_REGISTRY
from engine import QUERY_TYPES, PolicyDocument

from .decision_form import DecisionForm, DecisionFormSet
from .fields import (
    MODES,
    MODES_AUTO,
    SEARCH_SOURCES,
    integer,
    keep_order,
    lines,
    number,
    text,
)
from .tool_forms import ImportConfirmForm, PolicyTestForm, YamlImportForm

__all__ = [
    "DecisionForm",
    "DecisionFormSet",
    "GlobalSettingsForm",
    "ImportConfirmForm",
    "PolicyTestForm",
    "YamlImportForm",
]

MODEL_HELP = "provider/model, e.g. openai/gpt-4o-mini or anthropic/claude-3-5-haiku-20241022"

# How a form value becomes a document value: as is, one item per line, empty text as
# "not set" (None), or ticked boxes kept in their stored order.
VALUE, LINES, OPTIONAL, CHOICES = "value", "lines", "optional", "choices"


def _get(document: dict, path: tuple[str, ...]) -> Any:
    found: Any = document
    for key in path:
        found = found.get(key) if isinstance(found, dict) else None
    return found


class GlobalSettingsForm(forms.Form):
    # The policy version the form was loaded from: a save from a stale tab is refused.
    version = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)

    enabled = forms.BooleanField(
        required=False, label="Verify answers", help_text="Off: answers pass unverified."
    )
    require_context = forms.BooleanField(
        required=False,
        label="Require a context",
        help_text="Gateway: refuse chat requests that carry no context to verify against.",
    )
    on_unverified = forms.ChoiceField(
        choices=[
            ("pass_with_note", "Pass the answer with the note below"),
            ("refuse", "Refuse the answer (503)"),
        ],
        label="When verification is late",
        help_text="Gateway: what a reply does when its verdict is not ready in time.",
    )
    unverified_note = forms.CharField(
        max_length=500,
        label="Unverified note",
        help_text="Shown after an answer that went out unverified.",
    )
    default_mode = forms.ChoiceField(
        choices=MODES_AUTO,
        label="Default mode",
        help_text="How answers are checked when no decision says otherwise.",
    )
    threshold = number(
        "Hallucination threshold", "An answer scoring at or above this is flagged (0–1).", 0, 1
    )
    token_threshold = number(
        "Token threshold", "A token this likely to be unsupported is marked (0–1).", 0, 1
    )
    uncertain_below = number(
        "Uncertain below the threshold",
        "Scores this far under the threshold are 'uncertain' (0 turns it off).",
        0,
        1,
    )
    uncertain_above = number(
        "Uncertain above the threshold",
        "Scores this far over the threshold are 'uncertain' unless a contradiction decided them.",
        0,
        1,
    )
    on_uncertain = forms.ChoiceField(
        choices=[("pass", "pass, marked uncertain"), ("flag", "flag as a hallucination")],
        label="Uncertain answers",
        help_text="What happens to an answer whose score falls in the uncertainty band.",
    )
    evidence = forms.ChoiceField(
        choices=[
            ("all", "the whole context"),
            ("selected", "the sentences that align with the answer"),
        ],
        label="Context the detector reads",
        help_text="In a long context, only the sentences that can bear on the answer (faster), "
        "or everything.",
    )
    aggregation = forms.ChoiceField(
        label="Answer score from spans",
        help_text="How the scores of an answer's spans combine into its score.",
        choices=[
            ("calibrated", "calibrated (trained on labelled answers)"),
            ("span_max", "highest span"),
            ("noisy_or", "any span (noisy-OR)"),
        ],
    )
    cost_weight = number(
        "Cost weight",
        "How much the automatic mode choice weighs cost against accuracy (0–10).",
        0,
        10,
    )
    skip_query_types = forms.MultipleChoiceField(
        required=False,
        label="Do not verify",
        help_text="Questions of these kinds pass unverified.",
        choices=[(q, q.replace("_", " ")) for q in QUERY_TYPES],
        widget=forms.CheckboxSelectMultiple,
    )
    allowed_modes = forms.MultipleChoiceField(
        required=False,
        label="Allowed modes",
        help_text="The modes requests and decisions may use; at least one.",
        choices=MODES,
        widget=forms.CheckboxSelectMultiple,
    )
    warning_template = text(
        "Warning text",
        "Shown with a flagged answer; may use {score}, {spans} and {threshold}.",
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    standard_max_iterations = integer(
        "Refinement rounds", "At most this many rewrite-and-check rounds (1–10).", 1, 10
    )
    standard_convergence_threshold = number(
        "Stop below score", "Refining stops once the answer scores below this (0–1).", 0, 1
    )
    premium_verification_models = forms.CharField(
        required=False,
        label="Verifier models",
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=f"Models that cross-check the answer, one per line: {MODEL_HELP}.",
    )
    premium_judge_model = forms.CharField(
        required=False,
        label="Judge model",
        widget=forms.TextInput(attrs={"list": "usable-models"}),
        help_text="Settles disagreements between verifiers. Empty: your default model.",
    )
    premium_max_iterations = integer(
        "Refinement rounds", "At most this many cross-checked rewrites (1–5).", 1, 5
    )
    premium_require_consensus = forms.BooleanField(required=False, label="All verifiers must agree")
    budget_per_request_usd = number(
        "Limit per request (USD)", "Empty: no limit.", 0, required=False
    )
    budget_monthly_usd = number("Monthly limit (USD)", "Empty: no limit.", 0, required=False)
    cascade_enabled = forms.BooleanField(
        required=False,
        label="Ask a judge about uncertain spans",
        help_text="Spans whose confidence lies between the two bounds go to an LLM judge.",
    )
    cascade_low = number("Lower confidence bound", "From this confidence (0–1).", 0, 1)
    cascade_high = number("Upper confidence bound", "Up to, not including, this (0–1).", 0, 1)
    cascade_judge_model = forms.CharField(
        required=False,
        label="Judge model",
        widget=forms.TextInput(attrs={"list": "usable-models"}),
        help_text=f"Empty: your default model. {MODEL_HELP}.",
    )
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
    fact_check_max_queries = integer(
        "Searches per answer", "Claims searched per answer, all sources together (1–50).", 1, 50
    )
    fact_check_verify_threshold = number(
        "Threshold against retrieved evidence",
        "Empty: the hallucination threshold.",
        0,
        1,
        required=False,
    )

    #: form field -> (path in the document, how the value is shaped)
    PATHS: dict[str, tuple[tuple[str, ...], str]] = {
        "enabled": (("enabled",), VALUE),
        "require_context": (("require_context",), VALUE),
        "on_unverified": (("on_unverified",), VALUE),
        "unverified_note": (("unverified_note",), VALUE),
        "default_mode": (("default_mode",), VALUE),
        "threshold": (("threshold",), VALUE),
        "token_threshold": (("token_threshold",), VALUE),
        "uncertain_below": (("uncertain_below",), VALUE),
        "uncertain_above": (("uncertain_above",), VALUE),
        "on_uncertain": (("on_uncertain",), VALUE),
        "evidence": (("evidence",), VALUE),
        "aggregation": (("aggregation",), VALUE),
        "cost_weight": (("cost_weight",), VALUE),
        "skip_query_types": (("skip_query_types",), CHOICES),
        "allowed_modes": (("allowed_modes",), CHOICES),
        "warning_template": (("warning_template",), VALUE),
        "standard_max_iterations": (("standard", "max_iterations"), VALUE),
        "standard_convergence_threshold": (("standard", "convergence_threshold"), VALUE),
        "premium_verification_models": (("premium", "verification_models"), LINES),
        "premium_judge_model": (("premium", "judge_model"), OPTIONAL),
        "premium_max_iterations": (("premium", "max_iterations"), VALUE),
        "premium_require_consensus": (("premium", "require_consensus"), VALUE),
        "budget_per_request_usd": (("budgets", "per_request_usd"), VALUE),
        "budget_monthly_usd": (("budgets", "monthly_usd"), VALUE),
        "cascade_enabled": (("cascade", "enabled"), VALUE),
        "cascade_low": (("cascade", "low"), VALUE),
        "cascade_high": (("cascade", "high"), VALUE),
        "cascade_judge_model": (("cascade", "judge_model"), OPTIONAL),
        "fact_check_search_sources": (("fact_check", "search_sources"), CHOICES),
        "fact_check_knowledge_base": (("fact_check", "knowledge_base"), OPTIONAL),
        "fact_check_max_queries": (("fact_check", "max_queries"), VALUE),
        "fact_check_verify_threshold": (("fact_check", "verify_threshold"), VALUE),
    }

    def mode_sections(self) -> list[tuple[str, list[forms.BoundField]]]:
        """The editor's fieldset per mode with settings (the policy section named after the
        mode), in the registry's order: a new mode's settings show up with their fields in
        `PATHS`, with no template change."""
        sections = []
        for name, spec in MODE_REGISTRY.items():
            fields = [self[field] for field, (path, _) in self.PATHS.items() if path[0] == name]
            if fields:
                legend = f"{spec.label} mode" + (f" ({spec.gist})" if spec.gist else "")
                sections.append((legend, fields))
        return sections

    @classmethod
    def initial_from(cls, doc: PolicyDocument, version: int = 0) -> dict[str, Any]:
        dumped = doc.model_dump()
        initial: dict[str, Any] = {"version": version}
        for name, (path, shape) in cls.PATHS.items():
            value = _get(dumped, path)
            if shape == LINES:
                value = "\n".join(value or [])
            elif shape == OPTIONAL:
                value = value or ""
            initial[name] = value
        return initial

    def to_document(self, before: dict[str, Any]) -> dict[str, Any]:
        """`before` (a dumped document) with every valid field of this form written in."""
        document = {k: dict(v) if isinstance(v, dict) else v for k, v in before.items()}
        for name, (path, shape) in self.PATHS.items():
            if name not in self.cleaned_data:  # a field with an error: its message is shown
                continue
            value = self.cleaned_data[name]
            if shape == LINES:
                value = lines(value)
            elif shape == OPTIONAL:
                value = value.strip() or None
            elif shape == CHOICES:
                value = keep_order(value, _get(before, path))
            target = document
            for key in path[:-1]:
                target = target.setdefault(key, {})
            target[path[-1]] = value
        return document

    @classmethod
    def field_for(cls, loc: tuple) -> str | None:
        """The form field a pydantic error path names, if any."""
        for name, (path, _shape) in cls.PATHS.items():
            if tuple(loc[: len(path)]) == path:
                return name
        return None
