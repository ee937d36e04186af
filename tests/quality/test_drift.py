"""Drift: weekly agreement on the random sample; a drop beyond the margin shows a banner on
the overview and sends one signed `quality.drift` webhook event per week."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.utils import timezone

from quality.drift import check_drift, weekly_agreement
from quality.models import Label, QualitySettings, ReviewItem
from tenants.models import Membership, WebhookEndpoint
from tests.dashboard.conftest import make_job, member
from verification.models import WebhookDelivery
from verification.webhooks.dispatch import attempt_delivery
from verification.webhooks.signing import verify

from .test_review_queue import signed_in

pytestmark = pytest.mark.django_db


def labelled_week(tenant, reviewer, monday: dt.date, agreeing: int, total: int) -> None:
    when = timezone.make_aware(dt.datetime.combine(monday, dt.time(12)))
    for i in range(total):
        job = make_job(tenant, detected=True, verdict="hallucinated", created_at=when)
        ReviewItem.objects.create(tenant=tenant, job=job, reason="sample", in_sample=True)
        outcome = "hallucinated" if i < agreeing else "correct"
        Label.objects.create(tenant=tenant, job=job, reviewer=reviewer, outcome=outcome)


@pytest.fixture
def weeks(tenant_a):
    QualitySettings.objects.create(tenant=tenant_a.tenant, sample_rate=0.0, drift_margin=0.1)
    reviewer = member(tenant_a.tenant, "rev", Membership.REVIEWER)
    this_monday = timezone.localdate() - dt.timedelta(days=timezone.localdate().weekday())
    return reviewer, [this_monday - dt.timedelta(weeks=k) for k in (4, 3, 2, 1)]


def test_weekly_agreement_counts_only_the_random_sample(tenant_a, weeks):
    reviewer, mondays = weeks
    labelled_week(tenant_a.tenant, reviewer, mondays[0], agreeing=9, total=10)
    outside = make_job(tenant_a.tenant, detected=True, created_at=timezone.now())
    ReviewItem.objects.create(tenant=tenant_a.tenant, job=outside, reason="flagged")
    Label.objects.create(tenant=tenant_a.tenant, job=outside, reviewer=reviewer, outcome="correct")
    [week] = weekly_agreement(tenant_a.tenant)
    assert (week.start, week.n, week.agreeing) == (mondays[0], 10, 9)


def test_a_drop_beyond_the_margin_sends_one_signed_drift_event(tenant_a, weeks, receiver):
    # given an endpoint that wants drift events, and one that does not
    reviewer, mondays = weeks
    endpoint = WebhookEndpoint(tenant=tenant_a.tenant, url=receiver.url, events=["quality.drift"])
    secret = endpoint.set_new_secret()
    endpoint.save()
    other = WebhookEndpoint(
        tenant=tenant_a.tenant, url=receiver.url, events=["verification.completed"]
    )
    other.set_new_secret()
    other.save()
    for monday in mondays[:3]:
        labelled_week(tenant_a.tenant, reviewer, monday, agreeing=10, total=10)
    labelled_week(tenant_a.tenant, reviewer, mondays[3], agreeing=6, total=10)
    # when the check runs (twice)
    ids = check_drift(tenant_a.tenant)
    assert check_drift(tenant_a.tenant) == []  # once per week
    # then one delivery went to the subscribed endpoint, signed, with the figures
    assert len(ids) == 1
    assert attempt_delivery(ids[0]) == WebhookDelivery.SUCCEEDED
    [got] = receiver.received
    event = json.loads(got.body)
    assert event["type"] == "quality.drift"
    assert event["data"]["agreement"] == 0.6
    assert event["data"]["baseline"] == 1.0
    assert event["data"]["week"] == mondays[3].isoformat()
    assert verify(secret, got.body, got.headers["X-TruthLens-Signature"])


def test_the_overview_shows_the_weeks_and_a_banner_on_drift(tenant_a, weeks, owner_a):
    reviewer, mondays = weeks
    for monday in mondays[:3]:
        labelled_week(tenant_a.tenant, reviewer, monday, agreeing=10, total=10)
    labelled_week(tenant_a.tenant, reviewer, mondays[3], agreeing=9, total=10)
    html = signed_in(owner_a).get("/dashboard/").content.decode()
    assert 'id="agreement-weeks"' in html
    assert 'id="drift-banner"' not in html  # 0.9 is within the 0.1 margin of 1.0
    labelled_week(tenant_a.tenant, reviewer, mondays[3], agreeing=0, total=5)
    html = signed_in(owner_a).get("/dashboard/").content.decode()
    assert 'id="drift-banner"' in html


def test_a_drift_endpoint_can_be_registered_through_the_api(client_a, receiver):
    answer = client_a.post(
        "/v1/webhook-endpoints", {"url": receiver.url, "events": ["quality.drift"]}, format="json"
    )
    assert answer.status_code == 201, answer.json()
