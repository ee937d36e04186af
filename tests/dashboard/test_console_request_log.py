"""The API request log: one INSERT per authenticated request, failures keep their
problem+json body, searchable by request id, trimmed by count and retention, and a
tenant sees only its own requests."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tenants.request_log import RequestLogEntry, trim
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

PAGE = "/dashboard/requests/"


def test_each_api_request_is_one_insert_with_its_fields(tenant_a):
    api = client_for(tenant_a.token)
    with CaptureQueriesContext(connection) as queries:
        answer = api.get("/v1/verifications", HTTP_X_REQUEST_ID="rid-list-1")
    assert answer.status_code == 200
    table = RequestLogEntry._meta.db_table
    touching = [q["sql"] for q in queries.captured_queries if table in q["sql"]]
    assert len(touching) == 1
    assert touching[0].startswith("INSERT")
    row = RequestLogEntry.objects.get()
    assert (row.tenant_id, row.method, row.path, row.status) == (
        tenant_a.tenant.pk,
        "GET",
        "/v1/verifications",
        200,
    )
    assert row.request_id == "rid-list-1"
    assert row.key_prefix == tenant_a.token.split("_")[1]
    assert row.latency_ms >= 0
    assert row.problem is None


def test_a_failure_keeps_its_problem_body_and_the_page_shows_it(client, owner_a, tenant_a):
    api = client_for(tenant_a.token)
    answer = api.post("/v1/verifications", {"context": ["x"]}, format="json")
    assert answer.status_code == 400
    row = RequestLogEntry.objects.get()
    assert row.status == 400
    assert row.problem["status"] == 400
    assert row.problem["type"].endswith("validation-error")
    assert row.request_id == answer["X-Request-Id"]
    client.force_login(owner_a)
    page = client.get(PAGE, {"request_id": row.request_id})
    html = page.content.decode()
    assert page.status_code == 200
    assert "validation-error" in html
    assert f"Error body of {row.request_id}" in html


def test_unauthenticated_requests_belong_to_no_tenant_and_are_not_logged(tenant_a):
    assert client_for("tl_nothere_wrong").get("/v1/verifications").status_code == 401
    assert not RequestLogEntry.objects.exists()


def test_a_tenant_sees_and_finds_only_its_own_requests(client, owner_a, tenant_a, tenant_b):
    client_for(tenant_a.token).get("/v1/verifications", HTTP_X_REQUEST_ID="rid-a")
    client_for(tenant_b.token).get("/v1/verifications", HTTP_X_REQUEST_ID="rid-b")
    client.force_login(owner_a)
    html = client.get(PAGE).content.decode()
    assert "rid-a" in html
    assert "rid-b" not in html
    found = client.get(PAGE, {"request_id": "rid-b"})
    assert found.status_code == 200
    assert list(found.context["page"].object_list) == []
    assert client.get(PAGE, {"request_id": "rid-a"}).context["page"].paginator.count == 1


def test_search_and_filters_refuse_bad_input_clearly(client, viewer_a, tenant_a):
    client_for(tenant_a.token).get("/v1/verifications", HTTP_X_REQUEST_ID="rid-a")
    client.force_login(viewer_a)  # every member may read it
    bad = client.get(PAGE, {"request_id": "<script>"})
    assert bad.status_code == 400
    assert "letters, digits" in bad.content.decode()
    far = client.get(PAGE, {"page": "999"})
    assert far.status_code == 200
    assert "There is no page 999" in far.content.decode()
    assert far.context["page"].number == 1
    failures = client.get(PAGE, {"outcome": "failed"})
    assert failures.context["page"].paginator.count == 0


def test_trim_keeps_the_newest_rows_per_tenant_within_the_retention(settings, tenant_a, tenant_b):
    settings.TRUTHLENS = {
        **settings.TRUTHLENS,
        "REQUEST_LOG_ROWS": 3,
        "REQUEST_LOG_RETENTION_DAYS": 7,
    }
    now = timezone.now()

    def add(tenant, age_minutes, rid):
        RequestLogEntry.objects.create(
            tenant=tenant,
            method="GET",
            path="/v1/usage",
            status=200,
            latency_ms=3,
            request_id=rid,
            created_at=now - dt.timedelta(minutes=age_minutes),
        )

    for i in range(5):
        add(tenant_a.tenant, i, f"a{i}")
    add(tenant_b.tenant, 0, "b-new")
    add(tenant_b.tenant, 8 * 24 * 60, "b-old")  # past the retention
    assert trim(now) == 3
    assert sorted(RequestLogEntry.objects.values_list("request_id", flat=True)) == [
        "a0",
        "a1",
        "a2",
        "b-new",
    ]


def test_the_page_shows_at_most_the_kept_number_before_trimming(
    client, owner_a, tenant_a, settings
):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "REQUEST_LOG_ROWS": 2}
    api = client_for(tenant_a.token)
    for i in range(3):
        api.get("/v1/verifications", HTTP_X_REQUEST_ID=f"r{i}")
    client.force_login(owner_a)
    page = client.get(PAGE).context["page"]
    assert [r.request_id for r in page.object_list] == ["r2", "r1"]


def test_a_failure_echoing_a_lone_surrogate_is_logged_without_breaking_the_answer(tenant_a):
    api = client_for(tenant_a.token)
    raw = '{"context": ["c"], "response": "r", "metadata": {"\\ud83d": 1}}'
    answer = api.post("/v1/verifications", raw, content_type="application/json")
    assert answer.status_code == 400
    assert client_for(tenant_a.token).get("/v1/verifications").status_code == 200
    failed = RequestLogEntry.objects.get(status=400)
    assert failed.problem["status"] == 400
    assert "\ud83d" not in str(failed.problem)


def test_a_database_outage_logs_one_line_without_a_traceback(tenant_a, monkeypatch, caplog):
    """During a Postgres restart every request would otherwise print a traceback into the
    API's log (the fault test reads that log): the outage is one warning line per request."""
    from django.db import OperationalError

    def down(*args, **kwargs):
        raise OperationalError("the database system is shutting down")

    monkeypatch.setattr(RequestLogEntry, "save", down)  # one row: an INSERT of its own
    monkeypatch.setattr(RequestLogEntry.objects, "bulk_create", down)  # several: one INSERT
    api = client_for(tenant_a.token)
    with caplog.at_level("WARNING", logger="api.request_log"):
        answer = api.get("/v1/verifications")
    assert answer.status_code == 200
    written = [r for r in caplog.records if r.name == "api.request_log"]
    assert len(written) == 1
    assert "database unavailable" in written[0].getMessage()
    assert written[0].exc_info is None
