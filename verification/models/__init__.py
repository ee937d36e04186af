from .jobs import DetectedSpan, Feedback, JobStage, JobStatus, VerificationJob
from .mitigation import LLMCallRecord, MitigationStep, ModeArm
from .outbox import OutboxMessage
from .usage import UsageRecord
from .webhooks import WebhookAttempt, WebhookDelivery

__all__ = [
    "DetectedSpan",
    "Feedback",
    "JobStage",
    "JobStatus",
    "LLMCallRecord",
    "MitigationStep",
    "ModeArm",
    "OutboxMessage",
    "UsageRecord",
    "VerificationJob",
    "WebhookAttempt",
    "WebhookDelivery",
]
