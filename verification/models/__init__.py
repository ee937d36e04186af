from .jobs import DetectedSpan, Feedback, JobStatus, VerificationJob
from .outbox import OutboxMessage
from .usage import UsageRecord
from .webhooks import WebhookAttempt, WebhookDelivery

__all__ = [
    "DetectedSpan",
    "Feedback",
    "JobStatus",
    "OutboxMessage",
    "UsageRecord",
    "VerificationJob",
    "WebhookAttempt",
    "WebhookDelivery",
]
