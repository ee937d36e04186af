"""TruthLens detection engine: pure Python, no Django or Celery.

from verification.engine import DetectionConfig, DetectionInput, LexicalDetector, verify
result = verify(DetectionInput.build(context, answer, query), DetectionConfig(), LexicalDetector())
"""

from .detectors.base import Detector
from .detectors.lexical import LexicalDetector
from .pipeline import DetectionConfig, verify, verify_batch, verify_groups
from .query_types import QueryTypeClassifier, classify_query
from .scoring.citations import CitationPolicy, check_citations
from .text.language import answer_language, detect_language
from .text.messages import MessagesError, inputs_from_messages
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

__all__ = [
    "QUERY_TYPES",
    "CitationPolicy",
    "CitationReport",
    "Coverage",
    "DetectionConfig",
    "DetectionInput",
    "DetectionResult",
    "Detector",
    "Evidence",
    "LexicalDetector",
    "MessagesError",
    "QueryTypeClassifier",
    "Span",
    "TokenPrediction",
    "TokenProb",
    "answer_language",
    "check_citations",
    "classify_query",
    "detect_language",
    "inputs_from_messages",
    "verify",
    "verify_batch",
    "verify_groups",
]
