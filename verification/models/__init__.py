from .jobs import DetectedSpan, Feedback, JobStage, JobStatus, VerificationJob
from .mitigation import LLMCallRecord, MitigationStep, ModeArm
from .outbox import OutboxMessage
from .plan import plan_key
from .usage import MonthlyJobCount, UsageAlert, UsageRecord
from .webhooks import WebhookAttempt, WebhookDelivery

__all__ = [
    "DetectedSpan",
    "Feedback",
    "JobStage",
    "JobStatus",
    "LLMCallRecord",
    "MitigationStep",
    "ModeArm",
    "MonthlyJobCount",
    "OutboxMessage",
    "UsageAlert",
    "UsageRecord",
    "VerificationJob",
    "WebhookAttempt",
    "WebhookDelivery",
    "plan_key",
]
