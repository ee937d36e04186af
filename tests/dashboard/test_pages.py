"""Pages render the tenant's data: overview numbers, history filters, detail highlights, keys, webhooks."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from dashboard.daterange import DateRange
from dashboard.overview_stats import overview
from dashboard.posterior import summary
from tenants.keys import hash_secret, parse_key
from tenants.models import ApiKey, WebhookEndpoint
from verification.models import UsageRecord, VerificationJob, WebhookDelivery

from .conftest import add_span, add_usage, make_job

pytestmark = pytest.mark.django_db


def test_overview_numbers(tenant_a, tenant_b):
    tenant = tenant_a.tenant
    today = timezone.now()
    for i, (score, detected, mode, total) in enumerate(
        [
            (0.9, True, "lightweight", 10),
            (0.1, False, "lightweight", 30),
            (0.7, True, "standard", 1000),
            (0.05, False, "standard", 2000),
        ]
    ):
        job = make_job(
            tenant,
            score=score,
            detected=detected,
            mode=mode,
            latency_ms={"total": total},
            created_at=today - dt.timedelta(days=i),
            decision="default" if i % 2 else "medical",
        )
        add_usage(job, created_at=job.created_at)
    make_job(tenant_b.tenant, score=0.99, detected=True)  # another tenant's job never counts
    period = DateRange(today.date() - dt.timedelta(days=6), today.date())
    stats = overview(
        VerificationJob.objects.filter(tenant=tenant),
        UsageRecord.objects.filter(tenant=tenant),
        period,
    )
    assert stats.total == 4
    assert stats.detected == 2
    assert stats.detection_rate == 0.5
    assert stats.score_bins == [1, 1, 0, 0, 0, 0, 0, 1, 0, 1]
    latency = {r["mode"]: r for r in stats.latency_by_mode}
    assert latency["lightweight"]["p50"] == 20
    assert latency["standard"]["p95"] == 1950
    assert sum(d["total"] for d in stats.per_day) == 4
    assert len(stats.per_day) == 7
    assert [d["detected"] for d in stats.per_day][-4:] == [0, 1, 0, 1]  # oldest first
    assert [d["price"] for d in stats.cost_per_day] == [0, 0, 0] + [0.00106] * 4
    charts = stats.charts()
    assert charts["decisions"]["labels"] == [r["name"] for r in stats.by_decision]
    assert sorted(charts["queryTypes"]["detected"]) == [2]
    assert {r["name"]: r["total"] for r in stats.by_decision} == {"default": 2, "medical": 2}
    assert round(stats.revenue, 5) == round(4 * 0.00106, 5)


def test_overview_page_and_date_range(client, owner_a, job_a):
    client.force_login(owner_a)
    response = client.get(reverse("dashboard:overview"), {"days": "7"})
    assert response.status_code == 200
    assert response.context["stats"].total == 1
    assert b'id="chart-data"' in response.content
    assert b"chart-4.6.1.umd.min.js" in response.content
    assert b"cdn" not in response.content.lower()
    old = client.get(reverse("dashboard:overview"), {"start": "2020-01-01", "end": "2020-01-31"})
    assert old.context["stats"].total == 0
    assert b"No verifications in this period" in old.content
    bad = client.get(reverse("dashboard:overview"), {"start": "2020-02-01", "end": "2020-01-01"})
    assert bad.status_code == 200
    assert b"must not be after" in bad.content
    # the highlighted quick range is the one in force
    assert response.context["active_preset"] == "7"
    assert old.context["active_preset"] == ""
    assert bad.context["active_preset"] == "30"  # an invalid range falls back to 30 days
    end_only = client.get(reverse("dashboard:overview"), {"end": "2020-01-31"})
    assert end_only.context["period"].end.isoformat() == "2020-01-31"
    assert end_only.context["active_preset"] == ""


def test_history_filters_and_paginates_without_n_plus_one(
    client, owner_a, tenant_a, django_assert_max_num_queries
):
    tenant = tenant_a.tenant
    for i in range(30):
        job = make_job(
            tenant,
            score=i / 30,
            detected=i >= 15,
            mode="standard" if i % 3 == 0 else "lightweight",
            query=f"question number {i}",
        )
        add_span(job)
        add_span(job, text="330 metres", label="unsupported", confidence=0.6)
    client.force_login(owner_a)
    with django_assert_max_num_queries(8):
        page = client.get(reverse("dashboard:history"))
    assert page.status_code == 200
    rows = page.context["page"].object_list
    assert len(rows) == 25
    assert all(r.span_count == 2 for r in rows)
    assert page.context["page"].paginator.count == 30
    second = client.get(reverse("dashboard:history"), {"page": 2})
    assert len(second.context["page"].object_list) == 5
    filtered = client.get(reverse("dashboard:history"), {"detected": "yes", "mode": "standard"})
    assert filtered.context["page"].paginator.count == 5
    searched = client.get(reverse("dashboard:history"), {"q": "number 7"})
    assert searched.context["page"].paginator.count == 1
    one = VerificationJob.objects.filter(tenant=tenant).first()
    by_id = client.get(reverse("dashboard:history"), {"q": one.public_id})
    assert list(by_id.context["page"].object_list) == [one]


def test_history_filters_by_each_field_and_ignores_only_the_invalid_one(
    client, owner_a, tenant_a, tenant_b
):
    tenant = tenant_a.tenant
    old = make_job(
        tenant,
        score=0.2,
        detected=False,
        status="failed",
        decision="medical",
        query_type="summarization",
        latency_ms={},
        created_at=timezone.now() - dt.timedelta(days=40),
    )
    new = make_job(tenant, score=0.8)
    make_job(tenant_b.tenant, score=0.9)  # never listed
    client.force_login(owner_a)

    def listed(**params):
        response = client.get(reverse("dashboard:history"), params)
        return response, list(response.context["page"].object_list)

    response, rows = listed()
    assert rows == [new, old]
    body = response.content.decode()
    assert '<td class="num">35 ms</td>' in body  # latency
    assert '<td class="num">—</td>' in body
    assert listed(status="failed")[1] == [old]
    assert listed(detected="no")[1] == [old]
    assert listed(query_type="summarization")[1] == [old]
    assert listed(decision="medical")[1] == [old]
    assert listed(min_score="0.5")[1] == [new]
    cutoff = (timezone.now() - dt.timedelta(days=10)).date().isoformat()
    assert listed(start=cutoff)[1] == [new]
    assert listed(end=cutoff)[1] == [old]
    # an invalid value is reported on its field; the valid filters still apply
    response, rows = listed(min_score="5", decision="medical")
    assert rows == [old]
    assert "min_score" in response.context["form"].errors


def test_detail_highlights_spans_with_label_and_confidence(client, owner_a, job_a):
    add_span(job_a, text="330 metres", label="unsupported", confidence=0.61)
    client.force_login(owner_a)
    body = client.get(
        reverse("dashboard:verification", kwargs={"public_id": job_a.public_id})
    ).content.decode()
    assert 'class="span contradiction"' in body
    assert 'data-confidence="0.97"' in body
    assert '>1950<sup aria-hidden="true">1</sup>' in body
    assert 'class="span unsupported"' in body
    assert "unsupported · 0.61 confidence" in body
    assert '<mark class="evidence"' in body
    assert "built from 1887 to 1889" in body
    assert "Lightweight mode adds a warning" in body  # honest empty state for iterations
    assert "Only premium mode asks a second model" in body


def test_detail_numbers_only_the_spans_of_the_customers_answer(client, owner_a, job_a):
    add_span(job_a, text="330 metres", label="unsupported", iteration=1)  # a refinement's span
    add_span(job_a, text="Eiffel Tower", label="unsupported", confidence=0.55)
    client.force_login(owner_a)
    response = client.get(reverse("dashboard:verification", kwargs={"public_id": job_a.public_id}))
    spans = response.context["spans"]
    assert [(s.text, s.number) for s in spans] == [("Eiffel Tower", 1), ("1950", 2)]
    marked = [seg.mark.number for seg in response.context["answer"] if seg.mark]
    assert marked == [1, 2]
    assert "330 metres<sup" not in response.content.decode()
    stages = [(s["name"], s["ms"]) for s in response.context["stages"]]
    assert stages == [("queue", 4), ("detect", 31)]
    assert response.context["latency_total"] == 35


def test_detail_escapes_hostile_text(client, owner_a, tenant_a):
    job = make_job(
        tenant_a.tenant, response="<script>alert(1)</script> built in 1950", context=["<img src=x>"]
    )
    add_span(job)
    client.force_login(owner_a)
    body = client.get(
        reverse("dashboard:verification", kwargs={"public_id": job.public_id})
    ).content.decode()
    assert "<script>alert(1)</script>" not in body
    assert "&lt;script&gt;" in body
    assert "<img src=x>" not in body


def test_feedback_from_the_detail_page(client, owner_a, job_a):
    client.force_login(owner_a)
    url = reverse("dashboard:verification", kwargs={"public_id": job_a.public_id})
    response = client.post(url, {"outcome": "correct", "comment": "fine actually"})
    assert response.status_code == 302
    assert job_a.feedback.get().comment == "fine actually"
    assert b"fine actually" in client.get(url).content


def test_unknown_or_malformed_verification_ids_are_404(client, owner_a):
    client.force_login(owner_a)
    for bad in ("ver_00000000000000000000000000000000", "ver_nothex", "nope"):
        assert (
            client.get(reverse("dashboard:verification", kwargs={"public_id": bad})).status_code
            == 404
        )


def test_key_is_shown_once_and_works_then_revoked(client, owner_a, tenant_a):
    client.force_login(owner_a)
    posted = client.post(reverse("dashboard:keys"), {"name": "ci", "scope": "read"})
    assert posted.status_code == 303
    assert posted["Location"] == reverse("dashboard:keys")
    response = client.get(posted["Location"])
    assert response["Cache-Control"] == "no-store"
    token = response.context["token"]
    key = ApiKey.objects.get(tenant=tenant_a.tenant, name="ci")
    parsed = parse_key(token)
    assert parsed is not None
    assert key.secret_hash == hash_secret(parsed[1])
    assert key.scope == "read"
    listing = client.get(reverse("dashboard:keys")).content.decode()
    assert token not in listing
    assert f"tl_{key.prefix}_" in listing
    client.post(reverse("dashboard:key-revoke", kwargs={"pk": key.pk}))
    key.refresh_from_db()
    assert key.revoked_at is not None


def test_webhook_endpoint_secret_rotation_and_replay(client, owner_a, delivery_a, settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "WEBHOOK_ALLOWED_HOSTS": ["127.0.0.1"]}
    client.force_login(owner_a)
    endpoint = delivery_a.endpoint
    old = endpoint.secret
    response = client.post(
        reverse("dashboard:endpoint-rotate", kwargs={"pk": endpoint.pk}), follow=True
    )
    endpoint.refresh_from_db()
    assert endpoint.secret != old
    assert endpoint.secret in response.content.decode()
    assert response["Cache-Control"] == "no-store"
    page = client.get(reverse("dashboard:webhooks")).content.decode()
    assert delivery_a.event_id in page
    assert ">500<" in page
    assert endpoint.secret not in page
    response = client.post(reverse("dashboard:delivery-replay", kwargs={"pk": delivery_a.pk}))
    copy = WebhookDelivery.objects.exclude(pk=delivery_a.pk).get()
    assert copy.payload == delivery_a.payload
    assert copy.url == delivery_a.url
    assert copy.status == "pending"
    assert response["Location"] == reverse("dashboard:delivery", kwargs={"pk": copy.pk})
    detail = client.get(
        reverse("dashboard:delivery", kwargs={"pk": delivery_a.pk})
    ).content.decode()
    assert "evt_test_a" in detail
    assert "12 ms" in detail


def test_callback_url_secret_rotation_shows_the_new_secret_once(client, owner_a, tenant_a):
    tenant = tenant_a.tenant
    old = tenant.webhook_secret
    client.force_login(owner_a)
    response = client.post(reverse("dashboard:tenant-secret-rotate"), follow=True)
    tenant.refresh_from_db()
    assert tenant.webhook_secret
    assert tenant.webhook_secret != old
    assert tenant.webhook_secret in response.content.decode()
    assert "per-request callback URLs" in response.content.decode()
    assert response["Cache-Control"] == "no-store"
    assert tenant.webhook_secret not in client.get(reverse("dashboard:webhooks")).content.decode()


def test_delivery_log_query_count_does_not_grow_with_rows(
    client, owner_a, delivery_a, django_assert_max_num_queries
):
    for n in range(25):
        WebhookDelivery.objects.create(
            tenant=delivery_a.tenant,
            job=delivery_a.job,
            endpoint=delivery_a.endpoint,
            url=delivery_a.url,
            event_id=f"evt_many_{n}",
            event_type="verification.completed",
            payload={},
        )
    client.force_login(owner_a)
    with django_assert_max_num_queries(8):
        response = client.get(reverse("dashboard:webhooks"))
    assert len(response.context["page"].object_list) == 20


def test_webhook_endpoint_create_refuses_internal_addresses(client, owner_a, tenant_a, settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "WEBHOOK_ALLOWED_HOSTS": []}
    client.force_login(owner_a)
    response = client.post(reverse("dashboard:webhooks"), {"url": "http://127.0.0.1:9/hook"})
    assert response.status_code == 200
    assert not WebhookEndpoint.objects.filter(tenant=tenant_a.tenant).exists()
    settings.TRUTHLENS = {**settings.TRUTHLENS, "WEBHOOK_ALLOWED_HOSTS": ["127.0.0.1"]}
    response = client.post(reverse("dashboard:webhooks"), {"url": "http://127.0.0.1:9/hook"})
    assert response.status_code == 303
    endpoint = WebhookEndpoint.objects.get(tenant=tenant_a.tenant)
    assert endpoint.secret in client.get(response["Location"]).content.decode()


def test_modes_page_is_an_honest_empty_state_without_bandit_data(client, owner_a, job_a):
    client.force_login(owner_a)
    response = client.get(reverse("dashboard:modes"))
    assert "No bandit data yet" in response.content.decode()
    # what did run is still shown: job_a's mode, as the policy chose it
    assert response.context["sources"] == [{"mode": "lightweight", "mode_source": "policy", "n": 1}]
    assert "<td>lightweight</td><td>policy</td>" in response.content.decode()


def test_beta_posterior_summary_matches_known_quantiles():
    mean, low, high = summary(3, 7)
    assert mean == pytest.approx(0.3)
    assert low == pytest.approx(0.074855, abs=1e-5)
    assert high == pytest.approx(0.600094, abs=1e-5)
    assert summary(1, 1)[1:] == pytest.approx((0.025, 0.975), abs=1e-6)


def test_detail_page_query_count_does_not_grow_with_spans_or_steps(
    client, owner_a, tenant_a, django_assert_max_num_queries
):
    from verification.models import MitigationStep

    job = make_job(tenant_a.tenant, mode="standard")
    for _ in range(6):
        add_span(job)
    for index in range(4):
        MitigationStep.objects.create(
            job=job, index=index, kind="refine", text=job.response, score=0.5
        )
    client.force_login(owner_a)
    with django_assert_max_num_queries(12):
        response = client.get(
            reverse("dashboard:verification", kwargs={"public_id": job.public_id})
        )
    assert response.status_code == 200
    assert len(response.context["mitigation"].iterations) == 4
