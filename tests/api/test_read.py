import datetime as dt
from decimal import Decimal

import pytest

from tenants.models import Plan
from verification.models import UsageRecord, VerificationJob

pytestmark = pytest.mark.django_db


def _create(client, payload, **headers):
    response = client.post("/v1/verifications", payload, format="json", **headers)
    assert response.status_code in (200, 202), response.json()
    return response


def test_it_returns_a_job_by_id(client_a, eiffel):
    job_id = _create(client_a, eiffel.request()).json()["id"]
    response = client_a.get(f"/v1/verifications/{job_id}")
    assert response.status_code == 200
    assert response.json()["id"] == job_id
    assert response["X-TruthLens-Detected"] == "unknown"


def test_another_tenants_job_is_not_found_like_a_missing_one(client_a, client_b, eiffel):
    job_id = _create(client_a, eiffel.request()).json()["id"]
    theirs = client_b.get(f"/v1/verifications/{job_id}")
    missing = client_b.get("/v1/verifications/ver_" + "0" * 32)
    garbage = client_b.get("/v1/verifications/nonsense")
    assert theirs.status_code == missing.status_code == garbage.status_code == 404
    assert theirs.json()["detail"] == missing.json()["detail"]


def test_feedback_on_another_tenants_job_is_not_found(client_a, client_b, eiffel):
    job_id = _create(client_a, eiffel.request()).json()["id"]
    response = client_b.post(
        f"/v1/verifications/{job_id}/feedback", {"outcome": "correct"}, format="json"
    )
    assert response.status_code == 404
    ok = client_a.post(
        f"/v1/verifications/{job_id}/feedback", {"outcome": "hallucinated"}, format="json"
    )
    assert ok.status_code == 201


