"""Evaluating a policy on a dataset: a background run with progress, figures that follow the
labels, its own billing line (not production traffic), charts, comparison, isolation."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.utils import timezone

from dashboard.models import PolicyChange
from dashboard.policy.actions import save_policy
from engine.detectors.registry import load_detector
from engine.policy import PolicyDocument
from quality import datasets
from quality.evaluation import run_evaluation, start_evaluation
from quality.models import Evaluation
from tests.dashboard.conftest import add_usage, make_job
from verification.billing.report import monthly_report, report_as_csv
from verification.models import UsageRecord

from .test_review_queue import signed_in

pytestmark = pytest.mark.django_db

CONTEXT = ["The Eiffel Tower was built from 1887 to 1889 and is 330 metres tall."]
ROWS = [
    {"context": CONTEXT, "query": "When?", "response": "It was built from 1887 to 1889.",
     "label": 0},
    {"context": CONTEXT, "query": "How tall?", "response": "It is 330 metres tall.", "label": 0},
    {"context": CONTEXT, "query": "When?", "response": "It was built in 1950 by Napoleon.",
     "label": 1, "spans": [{"start": 16, "end": 20}]},
    {"context": CONTEXT, "query": "How tall?", "response": "It is 512 metres tall and made of gold.",
     "label": 1, "spans": [{"start": 6, "end": 9}]},
]  # fmt: skip


@pytest.fixture
def dataset(tenant_a):
    body = "".join(json.dumps(r) + "\n" for r in ROWS).encode()
    return datasets.create_from_upload(tenant_a.tenant, "eiffel", body, "jsonl")


@pytest.fixture(scope="module")
def detector():
    return load_detector("lexical")


def test_a_run_reports_figures_against_the_labels_and_bills_its_own_line(
    tenant_a, dataset, detector, plan, owner_a
):
    # given a tenant on a plan that prices detector tokens, and one production verification
    tenant_a.tenant.plan = plan
    tenant_a.tenant.save()
    evaluation = start_evaluation(tenant_a.tenant, dataset, PolicyDocument(), None, owner_a)
    assert (evaluation.status, evaluation.total, evaluation.done) == ("queued", 4, 0)
    # when a worker runs it
    assert run_evaluation(evaluation.pk, detector) == "completed"
    assert run_evaluation(evaluation.pk, detector) is None  # claimed once only
    evaluation.refresh_from_db()
    r = evaluation.results
    # then every row was scored and the figures follow from the confusion matrix
    assert evaluation.done == 4
    c = r["confusion"]
    assert c["tp"] + c["fn"] == 2
    assert c["fp"] + c["tn"] == 2
    tpr, tnr = c["tp"] / 2, c["tn"] / 2
    assert r["balanced_accuracy"] == pytest.approx((tpr + tnr) / 2)
    assert r["auroc"] is not None
    assert r["reliability"]
    assert r["pr_curve"]
    assert {m["mode"] for m in r["per_mode"]} == {"lightweight", "standard", "premium"}
    assert [row["position"] for row in r["rows"]] == [0, 1, 2, 3]
    # and it is billed on its own line: no usage record (not a verification)
    assert evaluation.detector_tokens > 0
    expected = Decimal(evaluation.detector_tokens) / 1000 * plan.price_per_1k_detector_tokens
    assert evaluation.price_usd == expected.quantize(Decimal("0.00000001"))
    assert not UsageRecord.objects.exists()
    report = monthly_report(tenant_a.tenant, timezone.now().strftime("%Y-%m"))
    assert report.verifications == 0
    assert (report.evaluations.runs, report.evaluations.rows) == (1, 4)
    assert report.price_usd == evaluation.price_usd
    line = next(x for x in report_as_csv(report).splitlines() if ",evaluation," in x)
    assert "dataset runs" in line
    add_usage(make_job(tenant_a.tenant))  # the page's table shows once something is billed
    page = signed_in(owner_a).get("/dashboard/billing/").content.decode()
    assert 'id="evaluation-line"' in page


def test_the_report_page_draws_charts_and_lists_worst_disagreements(
    tenant_a, dataset, detector, owner_a
):
    strict = start_evaluation(
        tenant_a.tenant, dataset, PolicyDocument(threshold=0.0, uncertain_above=0), None, owner_a
    )
    run_evaluation(strict.pk, detector)
    html = signed_in(owner_a).get(f"/dashboard/evaluations/{strict.pk}/").content.decode()
    assert 'class="reliability"' in html
    assert 'class="threshold-marker"' in html
    assert 'data-metric="balanced_accuracy"' in html
    assert '<details class="worst">' in html  # threshold 0 flags the correct answers too


def test_progress_shows_while_queued_and_a_draft_is_evaluated_as_a_draft(
    tenant_a, dataset, detector, owner_a
):
    save_policy(tenant_a.tenant, owner_a, PolicyDocument(threshold=0.3), PolicyChange.EDITOR)
    client = signed_in(owner_a)
    answer = client.post(
        f"/dashboard/datasets/{dataset.public_id}/evaluate/",
        {"policy": "draft", "draft": "threshold: 0.7\n"},
    )
    evaluation = Evaluation.objects.get()
    assert answer["Location"] == f"/dashboard/evaluations/{evaluation.pk}/"
    assert evaluation.policy_version is None
    assert evaluation.policy_document["threshold"] == 0.7
    page = client.get(answer["Location"]).content.decode()
    assert '<progress id="progress" max="4" value="0">' in page
    bad = client.post(
        f"/dashboard/datasets/{dataset.public_id}/evaluate/",
        {"policy": "draft", "draft": "threshold: 7\n"},
        follow=True,
    )
    assert "The draft is not a valid policy" in bad.content.decode()
    assert Evaluation.objects.count() == 1


def test_two_versions_compare_side_by_side(tenant_a, dataset, detector, owner_a):
    loose = start_evaluation(tenant_a.tenant, dataset, PolicyDocument(threshold=0.99), 1, owner_a)
    strict = start_evaluation(tenant_a.tenant, dataset, PolicyDocument(threshold=0.01), 2, owner_a)
    for e in (loose, strict):
        run_evaluation(e.pk, detector)
    html = (
        signed_in(owner_a)
        .get(f"/dashboard/evaluations/compare/?a={loose.pk}&b={strict.pk}")
        .content.decode()
    )
    assert "v1 vs v2" in html
    assert 'id="compare-table"' in html
    assert html.count('class="pr-curve"') == 2


def test_another_tenants_evaluation_reads_as_missing(
    tenant_a, tenant_b, dataset, detector, owner_a, owner_b
):
    evaluation = start_evaluation(tenant_a.tenant, dataset, PolicyDocument(), None, owner_a)
    client = signed_in(owner_b)
    assert client.get(f"/dashboard/evaluations/{evaluation.pk}/").status_code == 404
    assert (
        client.get(
            f"/dashboard/evaluations/compare/?a={evaluation.pk}&b={evaluation.pk}"
        ).status_code
        == 404
    )
    answer = client.post(f"/dashboard/datasets/{dataset.public_id}/evaluate/", {"policy": "0"})
    assert answer.status_code == 404
    assert Evaluation.objects.count() == 1
