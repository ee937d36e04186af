"""`/v1/llm-providers`: a tenant's own LLM credentials, tested for real, and used by its jobs."""

from __future__ import annotations

import pytest

from tenants.audit import AuditEvent
from tenants.llm_providers import LLMProvider
from tenants.models import Plan, Policy, Tenant
from tests.fixtures.fake_llm import Reply
from verification.actions.claim import claim
from verification.models import UsageRecord, VerificationJob
from verification.stages.detect import process_jobs
from verification.tenant_config import model_config

pytestmark = pytest.mark.django_db

SECRET = "sk-live-do-not-echo"


def _provider(client, fake, **extra) -> dict:
    body = {
        "name": "Local",
        "model_prefix": "openai/",
        "model_names": ["primary", "judge"],
        "api_base": fake.api_base,
        "api_key": SECRET,
        "price_table": {"primary": {"input": 1, "output": 2}},
        **extra,
    }
    response = client.post("/v1/llm-providers", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def test_crud_never_returns_the_key_and_keeps_it_encrypted(client_a, tenant_a, fake_llm):
    created = _provider(client_a, fake_llm)
    assert created["has_key"] is True
    assert created["model_ids"] == ["openai/primary", "openai/judge"]
    assert SECRET not in str(created)
    stored = LLMProvider.objects.get(pk=created["id"])
    assert SECRET not in stored.api_key_encrypted
    assert stored.api_key == SECRET
    # the first provider makes the tenant's LLM runnable: its first model refines
    assert Tenant.objects.get(pk=tenant_a.tenant.pk).default_model == "openai/primary"

    listed = client_a.get("/v1/llm-providers").json()
    assert [p["name"] for p in listed] == ["Local"]
    assert SECRET not in str(listed)

    patched = client_a.patch(
        f"/v1/llm-providers/{created['id']}", {"api_key": "sk-new", "timeout_seconds": 5}, "json"
    )
    assert patched.status_code == 200
    stored.refresh_from_db()
    assert (stored.api_key, stored.timeout_seconds) == ("sk-new", 5)
    actions = list(
        AuditEvent.objects.filter(tenant=tenant_a.tenant).values_list("action", flat=True)
    )
    assert "llm_provider.created" in actions
    assert "llm_provider.key_replaced" in actions

    assert client_a.delete(f"/v1/llm-providers/{created['id']}").status_code == 204
    assert not LLMProvider.objects.filter(pk=created["id"]).exists()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("model_prefix", "OpenAI"),
        ("model_names", ["???not a model<script>"]),
        ("model_names", []),
        ("api_base", "http://169.254.169.254/latest"),
        ("api_base", "not a url"),
        ("timeout_seconds", 0),
        ("price_table", {"primary": {"input": -1}}),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client_a, fake_llm, field, value):
    body = {
        "name": "Bad",
        "model_prefix": "openai/",
        "model_names": ["primary"],
        "api_base": fake_llm.api_base,
        "api_key": "k",
        field: value,
    }
    response = client_a.post("/v1/llm-providers", body, format="json")
    assert response.status_code == 400
    assert field in str(response.json())
    assert not LLMProvider.objects.exists()


def test_two_providers_cannot_serve_the_same_model(client_a, fake_llm):
    _provider(client_a, fake_llm)
    again = client_a.post(
        "/v1/llm-providers",
        {"name": "Other", "model_prefix": "openai/", "model_names": ["judge"], "api_key": "k"},
        format="json",
    )
    assert again.status_code == 400
    assert "served by Local" in str(again.json())


def test_another_tenants_provider_is_invisible(client_a, client_b, fake_llm):
    created = _provider(client_a, fake_llm)
    url = f"/v1/llm-providers/{created['id']}"
    assert client_b.get("/v1/llm-providers").json() == []
    assert client_b.get(url).status_code == 404
    assert client_b.patch(url, {"api_key": "stolen"}, format="json").status_code == 404
    assert client_b.post(f"{url}/test", {}, format="json").status_code == 404
    assert client_b.delete(url).status_code == 404
    assert LLMProvider.objects.get(pk=created["id"]).api_key == SECRET


def test_test_connection_makes_one_real_call_and_shows_the_answer(client_a, fake_llm):
    created = _provider(client_a, fake_llm)
    fake_llm.script("ready")
    result = client_a.post(f"/v1/llm-providers/{created['id']}/test", {}, format="json").json()
    assert result["ok"] is True
    assert result["answer"] == "ready"
    assert result["model"] == "openai/primary"
    sent = fake_llm.requests[-1]
    assert sent["max_tokens"] == 5
    assert sent["model"] == "primary"


def test_test_connection_reports_the_providers_error_in_plain_words(client_a, fake_llm):
    created = _provider(client_a, fake_llm)
    fake_llm.script(Reply(status=401))
    result = client_a.post(f"/v1/llm-providers/{created['id']}/test", {}, format="json")
    assert result.status_code == 200
    assert result.json()["ok"] is False
    assert "refused the API key" in result.json()["error"]
    unknown = client_a.post(
        f"/v1/llm-providers/{created['id']}/test", {"model": "gpt-9"}, format="json"
    )
    assert unknown.status_code == 400


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (Reply(status=500), "The provider failed with an error of its own (500)"),
        (Reply(status=503, raw="<html>upstream down</html>"), "error of its own (503)"),
        (Reply(status=400), "The provider rejected the request (400)"),
        (Reply(status=429), "rate-limiting this key"),
        (Reply(delay=2.5, content="late"), "No answer from"),
    ],
)
def test_test_connection_never_shows_litellms_exception_text(client_a, fake_llm, reply, words):
    created = _provider(client_a, fake_llm, timeout_seconds=1)
    fake_llm.script(reply)
    result = client_a.post(f"/v1/llm-providers/{created['id']}/test", {}, format="json").json()
    assert result["ok"] is False
    assert words in result["error"]
    for raw in ("litellm", "Exception", "InternalServerError", "APIError", "Traceback"):
        assert raw not in result["error"]


