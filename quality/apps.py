from django.apps import AppConfig
from django.db.models.signals import post_save


class QualityConfig(AppConfig):
    """A tenant's own truth: review queue, labels, datasets, evaluations, calibration, drift."""

    name = "quality"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from verification.models import Feedback, VerificationJob

        from . import queue

        post_save.connect(queue.on_job_saved, sender=VerificationJob, dispatch_uid="quality-job")
        post_save.connect(queue.on_feedback_saved, sender=Feedback, dispatch_uid="quality-feedback")