def test_feedback_validates_the_outcome(client_a, eiffel):
    job_id = _create(client_a, eiffel.request()).json()["id"]
    response = client_a.post(
        f"/v1/verifications/{job_id}/feedback", {"outcome": "meh"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "outcome"


def test_the_list_shows_only_own_jobs_with_cursor_pagination(client_a, client_b, eiffel):
    for _ in range(3):
        _create(client_a, eiffel.request())
    _create(client_b, eiffel.request())
    first = client_a.get("/v1/verifications?limit=2").json()
    assert len(first["results"]) == 2
    assert first["next"]
    second = client_a.get(first["next"]).json()
    ids = {r["id"] for r in first["results"] + second["results"]}
    assert len(ids) == 3
    assert client_b.get("/v1/verifications").json()["results"].__len__() == 1


def test_the_list_filters_by_status(client_a, eiffel):
    job_id = _create(client_a, eiffel.request()).json()["id"]
    VerificationJob.objects.filter(pk=VerificationJob.parse_public_id(job_id)).update(
        status="completed"
    )
    _create(client_a, eiffel.request(response="other"))
    done = client_a.get("/v1/verifications?status=completed").json()["results"]
    assert [r["id"] for r in done] == [job_id]
    assert client_a.get("/v1/verifications?status=bogus").status_code == 400


def test_a_repeated_idempotency_key_returns_the_original_job(client_a, eiffel):
    first = _create(client_a, eiffel.request(), HTTP_IDEMPOTENCY_KEY="abc-1")
    second = _create(client_a, eiffel.request(), HTTP_IDEMPOTENCY_KEY="abc-1")
    assert first.json()["id"] == second.json()["id"]
    assert second["Idempotent-Replayed"] == "true"
    assert VerificationJob.objects.count() == 1


def test_an_idempotency_key_reused_with_another_body_is_409(client_a, eiffel):
    _create(client_a, eiffel.request(), HTTP_IDEMPOTENCY_KEY="abc-2")
    response = client_a.post(
        "/v1/verifications",
        eiffel.request(response="different"),
        format="json",
        HTTP_IDEMPOTENCY_KEY="abc-2",
    )
    assert response.status_code == 409
    assert response["Content-Type"] == "application/problem+json"


def test_idempotency_keys_are_per_tenant(client_a, client_b, eiffel):
    a = _create(client_a, eiffel.request(), HTTP_IDEMPOTENCY_KEY="shared")
    b = _create(client_b, eiffel.request(), HTTP_IDEMPOTENCY_KEY="shared")
    assert a.json()["id"] != b.json()["id"]


def test_the_tenant_rate_limit_answers_429_with_retry_after(tenant_a, client_a):
    tenant, _ = tenant_a
    tenant.plan = Plan.objects.create(name="tiny", rate_limit="2/min")
    tenant.save()
    codes = [client_a.get("/v1/verifications").status_code for _ in range(3)]
    assert codes[:2] == [200, 200]
    assert codes[2] == 429
    response = client_a.get("/v1/verifications")
    assert int(response["Retry-After"]) >= 1
    assert response.json()["type"].endswith("/rate-limited")


def test_usage_reports_the_month(client_a):
    now = dt.datetime.now(dt.UTC)
    body = client_a.get("/v1/usage").json()
    assert body["verifications"] == 0
    assert body["month"] == f"{now.year:04d}-{now.month:02d}"
    assert client_a.get("/v1/usage?month=2026-02").json()["month"] == "2026-02"
    assert client_a.get("/v1/usage?month=2026-13").status_code == 400
    # the same month format as /v1/billing/reports/{month}: "2026-2" is not a month
    assert client_a.get("/v1/usage?month=2026-2").status_code == 400
    assert client_a.get("/v1/usage?month=9999-12").status_code == 400  # not a 500


def test_usage_sums_only_the_tenants_records_of_that_month(tenant_a, tenant_b, client_a):
    # given usage of tenant A in February (two modes), in March, and of tenant B in February
    def record(tenant, mode, day, tokens, cost, price):
        job = VerificationJob.objects.create(tenant=tenant, response="x", context=[])
        UsageRecord.objects.create(
            job=job,
            tenant=tenant,
            mode=mode,
            detector_tokens=tokens,
            provider_cost_usd=Decimal(cost),
            price_usd=Decimal(price),
            created_at=dt.datetime(2026, *day, tzinfo=dt.UTC),
        )

    record(tenant_a.tenant, "lightweight", (2, 1), 100, "0.001", "0.002")
    record(tenant_a.tenant, "lightweight", (2, 28), 50, "0.0005", "0.002")
    record(tenant_a.tenant, "premium", (2, 14), 10, "0.01", "0.05")
    record(tenant_a.tenant, "premium", (3, 1), 999, "9", "9")
    record(tenant_b.tenant, "premium", (2, 14), 999, "9", "9")
    # when
    body = client_a.get("/v1/usage?month=2026-02").json()
    # then
    assert body == {
        "month": "2026-02",
        "verifications": 3,
        "detector_tokens": 160,
        "provider_cost_usd": 0.0115,
        "tenant_provider_cost_usd": 0.0,
        "price_usd": 0.054,
        "web_search_queries": 0,
        "web_search_cost_usd": 0.0,
        "by_mode": {
            "lightweight": {
                "verifications": 2,
                "detector_tokens": 150,
                "provider_cost_usd": 0.0015,
                "tenant_provider_cost_usd": 0.0,
                "price_usd": 0.004,
                "web_search_queries": 0,
                "web_search_cost_usd": 0.0,
            },
            "premium": {
                "verifications": 1,
                "detector_tokens": 10,
                "provider_cost_usd": 0.01,
                "tenant_provider_cost_usd": 0.0,
                "price_usd": 0.05,
                "web_search_queries": 0,
                "web_search_cost_usd": 0.0,
            },
        },
    }


def test_date_filters_with_extreme_offsets_are_not_server_errors(client_a):
    # schemathesis found this: Postgres refuses a -21:45 offset that Python accepts
    response = client_a.get("/v1/verifications?created_after=0070-01-07T05%3A40%3A59-21%3A45")
    assert response.status_code == 200


def test_reading_a_job_loads_it_with_its_spans_and_usage_once(
    client_a, eiffel, django_assert_num_queries
):
    job_id = client_a.post("/v1/verifications", eiffel.request(), format="json").json()["id"]
    client_a.get(f"/v1/verifications/{job_id}")  # key's last_used_at is now fresh
    # then: the job, its usage and its spans (each read from the job's own partition, named
    # by the job's month and retention class: `JobsWithDetails`); nothing else but the
    # request log's one insert, in its savepoint (SAVEPOINT, INSERT, RELEASE): the key was
    # read by the first request and is cached for a few seconds (tenants.auth_cache)
    with django_assert_num_queries(6):
        assert client_a.get(f"/v1/verifications/{job_id}").json()["id"] == job_id


def test_feedback_is_stored_with_its_bandit_update_or_not_at_all(client_a, eiffel, monkeypatch):
    from verification import mode_selection
    from verification.models import Feedback

    job_id = _create(client_a, eiffel.request()).json()["id"]

    def broken(job, outcome):
        raise RuntimeError("the arm update failed")

    monkeypatch.setattr(mode_selection, "apply_feedback", broken)
    client_a.raise_request_exception = False
    response = client_a.post(
        f"/v1/verifications/{job_id}/feedback", {"outcome": "correct"}, format="json"
    )
    assert response.status_code == 500
    assert not Feedback.objects.exists()


def test_the_list_filters_by_the_mode_query_type_and_decision_of_the_jobs_plan(tenant_a, client_a):
    # given: jobs that differ by one key of their plan each
    def job(**plan):
        keys = {"mode": "lightweight", "query_type": "factual_qa", "decision": "default", **plan}
        created = VerificationJob.objects.create(
            tenant=tenant_a.tenant, response="x", context=[], **keys
        )
        return created.public_id

    base, premium = job(), job(mode="premium")
    summary, strict = job(query_type="summarization"), job(decision="strict")

    def listed(query):
        return {r["id"] for r in client_a.get(f"/v1/verifications?{query}").json()["results"]}

    # when / then
    assert listed("mode=premium") == {premium}
    assert listed("query_type=summarization") == {summary}
    assert listed("decision=strict") == {strict}
    assert listed("mode=lightweight&decision=default") == {base, summary}
