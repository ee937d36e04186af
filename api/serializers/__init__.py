"""The API's serializers, one module per resource, beside the views of `api/views/` that use
them (docs/architecture.md "Where new code goes"): `api/serializers/knowledge.py` for
`api/views/knowledge*.py`, and so on. The job's representation, which webhooks send too, is
`verification.serializers`.

The names below were this package's when it was one module; they stay importable from here.
"""

from .usage import UsageByModeSerializer, UsageReportSerializer
from .verifications import (
    MAX_CONTENT_PARTS,
    MAX_MESSAGES,
    ContextField,
    FeedbackRequestSerializer,
    MessageSerializer,
    SearchControlsSerializer,
    VerificationRequestSerializer,
)
from .webhooks import WebhookEndpointSerializer

__all__ = [
    "MAX_CONTENT_PARTS",
    "MAX_MESSAGES",
    "ContextField",
    "FeedbackRequestSerializer",
    "MessageSerializer",
    "SearchControlsSerializer",
    "UsageByModeSerializer",
    "UsageReportSerializer",
    "VerificationRequestSerializer",
    "WebhookEndpointSerializer",
]