def test_an_unreachable_provider_is_said_in_plain_words(client_a, fake_llm):
    created = _provider(client_a, fake_llm, api_base="http://127.0.0.1:9/v1")
    result = client_a.post(f"/v1/llm-providers/{created['id']}/test", {}, format="json").json()
    assert result["error"].startswith("Could not reach http://127.0.0.1:9/v1")
    assert "litellm" not in result["error"]


@pytest.mark.parametrize("model", ["judge", "openai/judge"])
def test_every_served_model_can_be_tested(client_a, fake_llm, model):
    created = _provider(client_a, fake_llm)
    fake_llm.script("ready")
    result = client_a.post(
        f"/v1/llm-providers/{created['id']}/test", {"model": model}, format="json"
    ).json()
    assert (result["ok"], result["model"]) == (True, "openai/judge")
    assert fake_llm.requests[-1]["model"] == "judge"


def test_each_model_is_called_with_its_own_providers_credentials(client_a, tenant_a, fake_llm):
    _provider(client_a, fake_llm)
    client_a.post(
        "/v1/llm-providers",
        {
            "name": "Second",
            "model_prefix": "anthropic/",
            "model_names": ["claude-x"],
            "api_base": "http://localhost:9/v1",
            "api_key": "sk-second",
            "timeout_seconds": 7,
        },
        format="json",
    )
    tenant_id = tenant_a.tenant.pk
    first = model_config(tenant_id, "openai/judge")
    second = model_config(tenant_id, "anthropic/claude-x")
    assert (first.api_key, first.api_base) == (SECRET, fake_llm.api_base)
    assert (second.api_key, second.api_base, second.timeout_s) == (
        "sk-second",
        "http://localhost:9/v1",
        7,
    )


def test_roles_set_the_refinement_model_to_a_served_one(client_a, fake_llm):
    _provider(client_a, fake_llm)
    assert client_a.get("/v1/llm-roles").json()["refine_model"] == "openai/primary"
    bad = client_a.put("/v1/llm-roles", {"refine_model": "openai/nope"}, format="json")
    assert bad.status_code == 400
    ok = client_a.put("/v1/llm-roles", {"refine_model": "openai/judge"}, format="json")
    assert ok.json()["refine_model"] == "openai/judge"
    assert ok.json()["served_models"] == ["openai/judge", "openai/primary"]


def test_premium_without_any_llm_is_a_400_not_a_silent_run(client_a, tenant_a):
    Policy.objects.create(
        tenant=tenant_a.tenant,
        document={"allowed_modes": ["lightweight", "standard", "premium"]},
    )
    body = {"context": ["Paris is in France."], "response": "Paris is in Spain.", "mode": "premium"}
    response = client_a.post("/v1/verifications", body, format="json")
    assert response.status_code == 400
    assert "needs an LLM" in str(response.json()["errors"])
    assert not VerificationJob.objects.exists()
    # lightweight runs without one; standard keeps its no-LLM repair
    for mode in ("lightweight", "standard"):
        assert client_a.post("/v1/verifications", {**body, "mode": mode}, "json").status_code == 202


def test_a_policy_default_premium_without_llm_runs_and_bills_as_lightweight(client_a, tenant_a):
    plan = Plan.objects.create(
        name="p", price_per_verification={"lightweight": "0.001", "premium": "0.05"}
    )
    tenant_a.tenant.plan = plan
    tenant_a.tenant.save()
    Policy.objects.create(
        tenant=tenant_a.tenant,
        document={"allowed_modes": ["lightweight", "premium"], "default_mode": "premium"},
    )
    body = {"context": ["Paris is in France."], "response": "Paris is in Spain."}
    job_id = client_a.post("/v1/verifications", body, format="json").json()["id"]
    process_jobs([claim(VerificationJob.parse_public_id(job_id))])
    job = VerificationJob.objects.get()
    assert job.mode == "lightweight"
    usage = UsageRecord.objects.get(job=job)
    assert usage.llm_calls == 0
    assert str(usage.price_usd).startswith("0.001")


def test_a_verification_naming_a_model_no_provider_serves_is_a_400(client_a, fake_llm):
    # given a tenant whose provider serves openai/primary and openai/judge
    _provider(client_a, fake_llm)
    body = {"context": ["Paris is in France."], "response": "Paris is in France."}
    # when a verification names another model to refine with
    refused = client_a.post(
        "/v1/verifications", {**body, "model": "openai/does-not-exist"}, format="json"
    )
    # then it is refused at once, naming the field and the models that can be used
    assert refused.status_code == 400
    [error] = refused.json()["errors"]
    assert error["field"] == "model"
    assert "not served by any of this tenant's LLM providers" in error["message"]
    assert "openai/primary" in error["message"]
    assert fake_llm.requests == []
    ok = client_a.post("/v1/verifications", {**body, "model": "openai/judge"}, format="json")
    assert ok.status_code in (200, 202)
