"""Browser test of the label flow (issue 23): review queue -> label (a span marked by
selecting text, keyboard shortcuts) -> dataset -> evaluate -> calibrate -> adopt -> the new
policy version is visible and the previous one restorable.

With `TRUTHLENS_WALKTHROUGH_SHOTS=<folder>` it also saves docs/dashboard.md's screenshots of the
review queue and the evaluation report there (`make walkthrough-screenshots`)."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
from django.utils import timezone

from dashboard.models import PolicyChange
from dashboard.policy.actions import current_document, current_version, save_policy
from engine.detectors.registry import load_detector
from engine.policy import PolicyDocument
from quality.evaluation import run_evaluation
from quality.models import Dataset, Evaluation, Label, QualitySettings, ReviewItem
from tenants.models import Membership

from . import test_browser
from .conftest import make_job, member

chromium, page, sign_in = test_browser.chromium, test_browser.page, test_browser.sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CONTEXT = ["The Eiffel Tower was built from 1887 to 1889 and is 330 metres tall."]
FAITHFUL = "It was built from 1887 to 1889."
YEARS = range(1900, 2100)
SHOTS = os.environ.get("TRUTHLENS_WALKTHROUGH_SHOTS", "")


def _shot(tab, name: str, full_page: bool = True) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(Path(SHOTS) / f"quality-{name}.png"), full_page=full_page)


@pytest.fixture
def queue(tenant_a, owner_a):
    """Policy v1 flags almost nothing (threshold 0.99); 120 queued answers, 118 already
    labelled by another reviewer: made-up build years are hallucinated."""
    tenant = tenant_a.tenant
    QualitySettings.objects.create(tenant=tenant, sample_rate=0.0)
    save_policy(tenant, owner_a, PolicyDocument(threshold=0.99), PolicyChange.EDITOR)
    other = member(tenant, "rev", Membership.REVIEWER)
    start = timezone.now() - dt.timedelta(hours=3)
    jobs = []
    for i in range(120):
        wrong = i % 2 == 1
        response = f"It was built in {YEARS[i]} by Gustave Eiffel." if wrong else FAITHFUL
        job = make_job(
            tenant, context=CONTEXT, query="When was it built?", response=response,
            score=0.2, created_at=start + dt.timedelta(seconds=i),
        )  # fmt: skip
        ReviewItem.objects.get_or_create(tenant=tenant, job=job, defaults={"reason": "sample"})
        if i >= 2:  # the first two are labelled in the browser
            outcome = "hallucinated" if wrong else "correct"
            Label.objects.create(tenant=tenant, job=job, reviewer=other, outcome=outcome)
        jobs.append(job)
    return jobs


def _select(page, text: str) -> None:
    """Select `text` inside the answer, as a reviewer dragging over it would."""
    page.evaluate(
        """(text) => {
          const el = document.getElementById('review-answer');
          const node = [...el.childNodes].find(n => n.textContent.includes(text));
          const at = node.textContent.indexOf(text);
          const range = document.createRange();
          range.setStart(node.nodeType === 3 ? node : node.firstChild, at);
          range.setEnd(node.nodeType === 3 ? node : node.firstChild, at + text.length);
          const sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);
        }""",
        text,
    )


def test_queue_to_adopted_calibration_and_back(page, live_server, tenant_a, owner_a, queue):
    tenant = tenant_a.tenant
    page.set_default_timeout(60_000)  # a long flow on a shared 2-core machine
    sign_in(page, live_server, "owner-a")
    # the queue: start reviewing the oldest answer (faithful)
    page.goto(f"{live_server.url}/dashboard/review/")
    _shot(page, "review-queue", full_page=False)
    page.locator("#start-review").click()
    page.wait_for_url(f"**/dashboard/review/{queue[0].public_id}/")
    page.keyboard.press("c")  # correct
    # the next one (made-up year): mark the year by selecting it, then H
    page.wait_for_url(f"**/dashboard/review/{queue[1].public_id}/")
    _select(page, "1901")
    page.keyboard.press("m")
    assert page.locator("#review-answer mark").inner_text() == "1901"
    _shot(page, "review-item")
    page.keyboard.press("h")
    page.wait_for_url(f"**/dashboard/review/{queue[2].public_id}/")
    # previous goes back to the one just labelled, which shows its label and mark
    page.keyboard.press("p")
    page.wait_for_url(f"**/dashboard/review/{queue[1].public_id}/")
    assert page.locator("#review-answer mark").inner_text() == "1901"
    mine = {lb.job_id: lb for lb in Label.objects.filter(reviewer=owner_a)}
    assert mine[queue[0].pk].outcome == "correct"
    start = queue[1].response.index("1901")
    assert mine[queue[1].pk].spans == [{"start": start, "end": start + 4, "text": "1901"}]

    # a dataset from the queue's labels
    page.goto(f"{live_server.url}/dashboard/datasets/")
    page.get_by_label("Name").fill("from-queue")
    page.get_by_label("Source").select_option("review")
    page.get_by_role("button", name="Create dataset").click()
    page.get_by_text("Dataset from-queue v1 created with 120 rows.").wait_for()
    dataset = Dataset.objects.get(tenant=tenant, name="from-queue")

    # evaluate the current version (1) in the background: the worker's task is called here
    page.get_by_role("button", name="Evaluate").click()
    page.locator("#progress").wait_for()
    evaluation = Evaluation.objects.get(dataset=dataset)
    assert evaluation.policy_version == 1
    assert run_evaluation(evaluation.pk, load_detector("lexical")) == "completed"
    page.reload()
    page.locator("svg.reliability").wait_for()
    assert page.locator("svg.pr-curve .threshold-marker").count() == 1
    _shot(page, "evaluation-report")

    # calibrate: fit, see the out-of-fold figures, adopt
    page.locator("#calibrate-link").click()
    page.get_by_label("Method").select_option("threshold")
    page.get_by_role("button", name="Fit and check").click()
    page.locator("#calibration-figures").wait_for()
    page.locator("#adopt").click()
    page.get_by_text("Calibration adopted as policy version 2").wait_for()
    assert current_version(tenant) == 2
    assert current_document(tenant).threshold < 0.99
    assert PolicyChange.objects.get(tenant=tenant, version=2).source == "calibration"
    assert page.get_by_role("button", name="Restore version 1").is_visible()

    # and the previous version is restorable
    page.get_by_role("button", name="Restore version 1").click()
    page.get_by_text("Version 1 restored as version 3.").wait_for()
    assert current_document(tenant).threshold == 0.99
