"""Billing through the API, reconciled with the upstream provider's own request log.

A tenant calls models through its own provider key (a local OpenAI-compatible
server that logs what it served): those calls are the tenant's provider cost,
shown for information and never billed; a provider's price override prices only
the models litellm has no price for; a premium request with nothing to fix is
billed as the detection it ran. The billing report (API JSON and dashboard page),
the overview card and the CSV agree with the upstream's log to the cent.
"""

from __future__ import annotations

import csv
import io
import json
import re
from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.urls import reverse

from tenants.models import Plan, Policy
from tests.fixtures.fake_llm import Reply
from verification.actions.claim import claim
from verification.actions.stages import claim_mitigation
from verification.billing.report import current_month
from verification.billing.usage import Costs, price_for
from verification.models import LLMCallRecord, UsageRecord, VerificationJob
from verification.stages import mitigate as mitigate_stage
from verification.stages.detect import process_jobs

pytestmark = pytest.mark.django_db

RIGHT = "The Eiffel Tower was built from 1887 to 1889."
#: litellm's own price of gpt-4o-mini (USD per 1M tokens), and the provider's override.
LITELLM_MINI = (Decimal("0.15"), Decimal("0.6"))
OVERRIDE = (Decimal("1.5"), Decimal("6"))
PRICES = {"lightweight": "0.002", "standard": "0.01", "premium": "0.03"}
CENT = Decimal("0.01")


def _setup(client, tenant, fake_llm) -> None:
    tenant.plan = Plan.objects.create(
        name="pro", price_per_verification=PRICES, llm_markup=Decimal("1.3")
    )
    tenant.save()
    provider = {
        "name": "Acme OpenAI",
        "model_prefix": "openai/",
        "model_names": ["gpt-4o-mini", "custom-judge"],
        "api_base": fake_llm.api_base,
        "api_key": "sk-acme-own",
        "max_retries": 0,
        "price_table": {
            "gpt-4o-mini": {"input": 1.5, "output": 6},
            "custom-judge": {"input": 1.5, "output": 6},
        },
    }
    assert client.post("/v1/llm-providers", provider, format="json").status_code == 201
    Policy.objects.create(
        tenant=tenant,
        document={
            "allowed_modes": ["lightweight", "standard", "premium"],
            "default_mode": "premium",
            "premium": {
                "verification_models": ["openai/gpt-4o-mini"],
                "judge_model": "openai/custom-judge",
            },
        },
    )

    def responder(body):
        if body["model"] == "gpt-4o-mini":
            return Reply(content=RIGHT, prompt_tokens=1234, completion_tokens=157)
        ids = re.findall(r'"id":\s*(\d+)', body["messages"][-1]["content"]) or ["0"]
        verdicts = [{"id": int(i), "action": "replace", "replacement": RIGHT} for i in ids]
        return Reply(
            content=json.dumps({"decisions": verdicts}), prompt_tokens=911, completion_tokens=83
        )

    fake_llm.reset()
    fake_llm.responder = responder


def _run(client, body) -> VerificationJob:
    response = client.post("/v1/verifications", body, format="json")
    assert response.status_code == 202, response.json()
    job_id = VerificationJob.parse_public_id(response.json()["id"])
    process_jobs([claim(job_id)])
    job = VerificationJob.objects.get(pk=job_id)
    if job.stage == "mitigate":
        assert mitigate_stage.run(claim_mitigation(job_id))
    return VerificationJob.objects.get(pk=job_id)


def _upstream_cost(log: list[dict]) -> Decimal:
    """What the provider charges for what it served, from its own log."""
    total = Decimal(0)
    for entry in log:
        p_in, p_out = LITELLM_MINI if entry["model"] == "gpt-4o-mini" else OVERRIDE
        total += (entry["prompt_tokens"] * p_in + entry["completion_tokens"] * p_out) / 10**6
    return total


def _dollars(text: str) -> Decimal:
    return Decimal(text.replace("$", "").replace(",", ""))


