"""Mitigation modes (DESIGN §2.3): lightweight warning, self-refine, cross-model premium,
no-LLM repair and the budgeted detection cascade.

Every mode takes the re-detection function as a parameter (`Redetect`), so the
engine stays free of Django and Celery and the modes can be tested with a fake
detector. Importing this package imports litellm (a few seconds), which is why
`verification.engine` does not import it eagerly.
"""

from .agreement import embedding_similarity, lexical_similarity
from .cascade import CascadeResult, CascadeSettings, SpanDecision, cascade
from .dispatch import Models, mitigate, passthrough
from .lightweight import headers, lightweight, warning_text
from .llm import (
    Budget,
    BudgetExceeded,
    LLMCall,
    LLMClient,
    LLMError,
    LLMReply,
    LLMRequest,
    ModelConfig,
    Price,
    RetryPolicy,
)
from .premium import PremiumSettings, cross_check
from .redetect import redetector
from .refine import RefineSettings, refine
from .repair import RepairSettings, repair
from .result import Change, Iteration, MitigationResult, Redetect

__all__ = [
    "Budget",
    "BudgetExceeded",
    "CascadeResult",
    "CascadeSettings",
    "Change",
    "Iteration",
    "LLMCall",
    "LLMClient",
    "LLMError",
    "LLMReply",
    "LLMRequest",
    "MitigationResult",
    "Models",
    "ModelConfig",
    "PremiumSettings",
    "Price",
    "Redetect",
    "RefineSettings",
    "RepairSettings",
    "RetryPolicy",
    "SpanDecision",
    "cascade",
    "cross_check",
    "embedding_similarity",
    "headers",
    "lexical_similarity",
    "lightweight",
    "mitigate",
    "passthrough",
    "redetector",
    "refine",
    "repair",
    "warning_text",
]
