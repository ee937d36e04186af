"""A policy with a non-default value in every field of the schema, and a check that it is so.

Used by the editor's round-trip tests (unit and browser): if the schema gains a
field, `unset_fields` names it until FULL sets it, so the round trip keeps
covering every field.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from engine.policy import PolicyDocument

FULL: dict[str, Any] = {
    "enabled": False,
    "default_mode": "standard",
    "threshold": 0.42,
    "token_threshold": 0.61,
    "uncertain_below": 0.07,
    "uncertain_above": 0.21,
    "on_uncertain": "flag",
    "evidence": "selected",
    "aggregation": "noisy_or",
    # not in the order the boxes are shown: saving must not reorder
    "skip_query_types": ["opinion", "creative"],
    "warning_template": "Careful ({score:.1f} ≥ {threshold}):\n{spans}",
    "standard": {"max_iterations": 7, "convergence_threshold": 0.15},
    "premium": {
        "verification_models": ["anthropic/claude-3-5-haiku-20241022", "openai/gpt-4o-mini"],
        "judge_model": "openai/gpt-4o",
        "max_iterations": 4,
        "require_consensus": True,
    },
    "budgets": {"per_request_usd": 0.25, "monthly_usd": 1234.5},
    "cascade": {"enabled": True, "low": 0.2, "high": 0.9, "judge_model": "openai/gpt-4o-mini"},
    "fact_check": {
        "search_sources": ["web", "knowledge_base"],
        "knowledge_base": "Handbook",
        "max_queries": 9,
        "verify_threshold": 0.33,
    },
    "cost_weight": 2.5,
    "allowed_modes": ["premium", "standard"],
    "require_context": True,
    "on_unverified": "refuse",
    "unverified_note": "(Not verified in time.)",
    "calibration": {
        "method": "platt",
        "x": [0.1, 0.5, 0.9],
        "y": [0.05, 0.4, 0.95],
        "dataset": "support",
        "dataset_version": 2,
        "labels": 240,
    },
    "calibration_by_query_type": {
        "summarization": {
            "method": "isotonic",
            "threshold": 0.61,
            "x": [0.0, 0.4, 1.0],
            "y": [0.1, 0.5, 0.9],
            "dataset": "support",
            "dataset_version": 2,
            "labels": 120,
        },
        "factual_qa": {
            "method": "threshold",
            "threshold": 0.27,
            "dataset": "support",
            "dataset_version": 2,
            "labels": 110,
        },
    },
    "decisions": [
        {
            "name": "medical",
            "priority": 10,
            "rules": {
                "operator": "AND",
                "conditions": [
                    {"type": "domain", "name": "health"},
                    {"type": "keyword", "name": "dosage"},
                    {"type": "query_type", "name": "factual_qa"},
                ],
            },
            "modelRefs": ["openai/gpt-4o", "anthropic/claude-3-5-haiku-20241022"],
            "plugins": [
                {
                    "type": "hallucination",
                    "configuration": {
                        "enabled": False,
                        "mode": "premium",
                        "threshold": 0.3,
                        "max_iterations": 2,
                        "require_disclaimer": True,
                        "search_sources": ["web"],
                        "max_queries": 3,
                        "verify_threshold": 0.7,
                    },
                }
            ],
        },
        {
            # no plugin at all: saved without one
            "name": "quiet",
            "priority": -5,
            "rules": {"conditions": [{"type": "keyword", "name": "hush"}]},
        },
        {
            # an explicit empty list of sources ("never search") is not "inherit"
            "name": "offline",
            "rules": {"conditions": [{"type": "domain", "name": "intranet"}]},
            "plugins": [
                {"type": "hallucination", "configuration": {"mode": "auto", "search_sources": []}}
            ],
        },
    ],
}


def _walk(instance: BaseModel, prefix: str, seen: dict[str, bool]) -> None:
    for name in type(instance).model_fields:
        path = f"{prefix}{name}"
        value = getattr(instance, name)
        default = type(instance).model_fields[name].get_default(call_default_factory=True)
        differs = True if default is PydanticUndefined else value != default
        seen[path] = seen.get(path, False) or differs
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, BaseModel):
                _walk(item, f"{path}[].", seen)


def unset_fields(document: PolicyDocument) -> list[str]:
    """Schema fields (lists flattened as `[]`) that no item of `document` sets off default."""
    seen: dict[str, bool] = {}
    _walk(document, "", seen)
    return sorted(path for path, differs in seen.items() if not differs)