def _cents(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def test_own_key_calls_are_reported_never_billed_and_every_view_agrees_with_upstream(
    client, owner_a, tenant_a, client_a, fake_llm, eiffel
):
    # given a premium policy on the tenant's own provider key, gpt-4o-mini (known to
    # litellm) and a custom judge model, with a provider-wide price override
    _setup(client_a, tenant_a.tenant, fake_llm)

    # when one flagged answer and one correct answer are verified
    flagged = _run(client_a, eiffel.request())
    correct = _run(client_a, {"context": eiffel.context, "response": RIGHT})

    # then the upstream served the premium job's calls, and the correct answer made none
    log = list(fake_llm.usage_log)
    assert {e["model"] for e in log} == {"gpt-4o-mini", "custom-judge"}
    upstream = _upstream_cost(log)
    calls = LLMCallRecord.objects.filter(job=flagged)
    assert calls.count() == len(log)
    assert all(c.own_key for c in calls)
    assert not LLMCallRecord.objects.filter(job=correct).exists()
    # gpt-4o-mini at litellm's price, the override only for the model litellm does not know
    mini = calls.get(model="openai/gpt-4o-mini")
    assert mini.cost_usd == Decimal("0.00027930")  # 1234 x 0.15 + 157 x 0.6 per 1M

    flagged_usage, correct_usage = (UsageRecord.objects.get(job=j) for j in (flagged, correct))
    assert (flagged_usage.mode, correct_usage.mode) == ("premium", "lightweight")
    assert flagged_usage.price_usd == Decimal("0.03")  # no pass-through, no markup
    assert correct_usage.price_usd == Decimal("0.002")
    assert flagged_usage.provider_cost_usd == 0
    assert flagged_usage.tenant_provider_cost_usd == upstream.quantize(Decimal("1e-8"))

    # the report (API), the CSV, the dashboard's billing page and overview card agree
    month = current_month()
    report = client_a.get(f"/v1/billing/reports/{month}").json()
    rows = list(
        csv.DictReader(
            io.StringIO(client_a.get(f"/v1/billing/reports/{month}?format=csv").content.decode())
        )
    )
    total = next(r for r in rows if r["section"] == "total")
    client.force_login(owner_a)
    billing_page = client.get(reverse("dashboard:billing")).content.decode()
    overview = client.get(reverse("dashboard:overview")).content.decode()

    def shown(page: str, element_id: str) -> Decimal:
        return _dollars(re.search(rf'id="{element_id}">([^<]+)<', page).group(1))

    billed = Decimal("0.032")
    for price in (
        Decimal(report["price_usd"]),
        Decimal(total["price_usd"]),
        shown(billing_page, "amount-due"),
        shown(overview, "billed"),
    ):
        assert _cents(price) == _cents(billed)
    for tenant_cost in (
        Decimal(report["tenant_provider_cost_usd"]),
        Decimal(total["tenant_provider_cost_usd"]),
        shown(billing_page, "tenant-provider-cost"),
        shown(overview, "tenant-provider-cost"),
    ):
        assert _cents(tenant_cost) == _cents(upstream)
        assert abs(tenant_cost - upstream) < Decimal("1e-8")  # in fact to the 1e-8 dollar
    assert Decimal(report["provider_cost_usd"]) == Decimal(total["provider_cost_usd"]) == 0
    assert shown(overview, "service-provider-cost") == 0
    by_model = {m["model"]: m for m in report["by_model"]}
    for model in ("gpt-4o-mini", "custom-judge"):
        served = [e for e in log if e["model"] == model]
        line = by_model[f"openai/{model}"]
        assert line["calls"] == len(served)
        assert line["prompt_tokens"] == sum(e["prompt_tokens"] for e in served)
        assert Decimal(line["tenant_provider_cost_usd"]) == _upstream_cost(served).quantize(
            Decimal("1e-8")
        )
    print(  # the figures the issue asks for, with -s
        f"\nupstream log: {len(log)} calls, {sum(e['prompt_tokens'] for e in log)}+"
        f"{sum(e['completion_tokens'] for e in log)} tokens, ${upstream}"
        f"\nreport: billed {report['price_usd']}, tenant provider cost "
        f"{report['tenant_provider_cost_usd']}, service provider cost {report['provider_cost_usd']}"
        f"\ncsv total: billed {total['price_usd']}, tenant {total['tenant_provider_cost_usd']}"
        f"\nbilling page: due {shown(billing_page, 'amount-due')}, tenant "
        f"{shown(billing_page, 'tenant-provider-cost')}"
        f"\noverview: billed {shown(overview, 'billed')}, tenant "
        f"{shown(overview, 'tenant-provider-cost')}"
    )


def test_markup_applies_only_to_what_the_service_pays_for(tenant_a, eiffel):
    # given a job with one call the service paid for and one on the tenant's own key
    tenant = tenant_a.tenant
    tenant.plan = Plan.objects.create(
        name="m", price_per_verification=PRICES, llm_markup=Decimal("1.3")
    )
    tenant.save()
    job = VerificationJob.objects.create(
        tenant=tenant, response="x", mode="standard", verification_status="verified"
    )
    costs = Costs(service_llm=Decimal("0.001"), tenant_llm=Decimal("0.5"))
    # then only the service's cost is passed through, with the markup
    assert price_for(job, costs, "standard") == Decimal("0.01") + Decimal("0.0013")
