"""The history's Status filter matches its column (job state and result), inverted date
ranges and pages that do not exist are reported, not silently replaced."""

from __future__ import annotations

import pytest
from django.urls import reverse

from .conftest import make_job


@pytest.fixture
def jobs(tenant_a, tenant_b):
    tenant = tenant_a.tenant
    return {
        "hallucination": make_job(tenant, detected=True),
        "grounded": make_job(tenant, detected=False),
        "unverifiable": make_job(tenant, detected=None, verification_status="unverifiable"),
        "skipped": make_job(tenant, detected=None, verification_status="skipped"),
        "running": make_job(tenant, status="running", detected=None, verification_status=""),
        "failed": make_job(tenant, status="failed", detected=None, verification_status=""),
        "other": make_job(tenant_b.tenant, detected=True),  # another tenant's, never listed
    }


@pytest.fixture
def owner_client(client, owner_a):
    client.force_login(owner_a)
    return client


def _listed(client, **params):
    response = client.get(reverse("dashboard:history"), params)
    return response, list(response.context["page"].object_list)


@pytest.mark.parametrize(
    "value", ["hallucination", "grounded", "unverifiable", "skipped", "running", "failed"]
)
def test_the_status_filter_offers_what_the_column_shows(owner_client, jobs, value):
    response, rows = _listed(owner_client, status=value)
    assert rows == [jobs[value]]
    body = response.content.decode()
    assert f'<option value="{value}" selected>' in body


def test_the_status_filter_groups_job_states_and_results(owner_client, jobs):
    body = owner_client.get(reverse("dashboard:history")).content.decode()
    assert '<optgroup label="Job status">' in body
    assert '<optgroup label="Result (completed)">' in body


def test_completed_still_lists_every_result(owner_client, jobs):
    _, rows = _listed(owner_client, status="completed")
    assert len(rows) == 4


def test_an_inverted_date_range_is_a_form_error(owner_client, jobs):
    response, rows = _listed(owner_client, start="2026-03-10", end="2026-03-01")
    assert "must not be before the start date" in response.content.decode()
    assert "end" in response.context["form"].errors
    assert len(rows) == 6  # the end filter is dropped; the start one still applies (all newer)


def test_a_date_out_of_range_is_a_form_error_not_a_500(owner_client, jobs):
    response, rows = _listed(owner_client, end="9999-12-31")
    assert response.status_code == 200
    assert "end" in response.context["form"].errors
    assert len(rows) == 6


@pytest.mark.parametrize("raw", ["999", "0", "-1", "abc"])
def test_a_page_that_does_not_exist_shows_page_one_and_says_so(
    owner_client, tenant_a, raw, settings
):
    for _ in range(30):
        make_job(tenant_a.tenant)
    response = owner_client.get(reverse("dashboard:history"), {"page": raw})
    assert response.context["page"].number == 1
    assert "showing page 1" in response.content.decode()


def test_a_page_that_exists_has_no_warning(owner_client, tenant_a):
    for _ in range(30):
        make_job(tenant_a.tenant)
    response = owner_client.get(reverse("dashboard:history"), {"page": "2"})
    assert response.context["page"].number == 2
    assert "showing page 1" not in response.content.decode()


def test_the_delivery_log_reports_a_page_that_does_not_exist(owner_client, delivery_a):
    response = owner_client.get(reverse("dashboard:webhooks"), {"page": "50"})
    assert response.context["page"].number == 1
    assert "There is no page 50 (pages 1 to 1)" in response.content.decode()


def test_the_mode_query_type_and_decision_filters_read_the_jobs_plan(owner_client, tenant_a):
    # given: jobs that differ by one key of their plan each
    tenant = tenant_a.tenant
    base = make_job(tenant)
    premium = make_job(tenant, mode="premium")
    summary = make_job(tenant, query_type="summarization")
    strict = make_job(tenant, decision="strict")
    queued = make_job(tenant, status="queued")
    type(queued).objects.filter(pk=queued.pk).update(plan=None)  # not planned yet
    # when / then
    assert _listed(owner_client, mode="premium")[1] == [premium]
    assert _listed(owner_client, query_type="summarization")[1] == [summary]
    assert _listed(owner_client, decision="strict")[1] == [strict]
    lightweight = _listed(owner_client, mode="lightweight")[1]
    assert set(lightweight) == {base, summary, strict}
    assert queued not in lightweight
