import json

import pytest

from verification.models import OutboxMessage, VerificationJob

pytestmark = pytest.mark.django_db


def test_it_accepts_a_verification_with_location_and_headers(client_a, eiffel):
    # when
    response = client_a.post("/v1/verifications", eiffel.request(), format="json")
    # then
    assert response.status_code == 202
    body = response.json()
    assert body["id"].startswith("ver_")
    assert body["status"] == "queued"
    assert response["Location"] == f"/v1/verifications/{body['id']}"
    assert response["X-TruthLens-Detected"] == "unknown"
    for name in ("Enabled", "Mode", "Score", "Iterations", "Latency-Ms"):
        assert f"X-TruthLens-{name}" in response
    job = VerificationJob.objects.get()
    assert job.context == list(eiffel.context)
    assert job.response == eiffel.response
    assert OutboxMessage.objects.filter(job=job).count() == 1


def test_context_may_be_a_single_string(client_a, eiffel):
    body = eiffel.request(context="One passage.")
    assert client_a.post("/v1/verifications", body, format="json").status_code == 202
    assert VerificationJob.objects.get().context == ["One passage."]


def test_openai_messages_become_context_query_and_response(client_a):
    payload = {
        "messages": [
            {"role": "system", "content": "You answer from the documents."},
            {"role": "user", "content": "How tall is the Eiffel Tower?"},
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": "The Eiffel Tower is 330 metres tall.",
            },
            {"role": "assistant", "content": "It is 300 metres tall."},
        ]
    }
    response = client_a.post("/v1/verifications", payload, format="json")
    assert response.status_code == 202, response.json()
    job = VerificationJob.objects.get()
    assert "The Eiffel Tower is 330 metres tall." in job.context
    assert job.query == "How tall is the Eiffel Tower?"
    assert job.response == "It is 300 metres tall."


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"context": ["c"], "query": "q"}, "response"),
        ({"context": 5, "response": "r"}, "context"),
        ({"context": ["ok", 3], "response": "r"}, "context"),
        ({"context": ["c"], "response": "bad\u0000nul"}, "response"),
        ({"context": ["c"], "response": "r", "threshold": 2}, "threshold"),
        ({"context": ["c"], "response": "r", "mode": "turbo"}, "mode"),
        ({"context": ["c"], "response": "r", "wait": 90}, "wait"),
        ({"context": ["a", "b"], "response": "r", "passage_ids": ["1"]}, "passage_ids"),
        ({"messages": [{"role": "user", "content": "q"}]}, "messages"),
        (
            {"context": ["c"], "response": "r", "callback_url": "http://169.254.169.254/latest"},
            "callback_url",
        ),
        (
            {"context": ["c"], "response": "r", "callback_url": "ftp://example.com/x"},
            "callback_url",
        ),
    ],
)
def test_invalid_fields_answer_400_with_the_field_path(client_a, payload, field):
    response = client_a.post("/v1/verifications", payload, format="json")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["type"].endswith("/validation-error")
    assert any(e["field"] == field for e in body["errors"]), body
    assert VerificationJob.objects.count() == 0


def test_a_mode_the_policy_does_not_allow_is_refused(client_a, tenant_a, eiffel):
    from tenants.models import Policy

    Policy.objects.create(tenant=tenant_a.tenant, document={"allowed_modes": ["lightweight"]})
    response = client_a.post("/v1/verifications", eiffel.request(mode="premium"), format="json")
    assert response.status_code == 400
    assert "not allowed" in response.json()["errors"][0]["message"]
    assert (
        client_a.post(
            "/v1/verifications", eiffel.request(mode="lightweight"), format="json"
        ).status_code
        == 202
    )


def test_an_unknown_decision_is_refused(client_a, eiffel):
    response = client_a.post("/v1/verifications", eiffel.request(decision="nope"), format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "decision"


def test_malformed_json_is_a_400_problem(client_a):
    response = client_a.post("/v1/verifications", data="{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["type"].endswith("/malformed-json")


def test_a_non_json_content_type_is_415(client_a):
    response = client_a.post("/v1/verifications", data="a=b", content_type="text/plain")
    assert response.status_code == 415
    assert response["Content-Type"] == "application/problem+json"


def test_bodies_over_the_limit_are_413(client_a, settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "MAX_BODY_BYTES": 2048}
    body = json.dumps({"context": ["x" * 4000], "response": "r"})
    response = client_a.post("/v1/verifications", data=body, content_type="application/json")
    assert response.status_code == 413
    assert response.json()["type"].endswith("/payload-too-large")
    assert VerificationJob.objects.count() == 0


def test_too_many_passages_are_refused(client_a, settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "MAX_PASSAGES": 3}
    response = client_a.post(
        "/v1/verifications", {"context": ["p"] * 4, "response": "r"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "context"


def test_cjk_and_emoji_are_stored_unchanged(client_a):
    payload = {
        "context": ["東京タワーは333メートルです。"],
        "response": "東京タワーは300メートルです 🗼",
    }
    assert client_a.post("/v1/verifications", payload, format="json").status_code == 202
    assert VerificationJob.objects.get().response == payload["response"]
