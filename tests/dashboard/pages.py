"""Every dashboard page (GET), filled with data that stresses the layout: long URLs, long
queries, many columns, long policy diff lines. Shared by the accessibility checks and the
browser layout check."""

from __future__ import annotations

from django.urls import reverse

from dashboard.policy.actions import current_document, save_policy
from knowledge.models import Document, KnowledgeBase
from tenants.models import Membership, WebhookEndpoint
from tenants.provider_actions import save_provider
from tenants.request_log import RequestLogEntry
from verification.models import MitigationStep, WebhookAttempt, WebhookDelivery

from .conftest import add_span, add_usage, make_job

LONG = "a-very-long-path-segment-without-any-break-" * 6


def fill(tenant, user) -> dict[str, str]:
    """Data on every page of `tenant`; returns {name: url} of every GET page."""
    jobs = []
    for i in range(30):
        job = make_job(
            tenant,
            query=f"Question {i}: " + "when was the tower built and how tall is it " * 4,
            decision="a-decision-with-a-long-name",
            query_type="factual_qa",
            coverage={
                "answer_truncated": i == 0,
                "answer_tokens_given": 1140,
                "answer_tokens_checked": 385,
                "answer_chars_checked": 20,
            },
        )
        add_span(job)
        add_usage(job)
        jobs.append(job)
    endpoint = WebhookEndpoint(tenant=tenant, url=f"https://hooks.example.com/{LONG}")
    endpoint.set_new_secret()
    endpoint.save()
    delivery = WebhookDelivery.objects.create(
        tenant=tenant,
        job=jobs[0],
        endpoint=endpoint,
        url=endpoint.url,
        event_id="evt_" + "f" * 24,
        event_type="verification.completed",
        payload={"id": "evt_x", "data": {"long": LONG * 3}},
        status=WebhookDelivery.FAILED,
        attempts=1,
        last_status_code=500,
    )
    WebhookAttempt.objects.create(
        delivery=delivery, number=1, status_code=500, duration_ms=12, response_body=LONG * 4
    )
    document = current_document(tenant)
    document = document.model_copy(update={"warning_template": "Careful: " + LONG * 4})
    save_policy(tenant, user, document, "editor")
    kb = KnowledgeBase.objects.create(tenant=tenant, name=("Handbook " + LONG)[:100])
    doc = Document.objects.create(
        tenant=tenant,
        knowledge_base=kb,
        name=(LONG + ".txt")[-200:],
        content_type="text/plain",
        size_bytes=10,
        sha256="",
        raw=b"x",
        text="The Eiffel Tower is in Paris. " + LONG * 10,
        status="ready",
    )
    save_provider(
        tenant,
        {
            "name": "A provider with a rather long name for the table",
            "model_prefix": "openai/",
            "model_names": [f"a-very-long-model-name-for-the-layout-check-{i}" for i in range(3)],
            "api_base": "https://llm.example.com/" + "v1/" * 30,
            "api_key": "sk-x",
        },
    )
    premium = premium_job(tenant)
    for status in (200, 400):
        RequestLogEntry.objects.create(
            tenant=tenant,
            key_prefix="abcd1234",
            method="POST",
            path=f"/v1/verifications/{LONG}"[:300],
            status=status,
            latency_ms=1234,
            request_id="f" * 32,
            problem={"type": "https://truthlens.dev/problems/validation-error", "detail": LONG}
            if status == 400
            else None,
        )
    return {
        "overview": reverse("dashboard:overview"),
        "request-log": reverse("dashboard:request-log"),
        "llm-providers": reverse("dashboard:llm-providers"),
        "members": reverse("dashboard:members"),
        "audit-log": reverse("dashboard:audit-log"),
        "setup": reverse("dashboard:setup"),
        "history": reverse("dashboard:history"),
        "detail": reverse("dashboard:verification", args=[jobs[0].public_id]),
        "detail-premium": reverse("dashboard:verification", args=[premium.public_id]),
        "policy": reverse("dashboard:policy"),
        "policy-history": reverse("dashboard:policy-history"),
        "policy-import": reverse("dashboard:policy-import"),
        "policy-test": reverse("dashboard:policy-test"),
        "modes": reverse("dashboard:modes"),
        "knowledge": reverse("dashboard:knowledge"),
        "knowledge-base": reverse("dashboard:knowledge-base", args=[kb.public_id]),
        "knowledge-document": reverse(
            "dashboard:knowledge-document", args=[kb.public_id, doc.public_id]
        ),
        "keys": reverse("dashboard:keys"),
        "webhooks": reverse("dashboard:webhooks"),
        "delivery": reverse("dashboard:delivery", args=[delivery.pk]),
        "billing": reverse("dashboard:billing"),
        "revenue": reverse("dashboard:revenue"),
    }


def premium_job(tenant):
    """A premium verification with second opinions and judge decisions, long model names
    and long edits: the tables the detail page draws only for premium."""
    job = make_job(tenant, mode="premium")
    add_span(job)
    call = {
        "model": "anthropic/claude-3-5-haiku-20241022-with-a-long-deployment-name",
        "role": "verify",
        "prompt_tokens": 123456,
        "completion_tokens": 7890,
        "cost_usd": 0.0013,
        "latency_ms": 900.0,
        "error": None,
    }
    MitigationStep.objects.create(
        job=job, index=1, kind="refine", text=job.response, score=0.1,
        detail={"note": "judge", "calls": [call, {**call, "error": "timeout " + LONG}]},
    )  # fmt: skip
    change = {
        "kind": "replaced",
        "start": 0,
        "end": 4,
        "before": "in 1950 " + LONG,
        "after": "from 1887 to 1889 " + LONG,
        "reason": "the context dates it " + LONG,
        "tier": "judge",
    }
    MitigationStep.objects.create(
        job=job, index=2, kind="judge", text=job.response, score=0.1,
        detail={"changes": [change], "stop_reason": "resolved", "warnings": [LONG]},
    )  # fmt: skip
    add_usage(
        job,
        per_model={
            call["model"]: {"calls": 2, "prompt_tokens": 9, "completion_tokens": 9},
            "openai/judge-" + LONG[:60]: {"calls": 1},
        },
    )
    return job


def staff_owner(tenant, make_user) -> object:
    """A staff user who owns `tenant`: sees every page, revenue included."""
    user = make_user("staff-owner", staff=True)
    Membership.objects.create(user=user, tenant=tenant, role=Membership.OWNER)
    return user
