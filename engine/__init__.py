"""The engine's public module: the one place Django apps, workers and benches import from.

TruthLens detection engine: pure Python, no Django or Celery (docs/architecture.md "The engine").

    from engine import DetectionConfig, DetectionInput, LexicalDetector, verify
    result = verify(DetectionInput.build(context, answer, query), DetectionConfig(), LexicalDetector())

Names whose modules import torch or litellm (a few seconds each) load on first use, so the web
process and a lexical-only worker never pay for them; the type checker reads them from the
`TYPE_CHECKING` block below. Import-linter checks that nothing outside the engine imports one of
its submodules directly.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .bandit import (
    PRIOR,
    Posterior,
    bernoulli_update,
)
from .bandit import (
    choose as choose_arm,
)
from .bandit import (
    mean as posterior_mean,
)
from .bandit import (
    reward as arm_reward,
)
from .bandit import (
    update as update_posterior,
)
from .claims import checkable_claims
from .detectors.base import Detector
from .detectors.ensemble import combine, shipped_ensemble
from .detectors.lexical import LexicalDetector
from .detectors.registry import load_detector
from .detectors.windows import sentence_bounds
from .evidence_selection import select_evidence
from .grounding import find_context
from .job_plan import JobPlan, Step, detection_config, resolve_request
from .mitigation.agreement import embedding_similarity, lexical_similarity
from .mitigation.lightweight import headers, lightweight, warning_text
from .mitigation.llm_types import (
    AddressRefused,
    BudgetExceeded,
    LLMCall,
    LLMError,
    LLMReply,
    LLMRequest,
    ModelConfig,
    Price,
    RetryPolicy,
)
from .mitigation.redetect import redetector
from .mitigation.repair import RepairSettings, repair
from .mitigation.request import Models, ModeRequest
from .mitigation.result import Change, Iteration, MitigationResult, Redetect
from .modes import (
    AUTO,
    BASE_MODE,
    MODE_NAMES,
    MODES,
    ModeSpec,
    change_step,
    mode_spec,
    rewrites_answer,
    runs_without_llm,
)
from .pipeline import DetectionConfig, verify, verify_batch, verify_groups
from .policy import (
    DEFAULT_SKIP_QUERY_TYPES,
    DEFAULT_THRESHOLD,
    DEFAULT_TOKEN_THRESHOLD,
    Calibration,
    Decision,
    HallucinationConfig,
    PolicyDocument,
    QueryTypeCalibration,
    Resolved,
)
from .policy_checks import Available, Problem, check_policy
from .query_types import (
    KnownTypes,
    QueryTypeClassifier,
    classify_query,
    default_classifier,
    load_examples,
    rule_scores,
)
from .scoring.citations import CitationPolicy, check_citations
from .scoring.spans import merge_spans, response_score, risk_level
from .search_controls import narrowed, search_errors
from .text.documents import marker_ids
from .text.embeddings import get_encoder
from .text.language import UNDETERMINED, answer_language, detect_language
from .text.messages import MessagesError, inputs_from_messages
from .text.sentences import split_sentences
from .text.words import is_content, tokenize
from .train.datagen import generate, is_dev, load_sources, training_sentences
from .train.perturb import perturb
from .types import (
    QUERY_TYPES,
    CitationReport,
    Coverage,
    DetectionInput,
    DetectionResult,
    Evidence,
    Span,
    TokenPrediction,
    TokenProb,
)

if TYPE_CHECKING:
    from .detectors.embedded import EmbeddedDetector, base_model_path
    from .detectors.transformer import (
        TransformerDetector,
        cpu_has_native_bf16,
        resolve_device,
        resolve_dtype,
    )
    from .mitigation.cascade import CascadeResult, CascadeSettings, SpanDecision, cascade
    from .mitigation.dispatch import mitigate, passthrough
    from .mitigation.llm import Budget, LLMClient, is_refused, retry_after_s
    from .mitigation.llm_forward import forward, forward_stream
    from .mitigation.premium import PremiumSettings, cross_check
    from .mitigation.refine import RefineSettings, refine

#: Heavy names, loaded on first use: name -> (submodule, attribute).
_LAZY: dict[str, tuple[str, str]] = {
    "EmbeddedDetector": ("detectors.embedded", "EmbeddedDetector"),
    "base_model_path": ("detectors.embedded", "base_model_path"),
    "TransformerDetector": ("detectors.transformer", "TransformerDetector"),
    "cpu_has_native_bf16": ("detectors.transformer", "cpu_has_native_bf16"),
    "resolve_device": ("detectors.transformer", "resolve_device"),
    "resolve_dtype": ("detectors.transformer", "resolve_dtype"),
    "CascadeResult": ("mitigation.cascade", "CascadeResult"),
    "CascadeSettings": ("mitigation.cascade", "CascadeSettings"),
    "SpanDecision": ("mitigation.cascade", "SpanDecision"),
    "cascade": ("mitigation.cascade", "cascade"),
    "mitigate": ("mitigation.dispatch", "mitigate"),
    "passthrough": ("mitigation.dispatch", "passthrough"),
    "Budget": ("mitigation.llm", "Budget"),
    "LLMClient": ("mitigation.llm", "LLMClient"),
    "is_refused": ("mitigation.llm", "is_refused"),
    "retry_after_s": ("mitigation.llm", "retry_after_s"),
    "forward": ("mitigation.llm_forward", "forward"),
    "forward_stream": ("mitigation.llm_forward", "forward_stream"),
    "PremiumSettings": ("mitigation.premium", "PremiumSettings"),
    "cross_check": ("mitigation.premium", "cross_check"),
    "RefineSettings": ("mitigation.refine", "RefineSettings"),
    "refine": ("mitigation.refine", "refine"),
}

__all__ = [
    "AUTO",
    "AddressRefused",
    "Available",
    "BASE_MODE",
    "Budget",
    "BudgetExceeded",
    "Calibration",
    "CascadeResult",
    "CascadeSettings",
    "Change",
    "CitationPolicy",
    "CitationReport",
    "Coverage",
    "DEFAULT_SKIP_QUERY_TYPES",
    "DEFAULT_THRESHOLD",
    "DEFAULT_TOKEN_THRESHOLD",
    "Decision",
    "DetectionConfig",
    "DetectionInput",
    "DetectionResult",
    "Detector",
    "EmbeddedDetector",
    "Evidence",
    "HallucinationConfig",
    "Iteration",
    "JobPlan",
    "KnownTypes",
    "LLMCall",
    "LLMClient",
    "LLMError",
    "LLMReply",
    "LLMRequest",
    "LexicalDetector",
    "MODES",
    "MODE_NAMES",
    "MessagesError",
    "MitigationResult",
    "ModeRequest",
    "ModeSpec",
    "ModelConfig",
    "Models",
    "PRIOR",
    "PolicyDocument",
    "Posterior",
    "PremiumSettings",
    "Price",
    "Problem",
    "QUERY_TYPES",
    "QueryTypeCalibration",
    "QueryTypeClassifier",
    "Redetect",
    "RefineSettings",
    "RepairSettings",
    "Resolved",
    "RetryPolicy",
    "Span",
    "SpanDecision",
    "Step",
    "TokenPrediction",
    "TokenProb",
    "TransformerDetector",
    "UNDETERMINED",
    "answer_language",
    "arm_reward",
    "base_model_path",
    "bernoulli_update",
    "cascade",
    "change_step",
    "check_citations",
    "check_policy",
    "checkable_claims",
    "choose_arm",
    "classify_query",
    "combine",
    "cpu_has_native_bf16",
    "cross_check",
    "default_classifier",
    "detect_language",
    "detection_config",
    "embedding_similarity",
    "find_context",
    "forward",
    "forward_stream",
    "generate",
    "get_encoder",
    "headers",
    "inputs_from_messages",
    "is_content",
    "is_dev",
    "is_refused",
    "lexical_similarity",
    "lightweight",
    "load_detector",
    "load_examples",
    "load_sources",
    "marker_ids",
    "merge_spans",
    "mitigate",
    "mode_spec",
    "narrowed",
    "passthrough",
    "perturb",
    "posterior_mean",
    "redetector",
    "refine",
    "repair",
    "resolve_device",
    "resolve_dtype",
    "resolve_request",
    "response_score",
    "retry_after_s",
    "rewrites_answer",
    "risk_level",
    "rule_scores",
    "runs_without_llm",
    "search_errors",
    "select_evidence",
    "sentence_bounds",
    "shipped_ensemble",
    "split_sentences",
    "tokenize",
    "training_sentences",
    "update_posterior",
    "verify",
    "verify_batch",
    "verify_groups",
    "warning_text",
    "clear_caches",
]


def clear_caches() -> None:
    """Empty the process-wide memo caches (tokens, sentences, typed values, word keys,
    spaCy parses): for benches that time cold work, and for tests."""
    from .scoring import roles, typed_values
    from .text import sentences, words

    for fn in (
        words.tokenize,
        words._content_norms,
        words.normalize,
        words.stem,
        sentences.split_sentences,
        typed_values.values,
        getattr(roles, "_parse_cached", None),
    ):
        clear = getattr(fn, "cache_clear", None)
        if clear is not None:
            clear()


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(import_module(f".{module}", __name__), attribute)
    globals()[name] = value  # later lookups skip this function
    return value
