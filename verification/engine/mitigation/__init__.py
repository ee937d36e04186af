"""Mitigation modes (docs/policies.md "Policies and mitigation modes"): lightweight warning, self-refine, cross-model premium,
no-LLM repair and the budgeted detection cascade. The registry of modes is
`engine/modes.py`; each mode's runner lives in its module here.

Every mode takes the re-detection function as a parameter (`Redetect`), so the
engine stays free of Django and Celery and the modes can be tested with a fake
detector. The names below are loaded on first use (PEP 562): importing one
submodule (`lightweight`, `repair`, `result`) must not import litellm (a few
seconds, and a dependency the detect worker and the web process do not need).
The functions named like their module (`cascade`, `lightweight`, `refine`,
`repair`) are imported from that module: a package attribute of that name is the
submodule once it has been imported.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_HOMES = {
    "embedding_similarity": "agreement",
    "lexical_similarity": "agreement",
    "CascadeResult": "cascade",
    "CascadeSettings": "cascade",
    "SpanDecision": "cascade",
    "ModeRequest": "dispatch",
    "Models": "dispatch",
    "mitigate": "dispatch",
    "passthrough": "dispatch",
    "headers": "lightweight",
    "warning_text": "lightweight",
    "Budget": "llm",
    "BudgetExceeded": "llm_types",
    "LLMCall": "llm_types",
    "LLMClient": "llm",
    "LLMError": "llm_types",
    "LLMReply": "llm_types",
    "LLMRequest": "llm_types",
    "ModelConfig": "llm_types",
    "Price": "llm_types",
    "RetryPolicy": "llm_types",
    "PremiumSettings": "premium",
    "cross_check": "premium",
    "redetector": "redetect",
    "RefineSettings": "refine",
    "RepairSettings": "repair",
    "Change": "result",
    "Iteration": "result",
    "MitigationResult": "result",
    "Redetect": "result",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value
