"""The demo data that `make run` loads must be safe to load on a connected machine."""

import pytest
from django.core.management import call_command

from tenants.models import WebhookEndpoint
from verification.models import ModeArm, UsageRecord, VerificationJob, WebhookDelivery

pytestmark = pytest.mark.django_db


def test_demo_data_fills_every_page_and_never_queues_a_real_delivery():
    call_command("demo_dashboard", password="demo-pass-123")
    assert VerificationJob.objects.filter(tenant__slug="demo").count() > 50
    assert UsageRecord.objects.filter(tenant__slug="demo").exists()
    assert ModeArm.objects.filter(tenant__slug="demo").exists()
    # nothing for the webhook dispatcher to send, and no endpoint new jobs would post to
    assert not WebhookDelivery.objects.filter(status__in=["pending", "sending"]).exists()
    assert not WebhookEndpoint.objects.filter(is_active=True).exists()
    # running it again is safe
    call_command("demo_dashboard", password="demo-pass-123")
    assert not WebhookEndpoint.objects.filter(is_active=True).exists()
