"""TruthLens Python SDK: `from truthlens import TruthLens`."""

from . import webhooks
from ._version import __version__
from .aio import AsyncTruthLens
from .client import TruthLens
from .errors import (
    APIError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    IndexingError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    TruthLensError,
    VerificationTimeout,
)
from .models import (
    Document,
    Feedback,
    KnowledgeBase,
    Span,
    UsageReport,
    Verification,
)

__all__ = [
    "APIError",
    "AsyncTruthLens",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "Document",
    "Feedback",
    "IndexingError",
    "KnowledgeBase",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "ServerError",
    "Span",
    "TruthLens",
    "TruthLensError",
    "UsageReport",
    "Verification",
    "VerificationTimeout",
    "__version__",
    "webhooks",
]
