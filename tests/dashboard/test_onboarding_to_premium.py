"""From an invitation to a premium-mode verification on the tenant's own provider keys,
through the dashboard and the API only: nothing is written to the database by hand."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from tests.fixtures.fake_llm import Reply
from verification.actions.claim import claim
from verification.actions.stages import claim_mitigation
from verification.models import LLMCallRecord, UsageRecord, VerificationJob
from verification.stages import mitigate as mitigate_stage
from verification.stages.detect import process_jobs

from .test_policy_editor import editor_post

pytestmark = pytest.mark.django_db

OWN_KEY = "sk-acme-own-key"
RIGHT = "The Eiffel Tower was built from 1887 to 1889."


def _messages(response) -> str:
    return " ".join(str(m) for m in get_messages(response.wsgi_request))


def test_a_new_admin_goes_from_invitation_to_premium_on_their_own_keys(
    client, staff_user, mailoutbox, fake_llm, eiffel
):
    # staff create the tenant and invite its owner
    client.force_login(staff_user)
    new = {"name": "Acme", "slug": "acme", "owner_email": "boss@acme.test"}
    assert client.post("/dashboard/tenants/new/", new).status_code == 302
    link = re.search(r"(/dashboard/invitations/[^/\s]+/)", mailoutbox[-1].body).group(1)

    # the owner sets a password through the link and lands on the checklist
    owner = Client()
    password = "a-long-unusual-passphrase-7"
    accepted = owner.post(link, {"new_password1": password, "new_password2": password})
    assert accepted.status_code == 302
    checklist = owner.get(reverse("dashboard:setup")).content.decode()
    assert 'data-step="llm" data-done="false"' in checklist

    # adds their provider and tests the connection (one real call to the local server)
    form = {
        "name": "Acme OpenAI", "model_prefix": "openai/",
        "model_names": "primary\nverifier\njudge", "api_base": fake_llm.api_base,
        "api_key": OWN_KEY, "timeout_seconds": "10", "max_retries": "0",
        "price_input": "1", "price_output": "2",
    }  # fmt: skip
    assert owner.post(reverse("dashboard:llm-providers"), form).status_code == 302
    page = owner.get(reverse("dashboard:llm-providers")).content.decode()
    assert OWN_KEY not in page
    provider_id = re.search(r"/dashboard/llm-providers/(\d+)/test/", page).group(1)
    fake_llm.script("ready")
    tested = owner.post(reverse("dashboard:llm-provider-test", args=[provider_id]))
    assert "answered “ready”" in _messages(tested)
    assert fake_llm.requests[-1]["max_tokens"] == 5

    # makes premium the policy's mode, with verifier and judge from the provider
    saved = owner.post(
        reverse("dashboard:policy"),
        editor_post(
            owner,
            default_mode="premium",
            premium_verification_models="openai/verifier",
            premium_judge_model="openai/judge",
        ),
    )
    assert saved.status_code == 302, saved.content.decode()[:2000]

    # creates an API key (shown once after the redirect)
    created = owner.post(reverse("dashboard:keys"), {"name": "app", "scope": "write"}, follow=True)
    token = re.search(r"(tl_[A-Za-z0-9]+_[A-Za-z0-9_\-]+)", created.content.decode()).group(1)

    # and verifies an answer: premium runs on the tenant's own key
    def responder(body):
        if body["model"] == "verifier":
            return Reply(content=RIGHT)
        ids = re.findall(r'"id":\s*(\d+)', body["messages"][-1]["content"]) or ["0"]
        verdicts = [{"id": int(i), "action": "replace", "replacement": RIGHT} for i in ids]
        return Reply(content=json.dumps({"decisions": verdicts}))

    fake_llm.reset()
    fake_llm.responder = responder
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    response = api.post("/v1/verifications", eiffel.request(), format="json")
    assert response.status_code == 202, response.json()
    job_id = VerificationJob.parse_public_id(response.json()["id"])
    process_jobs([claim(job_id)])
    assert mitigate_stage.run(claim_mitigation(job_id))
    job = VerificationJob.objects.get(pk=job_id)
    assert job.status == "completed"
    assert job.mode == "premium"
    assert "1950" not in job.final_response
    calls = LLMCallRecord.objects.filter(job=job)
    assert {c.model for c in calls} >= {"openai/verifier", "openai/judge"}
    assert UsageRecord.objects.get(job=job).llm_calls >= 2
    checklist = owner.get(reverse("dashboard:setup")).content.decode()
    assert 'data-step="llm" data-done="true"' in checklist
    assert 'data-step="verification" data-done="true"' in checklist
