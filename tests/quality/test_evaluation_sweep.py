"""Evaluations whose worker died mid-way: the sweeper (`truthlens.sweep_jobs`) re-queues a run
with no progress for EVALUATION_STALL_SECONDS, fails it with the reason after
MAX_EVALUATION_ATTEMPTS claims, and the dashboard's Re-run starts it again."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from engine.detectors.registry import load_detector
from engine.policy import PolicyDocument
from quality import datasets
from quality import evaluation as evaluations
from quality.evaluation import run_evaluation, start_evaluation, sweep_stalled_evaluations
from quality.models import Evaluation
from tenants.models import AuditEvent
from workers.tasks.maintenance import sweep_jobs

from .test_evaluation import ROWS
from .test_review_queue import signed_in

pytestmark = pytest.mark.django_db


class WorkerDies(BaseException):
    """What a killed worker process looks like from the run's side: it never returns."""


class DyingDetector:
    def __init__(self, detector):
        self.detector = detector

    def __getattr__(self, name):
        return getattr(self.detector, name)

    def predict(self, items):
        raise WorkerDies


@pytest.fixture
def dataset(tenant_a):
    body = "".join(json.dumps(r) + "\n" for r in ROWS).encode()
    return datasets.create_from_upload(tenant_a.tenant, "eiffel", body, "jsonl")


@pytest.fixture
def sent(monkeypatch):
    """The evaluations sent to the workers (the broker's side of `enqueue`)."""
    calls: list[str] = []
    monkeypatch.setattr(evaluations, "enqueue", lambda pk: calls.append(str(pk)))
    return calls


@pytest.fixture
def stall(settings):
    settings.TRUTHLENS = {
        **settings.TRUTHLENS,
        "EVALUATION_STALL_SECONDS": 60,
        "MAX_EVALUATION_ATTEMPTS": 2,
    }
    return 60


def dies_mid_run(evaluation: Evaluation) -> None:
    with pytest.raises(WorkerDies):
        run_evaluation(evaluation.pk, DyingDetector(load_detector("lexical")))
    assert Evaluation.objects.get(pk=evaluation.pk).status == "running"


def age(evaluation: Evaluation, seconds: int) -> None:
    Evaluation.objects.filter(pk=evaluation.pk).update(
        progress_at=timezone.now() - timedelta(seconds=seconds)
    )


def test_a_run_whose_worker_died_is_requeued_then_completes(
    tenant_a,
    dataset,
    owner_a,
    sent,
    stall,
):
    run = start_evaluation(tenant_a.tenant, dataset, PolicyDocument(), None, owner_a)
    dies_mid_run(run)
    # a run that moved recently is left alone
    age(run, stall - 10)
    assert sweep_stalled_evaluations() == {"requeued": 0, "failed": 0, "resent": 0}
    assert sent == []
    # with no progress for longer than the stall time it is queued again and sent
    age(run, stall + 10)
    counts = sweep_jobs()  # the beat task that runs the sweeper
    assert counts["evaluations_requeued"] == 1
    assert sent == [str(run.pk)]
    run.refresh_from_db()
    assert (run.status, run.done, run.attempts) == ("queued", 0, 1)
    # and a worker that takes it finishes it
    assert run_evaluation(run.pk, load_detector("lexical")) == "completed"
    run.refresh_from_db()
    assert (run.status, run.done, run.attempts) == ("completed", 4, 2)


def test_a_run_that_keeps_dying_fails_with_the_reason(
    tenant_a,
    dataset,
    owner_a,
    sent,
    stall,
):
    run = start_evaluation(tenant_a.tenant, dataset, PolicyDocument(), None, owner_a)
    for _ in range(2):
        dies_mid_run(run)
        age(run, stall + 10)
        sweep_stalled_evaluations()
    run.refresh_from_db()
    assert run.status == "failed"
    assert "no progress for 60 s after each of 2 tries" in run.error
    assert sent == [str(run.pk)]  # re-queued once, then failed
    page = signed_in(owner_a).get(f"/dashboard/evaluations/{run.pk}/").content.decode()
    assert 'id="evaluation-error"' in page
    assert 'id="rerun"' in page


def test_a_slow_worker_whose_run_was_requeued_stops_writing(
    tenant_a,
    dataset,
    owner_a,
    sent,
    stall,
):
    run = start_evaluation(tenant_a.tenant, dataset, PolicyDocument(), None, owner_a)
    lexical = load_detector("lexical")

    class Slow(DyingDetector):
        def predict(self, items):
            # while this worker is stuck, the sweeper re-queues the run and another claims it
            age(run, stall + 10)
            assert sweep_stalled_evaluations()["requeued"] == 1
            Evaluation.objects.filter(pk=run.pk).update(status="running", attempts=2)
            return self.detector.predict(items)

    assert run_evaluation(run.pk, Slow(lexical)) is None
    run.refresh_from_db()
    # the slow worker wrote neither progress nor a report over the new claim's row
    assert (run.status, run.done, run.results, run.attempts) == ("running", 0, None, 2)


def test_a_queued_run_nobody_took_is_sent_again(
    tenant_a,
    dataset,
    owner_a,
    sent,
    stall,
):
    run = start_evaluation(tenant_a.tenant, dataset, PolicyDocument(), None, owner_a)
    age(run, stall + 10)
    assert sweep_stalled_evaluations()["resent"] == 1
    assert sent == [str(run.pk)]
    assert sweep_stalled_evaluations()["resent"] == 0  # not again until it is stale again


def test_rerun_starts_a_new_run_and_retires_a_stuck_one(
    tenant_a,
    tenant_b,
    dataset,
    owner_a,
    owner_b,
    stall,
):
    run = start_evaluation(tenant_a.tenant, dataset, PolicyDocument(threshold=0.3), 4, owner_a)
    dies_mid_run(run)
    page = signed_in(owner_a).get(f"/dashboard/evaluations/{run.pk}/").content.decode()
    assert 'id="rerun"' in page  # offered while it hangs, too
    # another tenant cannot re-run it
    assert signed_in(owner_b).post(f"/dashboard/evaluations/{run.pk}/rerun/").status_code == 404
    answer = signed_in(owner_a).post(f"/dashboard/evaluations/{run.pk}/rerun/")
    fresh = Evaluation.objects.exclude(pk=run.pk).get()
    assert answer["Location"] == f"/dashboard/evaluations/{fresh.pk}/"
    assert (fresh.status, fresh.policy_version, fresh.dataset_id) == ("queued", 4, dataset.pk)
    assert fresh.policy_document["threshold"] == 0.3
    run.refresh_from_db()
    assert (run.status, run.error) == ("failed", "replaced by a re-run")
    assert AuditEvent.objects.get(action="evaluation.started").details["rerun_of"] == str(run.pk)
    # a completed run is not re-run
    assert run_evaluation(fresh.pk, load_detector("lexical")) == "completed"
    signed_in(owner_a).post(f"/dashboard/evaluations/{fresh.pk}/rerun/")
    assert Evaluation.objects.count() == 2
    # a GET does nothing
    assert signed_in(owner_a).get(f"/dashboard/evaluations/{run.pk}/rerun/").status_code == 405
