"""`warning` belongs to the end user; internal notes go to `diagnostics` (API, webhook,
OpenAPI, dashboard), and the service's own qualifier is never scored."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tenants.models import Policy, WebhookEndpoint
from tests.conftest import client_for
from tests.fixtures.fake_llm import Reply
from tests.fixtures.llm import configure_llm
from verification.actions.stages import claim_mitigation
from verification.models import WebhookDelivery
from verification.stages import mitigate as mitigate_stage

from .test_modes import _detect

pytestmark = pytest.mark.django_db

WARNING = "Heads up: parts of this answer are not in your documents."
BROKEN_JSON = "I think claim 1 should be {replaced, maybe"


def _premium_with_a_broken_judge(tenant, fake_llm):
    Policy.objects.create(
        tenant=tenant,
        document={
            "default_mode": "premium",
            "warning_template": WARNING,
            "premium": {"verification_models": ["openai/verifier"], "judge_model": "openai/judge"},
        },
    )
    configure_llm(tenant, fake_llm)
    endpoint = WebhookEndpoint(tenant=tenant, url="http://127.0.0.1:9/hook")
    endpoint.set_new_secret()
    endpoint.save()

    def responder(body):
        if body["model"] == "verifier":
            return Reply(content="The Eiffel Tower was built from 1887 to 1889.")
        return Reply(content=BROKEN_JSON)

    fake_llm.responder = responder
    job = _detect(tenant, mode="premium")
    assert mitigate_stage.run(claim_mitigation(job.pk))
    job.refresh_from_db()
    return job


def test_internal_notes_go_to_diagnostics_never_to_the_warning(tenant_a, fake_llm, client):
    # given a premium job whose judge answered with text that is not JSON
    job = _premium_with_a_broken_judge(tenant_a.tenant, fake_llm)
    # then the API keeps the warning for the end user, and says what happened in diagnostics
    body = client_for(tenant_a.token).get(f"/v1/verifications/{job.public_id}").json()
    assert "not usable JSON" not in body["warning"]
    assert "judge" not in body["warning"]
    assert any("not usable JSON" in d for d in body["diagnostics"])
    # the webhook payload carries the same split
    payload = WebhookDelivery.objects.get(job=job).payload
    assert payload["data"]["diagnostics"] == body["diagnostics"]
    assert payload["data"]["warning"] == body["warning"]
    # and the OpenAPI schema documents the field
    schema = client.get("/v1/schema", HTTP_ACCEPT="application/json").json()
    verification = schema["components"]["schemas"]["Verification"]["properties"]
    assert verification["diagnostics"]["type"] == "array"


def test_the_verification_page_shows_a_diagnostics_block(tenant_a, fake_llm, client):
    from tests.dashboard.conftest import member

    job = _premium_with_a_broken_judge(tenant_a.tenant, fake_llm)
    client.force_login(member(tenant_a.tenant, "owner-diag", "owner"))
    page = client.get(reverse("dashboard:verification", args=[job.public_id])).content.decode()
    block = page.split('id="diagnostics-h"', 1)[1].split("</ul>", 1)[0]
    assert "not usable JSON" in block


def test_the_qualifier_the_service_adds_is_never_an_unsupported_span(tenant_a, fake_llm):
    # given the broken judge: the disputed claim comes back qualified by the service
    job = _premium_with_a_broken_judge(tenant_a.tenant, fake_llm)
    qualifier = "(Not confirmed by the provided context)"
    assert job.final_response.startswith(qualifier)
    # then no span of the refined answer covers any of the qualifier's words
    final = job.mitigation_steps.exclude(text="").order_by("-index").first()
    assert final.text == job.final_response
    at = final.text.index(qualifier)
    for span in final.spans:
        assert span["end"] <= at or span["start"] >= at + len(qualifier), span
