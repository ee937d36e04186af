"""In Chromium: the overview card, the billing page and its CSV agree with the upstream's
own log; the verification page names each model's calls and shows the diagnostics."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from pathlib import Path

import pytest

from tests.fixtures.fake_llm import Reply
from verification.models import LLMCallRecord

from .test_billing_reconciles import RIGHT, _cents, _dollars, _run, _setup, _upstream_cost
from .test_browser import chromium, page, sign_in  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_tenant_sees_the_same_cents_everywhere_and_why_its_judge_fell_back(
    page,  # noqa: F811
    live_server,
    owner_a,
    tenant_a,
    client_a,
    fake_llm,
    eiffel,
):
    # given a premium job on the tenant's own key whose judge answered with broken JSON
    _setup(client_a, tenant_a.tenant, fake_llm)

    def responder(body):
        if body["model"] == "gpt-4o-mini":
            return Reply(content=RIGHT, prompt_tokens=1234, completion_tokens=157)
        return Reply(content="claim 1 should be {replaced", prompt_tokens=911, completion_tokens=83)

    fake_llm.responder = responder
    job = _run(client_a, eiffel.request())
    _run(client_a, {"context": eiffel.context, "response": RIGHT})
    upstream = _upstream_cost(fake_llm.usage_log)
    billed = Decimal("0.032")  # premium + lightweight; own-key calls are never billed

    sign_in(page, live_server, "owner-a")
    # the overview card
    page.get_by_role("link", name="Overview").click()
    assert _cents(_dollars(page.locator("#billed").inner_text())) == _cents(billed)
    shown = _dollars(page.locator("#tenant-provider-cost").inner_text())
    assert abs(shown - upstream) < Decimal("1e-8")
    # the billing page and its CSV
    page.get_by_role("link", name="Usage & billing").click()
    assert _cents(_dollars(page.locator("#amount-due").inner_text())) == _cents(billed)
    shown = _dollars(page.locator("#tenant-provider-cost").inner_text())
    assert abs(shown - upstream) < Decimal("1e-8")
    with page.expect_download() as info:
        page.get_by_role("link", name="Download CSV").click()
    rows = csv.DictReader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8")))
    total = next(r for r in rows if r["section"] == "total")
    assert _cents(Decimal(total["price_usd"])) == _cents(billed)
    assert abs(Decimal(total["tenant_provider_cost_usd"]) - upstream) < Decimal("1e-8")

    # the verification page: each model's own calls, and the diagnostics block
    page.goto(f"{live_server.url}/dashboard/verifications/{job.public_id}/")
    counts: dict[str, int] = {}
    for el in page.locator("[data-calls]").all():
        counts[el.inner_text()] = counts.get(el.inner_text(), 0) + int(
            el.get_attribute("data-calls")
        )
    recorded: dict[str, int] = {}
    for model in LLMCallRecord.objects.filter(job=job).values_list("model", flat=True):
        recorded[model] = recorded.get(model, 0) + 1
    assert counts == recorded
    assert set(counts) == {"openai/gpt-4o-mini", "openai/custom-judge"}
    diagnostics = page.locator("ul.diagnostics").inner_text()
    assert "not usable JSON" in diagnostics
    # and nothing internal is shown where the end user's warning is
    for notice in page.locator(".notice").all():
        assert "usable JSON" not in notice.inner_text()
