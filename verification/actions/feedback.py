"""Customer feedback on a finished job: stored, and counted once by the mode bandit."""

from __future__ import annotations

from django.db import transaction

from tenants.models import Tenant

from .. import mode_selection
from ..models import Feedback, VerificationJob


def record_feedback(job: VerificationJob, tenant: Tenant, outcome: str, comment: str) -> Feedback:
    """Store the feedback and, the first time a job gets any, update its mode's arm
    (one transaction: both or neither)."""
    with transaction.atomic():
        feedback = Feedback.objects.create(job=job, tenant=tenant, outcome=outcome, comment=comment)
        mode_selection.apply_feedback(job, feedback.outcome)
    return feedback
