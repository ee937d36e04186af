"""Claiming, completing and sweeping jobs, called directly against real Postgres."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from django.utils import timezone

from engine import JobPlan, MitigationResult, PolicyDocument
from engine.types import DetectionResult, Evidence, Span
from verification.actions import sweep
from verification.actions.claim import claim, claim_more
from verification.actions.complete import Outcome, complete_job, fail_job
from verification.actions.create import NewVerification, create_verification
from verification.models import (
    DetectedSpan,
    ModeArm,
    OutboxMessage,
    UsageRecord,
    VerificationJob,
)
from verification.models.plan import PLAN_KEYS

pytestmark = pytest.mark.django_db


def _new(tenant, response="The tower is 300 m tall.", interactive=False) -> VerificationJob:
    job, created = create_verification(
        tenant,
        NewVerification(
            context=["The tower is 330 m tall."], response=response, interactive=interactive
        ),
    )
    assert created
    return job


def _outcome(score=0.9) -> Outcome:
    span = Span(
        start=13,
        end=18,
        text="300 m",
        confidence=score,
        label="contradiction",
        evidence=Evidence(passage_index=0, start=0, end=24, text="The tower is 330 m tall."),
        reason="number differs",
    )
    result = DetectionResult(
        status="verified",
        score=score,
        detected=True,
        risk_level="high",
        spans=[span],
        detector="test",
        detector_tokens=12,
        threshold=0.5,
    )
    plan = JobPlan(
        policy=PolicyDocument(),
        enabled=True,
        query_type="factual_qa",
        query_type_confidence=0.9,
        decision="default",
        threshold=0.5,
        max_iterations=3,
        mode="lightweight",
        mode_source="policy",
    )
    return Outcome(
        plan=plan,
        result=result,
        final_response="The tower is 300 m tall.",
        warning="w",
        iterations=0,
        detect_ms=5,
    )


def test_only_one_claim_wins(tenant_a):
    job = _new(tenant_a.tenant)
    assert claim(job.pk) is not None
    assert claim(job.pk) is None


def test_a_running_job_with_an_expired_lease_can_be_claimed_again(tenant_a):
    job = _new(tenant_a.tenant)
    claim(job.pk)
    VerificationJob.objects.filter(pk=job.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    again = claim(job.pk)
    assert again is not None
    assert again.attempts == 2


def test_claim_more_fills_a_batch_with_other_queued_jobs(tenant_a):
    first, *others = [_new(tenant_a.tenant, f"answer {i}") for i in range(4)]
    claim(first.pk)
    batch = claim_more(2, exclude=first.pk)
    assert len(batch) == 2
    assert all(j.status == "running" for j in batch)
    assert claim_more(5, exclude=first.pk)[0].pk == others[2].pk


def test_claim_more_gives_each_tenant_a_turn_before_a_flood_fills_the_batch(tenant_a, tenant_b):
    # given: tenant A flooded the queue before tenant B sent two jobs
    flood = [_new(tenant_a.tenant, f"a {i}") for i in range(10)]
    b_jobs = [_new(tenant_b.tenant, f"b {i}") for i in range(2)]
    # when
    batch = claim_more(4)
    # then: A's oldest, B's oldest, then each one's second
    assert [j.pk for j in batch] == [flood[0].pk, b_jobs[0].pk, flood[1].pk, b_jobs[1].pk]


def test_claim_more_takes_interactive_jobs_first_and_an_interactive_batch_only_them(
    tenant_a, tenant_b
):
    flood = [_new(tenant_a.tenant, f"a {i}") for i in range(5)]
    waiting = [_new(tenant_b.tenant, f"b {i}", interactive=True) for i in range(2)]
    assert [j.pk for j in claim_more(1)] == [waiting[0].pk]
    assert [j.pk for j in claim_more(8, interactive_only=True)] == [waiting[1].pk]
    assert {j.pk for j in claim_more(8)} == {j.pk for j in flood}


def test_interactive_jobs_are_published_to_the_interactive_queues(tenant_a):
    job = _new(tenant_a.tenant, interactive=True)
    batch_job = _new(tenant_a.tenant)
    queues = dict(OutboxMessage.objects.values_list("job_id", "queue"))
    assert queues == {job.pk: "detect_interactive", batch_job.pk: "detect"}
    sweep._requeue(job.pk, "test", stage="mitigate")
    assert OutboxMessage.objects.filter(job_id=job.pk).last().queue == "mitigate_interactive"


def test_completion_stores_result_spans_and_one_usage_row(tenant_a):
    job = _new(tenant_a.tenant)
    claimed = claim(job.pk)
    assert complete_job(job.pk, claimed.attempts, _outcome())
    job.refresh_from_db()
    assert job.status == "completed"
    assert job.score == 0.9
    assert job.detected is True
    span = DetectedSpan.objects.get(job=job)
    assert (span.evidence_passage, span.evidence_start, span.evidence_end) == (0, 0, 24)
    assert UsageRecord.objects.get(job=job).detector_tokens == 12
    assert set(job.latency_ms) == {"queue", "detect", "mitigate", "total"}
    # a verified job feeds the bandit: its reward is stored and its arm counted
    assert job.bandit_reward is not None
    assert ModeArm.objects.get(tenant=tenant_a.tenant, mode="lightweight").pulls == 1


def test_completion_records_the_plan_with_the_mode_that_ran_and_without_its_policy(tenant_a):
    # given: a job planned premium whose mitigation fell back to standard
    job = _new(tenant_a.tenant)
    claimed = claim(job.pk)
    planned = _outcome()
    plan = planned.plan.model_copy(update={"mode": "premium", "decision": "strict"})
    ran = MitigationResult(
        mode="standard",
        original_response=job.response,
        final_response="The tower is 330 m tall.",
        final_score=0.1,
        converged=True,
        stop_reason="converged",
    )
    # when
    outcome = replace(
        planned,
        plan=plan,
        mitigation=ran,
        iterations=1,
        final_response=ran.final_response,
        final_score=ran.final_score,
    )
    assert complete_job(job.pk, claimed.attempts, outcome)
    # then: the plan holds what was decided and what ran; the row has no copy of it
    job = VerificationJob.objects.get(pk=job.pk)
    assert (job.mode, job.decision, job.query_type) == ("standard", "strict", "factual_qa")
    assert (job.mode_source, job.enabled, job.query_type_confidence) == ("policy", True, 0.9)
    assert "policy" not in job.plan
    assert job.job_plan is None
    assert (job.final_response, job.final_score, job.threshold) == (ran.final_response, 0.1, 0.5)
    assert UsageRecord.objects.get(job=job).mode == "standard"
    # and queries on the plan's keys find it
    jobs = VerificationJob.objects.filter(tenant=tenant_a.tenant)
    assert list(jobs.filter(plan__mode="standard", plan__decision="strict")) == [job]
    assert not jobs.filter(plan__mode="premium").exists()
    columns = {f.column for f in VerificationJob._meta.concrete_fields}
    assert not columns & set(PLAN_KEYS)


def test_a_late_finisher_that_lost_its_lease_writes_nothing(tenant_a):
    job = _new(tenant_a.tenant)
    first = claim(job.pk)
    VerificationJob.objects.filter(pk=job.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    second = claim(job.pk)
    assert complete_job(job.pk, second.attempts, _outcome(0.8))
    assert not complete_job(job.pk, first.attempts, _outcome(0.1))
    job.refresh_from_db()
    assert job.score == 0.8
    assert UsageRecord.objects.filter(job=job).count() == 1
    assert DetectedSpan.objects.filter(job=job).count() == 1


def test_the_sweeper_requeues_expired_leases_and_fails_after_max_attempts(tenant_a, settings):
    job = _new(tenant_a.tenant)
    claim(job.pk)
    VerificationJob.objects.filter(pk=job.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    before = OutboxMessage.objects.filter(job=job).count()
    assert sweep.sweep_stuck_jobs()["expired"] == 1
    assert OutboxMessage.objects.filter(job=job).count() == before + 1
    VerificationJob.objects.filter(pk=job.pk).update(
        attempts=settings.TRUTHLENS["MAX_JOB_ATTEMPTS"],
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )
    assert sweep.sweep_stuck_jobs()["failed"] == 1
    job.refresh_from_db()
    assert job.status == "failed"
    assert job.error_code == "too_many_attempts"


def test_the_sweeper_republishes_queued_jobs_nobody_took(tenant_a, settings):
    job = _new(tenant_a.tenant)
    stale = timezone.now() - timedelta(seconds=settings.TRUTHLENS["JOB_LEASE_SECONDS"] + 5)
    VerificationJob.objects.filter(pk=job.pk).update(enqueued_at=stale)
    before = OutboxMessage.objects.filter(job=job).count()
    assert sweep.sweep_stuck_jobs()["stale_queued"] == 1
    assert OutboxMessage.objects.filter(job=job).count() == before + 1
    job.refresh_from_db()
    assert job.status == "queued"
    assert job.enqueued_at > stale
    # the fresh enqueued_at keeps the next sweep from publishing it again
    assert sweep.sweep_stuck_jobs()["stale_queued"] == 0


def test_the_relay_publishes_outbox_messages_left_behind(tenant_a, settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "OUTBOX_RELAY_AFTER_SECONDS": 0}
    job = _new(tenant_a.tenant)  # in a test transaction the after-commit publish never ran
    assert OutboxMessage.objects.get(job=job).published_at is None
    assert sweep.relay_outbox() == 1
    assert OutboxMessage.objects.get(job=job).published_at is not None


def test_the_relay_leaves_messages_for_later_when_the_broker_is_down(
    tenant_a, settings, monkeypatch
):
    from celery import current_app

    settings.TRUTHLENS = {**settings.TRUTHLENS, "OUTBOX_RELAY_AFTER_SECONDS": 0}
    job = _new(tenant_a.tenant)

    def broker_down(*args, **kwargs):
        raise ConnectionRefusedError("redis down")

    monkeypatch.setattr(current_app, "send_task", broker_down)
    assert sweep.relay_outbox() == 0
    assert OutboxMessage.objects.get(job=job).published_at is None


def test_failing_a_job_is_final_and_idempotent(tenant_a):
    job = _new(tenant_a.tenant)
    assert fail_job(job.pk, None, "boom", "it broke")
    assert not fail_job(job.pk, None, "boom", "again")
    job.refresh_from_db()
    assert job.status == "failed"
    assert job.error_message == "it broke"


def _skipped_outcome() -> Outcome:
    result = DetectionResult(
        status="skipped", score=None, detected=None, risk_level=None,
        reason="query type 'creative' is not verified by this policy", detector="test",
    )  # fmt: skip
    outcome = _outcome()
    plan = outcome.plan.model_copy(update={"query_type": "creative"})
    return replace(outcome, result=result, plan=plan)


@pytest.mark.parametrize(("prices", "expected"), [({}, "0"), ({"skipped": 0.0002}, "0.0002")])
def test_a_skipped_verification_is_billed_at_the_skip_price_on_its_own_line(
    tenant_a, prices, expected
):
    # given: a plan that charges 0.001 per lightweight verification
    from decimal import Decimal

    from tenants.models import Plan
    from verification.billing.report import current_month, monthly_report

    plan = Plan.objects.create(
        name=f"p{len(prices)}", price_per_verification={"lightweight": 0.001, **prices}
    )
    tenant_a.tenant.plan = plan
    tenant_a.tenant.save()
    skipped, checked = _new(tenant_a.tenant, "a poem"), _new(tenant_a.tenant)
    # when
    complete_job(skipped.pk, claim(skipped.pk).attempts, _skipped_outcome())
    complete_job(checked.pk, claim(checked.pk).attempts, _outcome())
    # then
    usage = UsageRecord.objects.get(job=skipped)
    assert usage.mode == "skipped"
    assert usage.price_usd == Decimal(expected)
    assert UsageRecord.objects.get(job=checked).price_usd == Decimal("0.001")
    lines = {line.mode: line for line in monthly_report(tenant_a.tenant, current_month()).by_mode}
    assert lines["skipped"].verifications == 1
    assert lines["lightweight"].verifications == 1
