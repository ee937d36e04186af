"""Dashboard fixtures: users with each role in tenant A, a member of tenant B, staff, and data."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from tenants.models import Membership, Plan, WebhookEndpoint
from tests.fixtures.examples import EIFFEL
from verification.models import (
    DetectedSpan,
    UsageRecord,
    VerificationJob,
    WebhookAttempt,
    WebhookDelivery,
)

PASSWORD = "correct-horse-battery-staple"  # test users only

ANSWER = EIFFEL.response
CONTEXT = list(EIFFEL.context)


def make_user(username: str, *, staff: bool = False):
    return get_user_model().objects.create_user(
        username=username, email=f"{username}@example.com", password=PASSWORD, is_staff=staff
    )


def member(tenant, username: str, role: str):
    user = make_user(username)
    Membership.objects.create(user=user, tenant=tenant, role=role)
    return user


@pytest.fixture
def owner_a(tenant_a):
    return member(tenant_a.tenant, "owner-a", Membership.OWNER)


@pytest.fixture
def admin_a(tenant_a):
    return member(tenant_a.tenant, "admin-a", Membership.ADMIN)


@pytest.fixture
def viewer_a(tenant_a):
    return member(tenant_a.tenant, "viewer-a", Membership.VIEWER)


@pytest.fixture
def owner_b(tenant_b):
    return member(tenant_b.tenant, "owner-b", Membership.OWNER)


@pytest.fixture
def staff_user(db):
    return make_user("staff", staff=True)


@pytest.fixture
def plan(db):
    return Plan.objects.create(
        name="growth",
        price_per_verification={"lightweight": 0.001, "standard": 0.004, "premium": 0.02},
        price_per_1k_detector_tokens=Decimal("0.0005"),
        llm_markup=Decimal("1.2"),
    )


def make_job(tenant, **fields) -> VerificationJob:
    values = {
        "tenant": tenant,
        "status": "completed",
        "context": CONTEXT,
        "query": EIFFEL.query,
        "response": ANSWER,
        "query_type": "factual_qa",
        "decision": "default",
        "mode": "lightweight",
        "mode_source": "policy",
        "verification_status": "verified",
        "score": 0.91,
        "threshold": 0.5,
        "detected": True,
        "risk_level": "high",
        "detector": "lexical",
        "detector_tokens": 120,
        "latency_ms": {"queue": 4, "detect": 31, "total": 35},
        "completed_at": timezone.now(),
    }
    values.update(fields)
    return VerificationJob.objects.create(**values)


def add_span(
    job, text: str = "1950", label: str = "contradiction", confidence: float = 0.97, **fields
):
    start = job.response.index(text)
    return DetectedSpan.objects.create(
        job=job,
        start=start,
        end=start + len(text),
        text=text,
        confidence=confidence,
        label=label,
        reason="The context gives 1887–1889.",
        evidence="built from 1887 to 1889",
        evidence_passage=0,
        evidence_start=CONTEXT[0].index("built from"),
        evidence_end=CONTEXT[0].index("built from") + len("built from 1887 to 1889"),
        **fields,
    )


def add_usage(job, *, created_at=None, **fields) -> UsageRecord:
    values = {
        "job": job,
        "tenant": job.tenant,
        "mode": job.mode,
        "detector_tokens": job.detector_tokens,
        "provider_cost_usd": Decimal("0"),
        "price_usd": Decimal("0.00106"),
        "created_at": created_at or timezone.now(),
    }
    values.update(fields)
    return UsageRecord.objects.create(**values)


@pytest.fixture
def job_a(tenant_a):
    job = make_job(tenant_a.tenant)
    add_span(job)
    add_usage(job)
    return job


@pytest.fixture
def endpoint_a(tenant_a):
    endpoint = WebhookEndpoint(tenant=tenant_a.tenant, url="https://hooks.example.com/tl")
    endpoint.set_new_secret()
    endpoint.save()
    return endpoint


@pytest.fixture
def delivery_a(job_a, endpoint_a):
    delivery = WebhookDelivery.objects.create(
        tenant=job_a.tenant,
        job=job_a,
        endpoint=endpoint_a,
        url=endpoint_a.url,
        event_id="evt_test_a",
        event_type="verification.completed",
        payload={"id": "evt_test_a"},
        status=WebhookDelivery.FAILED,
        attempts=1,
        last_status_code=500,
    )
    WebhookAttempt.objects.create(delivery=delivery, number=1, status_code=500, duration_ms=12)
    return delivery


def month_of(when: dt.datetime) -> str:
    return f"{when.year:04d}-{when.month:02d}"


def pytest_configure(config):
    # Registered here so `--strict-markers` accepts it (select with `-m browser`).
    config.addinivalue_line("markers", "browser: drives headless Chromium against live_server")


@pytest.fixture
def providers_a(tenant_a):
    """Tenant A's LLM providers, serving the models the policy tests name (a policy may
    only name models the tenant can call, and make premium its mode only with an LLM)."""
    from tenants.provider_actions import save_provider

    for name, prefix, models in (
        ("OpenAI", "openai/", ["gpt-4o", "gpt-4o-mini"]),
        ("Anthropic", "anthropic/", ["claude-3-5-haiku", "claude-3-5-haiku-20241022"]),
    ):
        save_provider(
            tenant_a.tenant,
            {"name": name, "model_prefix": prefix, "model_names": models, "api_key": "sk-x"},
        )
    # and the knowledge base they name as the default (a policy may name only its own)
    from knowledge.models import KnowledgeBase

    KnowledgeBase.objects.get_or_create(tenant=tenant_a.tenant, name="Handbook")
