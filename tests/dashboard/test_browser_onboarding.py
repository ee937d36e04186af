"""Browser walk of a new tenant's onboarding: staff create the tenant, the owner accepts the
mailed invitation, adds an LLM provider and tests it, makes premium the policy's mode, creates
an API key, and a verification runs in premium mode on the tenant's own key.

With `TRUTHLENS_WALKTHROUGH_SHOTS=<folder>` it also saves docs/dashboard.md's walkthrough
screenshots there (`make walkthrough-screenshots`).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from tests.fixtures.fake_llm import Reply
from verification.actions.claim import claim
from verification.actions.stages import claim_mitigation
from verification.models import VerificationJob
from verification.stages import mitigate as mitigate_stage
from verification.stages.detect import process_jobs

from . import test_browser

chromium, page, sign_in = test_browser.chromium, test_browser.page, test_browser.sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a-long-unusual-passphrase-7"
RIGHT = "The Eiffel Tower was built from 1887 to 1889."
SHOTS = os.environ.get("TRUTHLENS_WALKTHROUGH_SHOTS", "")


def _shot(tab, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(Path(SHOTS) / f"onboarding-{name}.png"), full_page=True)


def test_invitation_to_premium_verification_in_the_browser(
    page, chromium, live_server, staff_user, mailoutbox, fake_llm, eiffel
):
    # staff create the tenant and invite its owner
    sign_in(page, live_server, "staff")
    page.goto(f"{live_server.url}/dashboard/tenants/new/")
    page.get_by_label("Name").fill("Acme")
    page.get_by_label("Slug").fill("acme")
    page.get_by_label("Owner's e-mail").fill("boss@acme.test")
    _shot(page, "1-new-tenant")
    page.get_by_role("button", name=re.compile("Create")).click()
    link = re.search(r"(/dashboard/invitations/[^/\s]+/)", mailoutbox[-1].body).group(1)

    context = chromium.new_context(viewport={"width": 1366, "height": 900})
    context.set_default_timeout(15_000)
    owner = context.new_page()
    try:
        # the owner sets a password and lands on the checklist
        owner.goto(f"{live_server.url}{link}")
        owner.get_by_label("New password", exact=True).fill(PASSWORD)
        owner.get_by_label("New password confirmation").fill(PASSWORD)
        owner.get_by_role("button", name="Accept invitation").click()
        owner.wait_for_url(f"{live_server.url}/dashboard/setup/")
        _shot(owner, "2-checklist")

        # adds the provider and tests the connection against the local server
        owner.get_by_role("link", name="LLM providers").first.click()
        owner.get_by_label("Name").fill("Acme OpenAI")
        owner.get_by_label("Models").fill("primary\nverifier\njudge")
        owner.get_by_label("API base URL").fill(fake_llm.api_base)
        owner.get_by_label("API key").fill("sk-acme-own-key")
        owner.get_by_role("button", name="Add provider").click()
        fake_llm.script("ready")
        owner.get_by_role("button", name="Test connection").click()
        owner.get_by_text("answered “ready”").wait_for()
        _shot(owner, "3-provider-tested")

        # makes premium the policy's mode, verifier and judge from the provider
        owner.get_by_role("link", name="Policy", exact=True).click()
        owner.locator("#id_default_mode").select_option("premium")
        owner.locator("#id_premium_verification_models").fill("openai/verifier")
        owner.locator("#id_premium_judge_model").fill("openai/judge")
        _shot(owner, "4-policy-premium")
        owner.get_by_role("button", name=re.compile("^Save")).first.click()
        owner.get_by_text(re.compile("saved", re.I)).first.wait_for()

        # creates an API key, shown once
        owner.get_by_role("link", name="API keys").click()
        owner.get_by_role("button", name="Create key").click()
        token = re.search(r"(tl_[A-Za-z0-9]+_[A-Za-z0-9_\-]+)", owner.content()).group(1)
        _shot(owner, "5-api-key")

        # the application verifies an answer; premium runs on the tenant's own key
        def responder(body):
            if body["model"] == "verifier":
                return Reply(content=RIGHT)
            ids = re.findall(r'"id":\s*(\d+)', body["messages"][-1]["content"]) or ["0"]
            return Reply(
                content=json.dumps(
                    {"decisions": [{"id": int(i), "action": "replace", "replacement": RIGHT}
                                   for i in ids]}
                )
            )  # fmt: skip

        fake_llm.reset()
        fake_llm.responder = responder
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
        created = api.post("/v1/verifications", eiffel.request(), format="json").json()
        job_id = VerificationJob.parse_public_id(created["id"])
        process_jobs([claim(job_id)])
        assert mitigate_stage.run(claim_mitigation(job_id))
        job = VerificationJob.objects.get(pk=job_id)
        assert (job.status, job.mode) == ("completed", "premium")
        assert {r["model"] for r in fake_llm.requests} >= {"verifier", "judge"}

        owner.goto(f"{live_server.url}/dashboard/verifications/{created['id']}/")
        assert "premium" in owner.content()
        _shot(owner, "6-premium-verification")
        owner.goto(f"{live_server.url}/dashboard/setup/")
        assert owner.locator('[data-step="llm"]').get_attribute("data-done") == "true"
    finally:
        context.close()
