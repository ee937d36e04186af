"""The review queue: what feeds it, labels with who and when, a second reviewer's
disagreement kept, the agreement rate, roles and isolation."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from quality.models import Label, QualitySettings, ReviewItem
from quality.queue import sampled
from tenants.models import Membership
from tests.dashboard.conftest import make_job, member
from verification.actions.feedback import record_feedback

pytestmark = pytest.mark.django_db


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_uncertain_and_near_threshold_answers_are_queued_and_clear_ones_are_not(tenant_a):
    QualitySettings.objects.create(tenant=tenant_a.tenant, sample_rate=0.0)
    uncertain = make_job(tenant_a.tenant, verdict="uncertain", score=0.3, threshold=0.5)
    near = make_job(tenant_a.tenant, verdict="hallucinated", score=0.55, threshold=0.5)
    clear = make_job(tenant_a.tenant, verdict="hallucinated", score=0.95, threshold=0.5)
    queued = dict(ReviewItem.objects.values_list("job_id", "reason"))
    assert queued == {uncertain.pk: "uncertain", near.pk: "uncertain"}
    assert clear.pk not in queued


def test_the_random_sample_takes_its_share_of_traffic(tenant_a):
    QualitySettings.objects.create(tenant=tenant_a.tenant, sample_rate=0.3)
    jobs = [make_job(tenant_a.tenant, score=0.99, verdict="hallucinated") for _ in range(200)]
    items = ReviewItem.objects.filter(reason="sample")
    assert set(items.values_list("job_id", flat=True)) == {j.pk for j in jobs if sampled(j.pk, 0.3)}
    assert 35 <= items.count() <= 85  # 60 expected
    assert all(items.values_list("in_sample", flat=True))


def test_an_end_user_flag_queues_the_answer_as_flagged(tenant_a, client_a):
    QualitySettings.objects.create(tenant=tenant_a.tenant, sample_rate=0.0)
    job = make_job(tenant_a.tenant, score=0.05, verdict="faithful")
    answer = client_a.post(
        f"/v1/verifications/{job.public_id}/feedback", {"outcome": "hallucinated"}, format="json"
    )
    assert answer.status_code in (200, 201), answer.content
    assert ReviewItem.objects.get(job=job).reason == "flagged"
    record_feedback(make_job(tenant_a.tenant, score=0.05), tenant_a.tenant, "correct", "")
    assert ReviewItem.objects.count() == 1


def _queued(tenant):
    QualitySettings.objects.get_or_create(tenant=tenant, defaults={"sample_rate": 0.0})
    return make_job(tenant, verdict="uncertain", score=0.45, threshold=0.5)


def test_a_second_reviewers_disagreement_is_kept_and_the_agreement_rate_shown(tenant_a):
    first = member(tenant_a.tenant, "rev-1", Membership.REVIEWER)
    second = member(tenant_a.tenant, "rev-2", Membership.REVIEWER)
    job, other = _queued(tenant_a.tenant), _queued(tenant_a.tenant)
    spans = json.dumps([{"start": 0, "end": 3}])
    url = f"/dashboard/review/{job.public_id}/label/"
    signed_in(first).post(url, {"outcome": "hallucinated", "spans": spans})
    signed_in(second).post(url, {"outcome": "correct", "spans": "[]"})
    other_url = f"/dashboard/review/{other.public_id}/label/"
    signed_in(first).post(other_url, {"outcome": "correct", "spans": "[]"})
    signed_in(second).post(other_url, {"outcome": "correct", "spans": "[]"})
    labels = {(lb.reviewer.username, lb.outcome) for lb in Label.objects.filter(job=job)}
    assert labels == {("rev-1", "hallucinated"), ("rev-2", "correct")}
    mine = Label.objects.get(job=job, reviewer=first)
    assert mine.spans == [{"start": 0, "end": 3, "text": job.response[:3]}]
    assert mine.created_at is not None
    page = signed_in(first).get(f"/dashboard/review/{job.public_id}/").content.decode()
    assert "reviewers disagree" in page
    queue = signed_in(first).get("/dashboard/review/").content.decode()
    assert "<strong>0.50</strong> (1 of 2 answers" in queue


def test_a_reviewer_relabelling_replaces_only_their_own_label(tenant_a):
    reviewer = member(tenant_a.tenant, "rev-1", Membership.REVIEWER)
    job = _queued(tenant_a.tenant)
    client = signed_in(reviewer)
    url = f"/dashboard/review/{job.public_id}/label/"
    client.post(url, {"outcome": "hallucinated", "spans": "[]"})
    client.post(url, {"outcome": "correct", "spans": "[]"})
    assert list(Label.objects.values_list("outcome", flat=True)) == ["correct"]


def test_spans_outside_the_answer_are_refused(tenant_a):
    reviewer = member(tenant_a.tenant, "rev-1", Membership.REVIEWER)
    job = _queued(tenant_a.tenant)
    spans = json.dumps([{"start": 0, "end": 10_000}])
    page = signed_in(reviewer).post(
        f"/dashboard/review/{job.public_id}/label/",
        {"outcome": "hallucinated", "spans": spans},
        follow=True,
    )
    assert "outside the answer" in page.content.decode()
    assert not Label.objects.exists()


def test_a_viewer_reads_the_queue_but_cannot_label(tenant_a, viewer_a):
    job = _queued(tenant_a.tenant)
    client = signed_in(viewer_a)
    assert client.get(f"/dashboard/review/{job.public_id}/").status_code == 200
    answer = client.post(f"/dashboard/review/{job.public_id}/label/", {"outcome": "correct"})
    assert answer.status_code == 403
    assert not Label.objects.exists()


def test_another_tenants_queue_item_reads_as_missing(tenant_a, tenant_b, owner_b):
    job = _queued(tenant_a.tenant)
    client = signed_in(owner_b)
    assert client.get(f"/dashboard/review/{job.public_id}/").status_code == 404
    answer = client.post(f"/dashboard/review/{job.public_id}/label/", {"outcome": "correct"})
    assert answer.status_code == 404
    assert job.response not in client.get("/dashboard/review/").content.decode()
    assert not Label.objects.exists()


def test_a_dataset_built_from_the_queue_holds_only_agreed_labels(tenant_a, client_a):
    first = member(tenant_a.tenant, "rev-1", Membership.REVIEWER)
    second = member(tenant_a.tenant, "rev-2", Membership.REVIEWER)
    agreed, disputed = _queued(tenant_a.tenant), _queued(tenant_a.tenant)
    for user in (first, second):
        signed_in(user).post(
            f"/dashboard/review/{agreed.public_id}/label/", {"outcome": "hallucinated"}
        )
    signed_in(first).post(f"/dashboard/review/{disputed.public_id}/label/", {"outcome": "correct"})
    signed_in(second).post(
        f"/dashboard/review/{disputed.public_id}/label/", {"outcome": "hallucinated"}
    )
    created = client_a.post("/v1/datasets", {"name": "queue", "source": "review"}, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["size"] == 1
