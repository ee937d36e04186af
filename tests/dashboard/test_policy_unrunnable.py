"""A policy that cannot run is never saved: premium without verifier models, a cascade
judge no provider serves, an unknown verifier. Every problem comes back in one pass,
in the editor, the YAML import, restore and the draft test."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from dashboard.models import PolicyChange
from dashboard.policy.actions import current_document, save_policy
from dashboard.policy.yaml_io import dump_yaml
from engine.policy import PolicyDocument
from engine.policy_checks import Available, check_policy
from tenants.models import Policy

from .test_policy_editor import editor_post

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("providers_a")]

SERVED = Available(models=frozenset({"openai/gpt-4o", "openai/gpt-4o-mini"}), llm=True)
NO_VERIFIERS = "Premium mode needs at least one verification model."
UNSERVED = "is not served by any of your LLM providers"
#: A stored version from before these checks: premium with no verifier, an unserved judge.
UNRUNNABLE = {
    "default_mode": "premium",
    "cascade": {"enabled": True, "judge_model": "openai/nobody-serves-this"},
}


def test_every_problem_comes_back_in_one_pass():
    # given a schema error, an unknown verifier and a cascade judge no provider serves
    data = {
        "threshold": 3,
        "default_mode": "premium",
        "premium": {"verification_models": ["openai/unknown-verifier"]},
        "cascade": {"enabled": True, "judge_model": "openai/nobody-serves-this"},
    }
    # when checked for publishing
    document, problems = check_policy(data, SERVED)
    # then all three are reported together (the unknown verifier used to wait its turn)
    assert document is None
    assert {p.loc for p in problems} == {
        ("threshold",),
        ("premium", "verification_models", 0),
        ("cascade", "judge_model"),
    }


def test_premium_as_a_jobs_mode_needs_a_verifier_model():
    _, problems = check_policy({"default_mode": "premium"}, SERVED)
    assert [(p.loc, p.message) for p in problems] == [
        (("premium", "verification_models"), NO_VERIFIERS)
    ]
    decision = {
        "decisions": [
            {
                "name": "med",
                "rules": {"conditions": [{"type": "keyword", "name": "dose"}]},
                "plugins": [{"type": "hallucination", "configuration": {"mode": "premium"}}],
            }
        ]
    }
    assert [p.message for p in check_policy(decision, SERVED)[1]] == [NO_VERIFIERS]
    # allowing premium (the default allows every mode) is not making it a job's mode
    assert check_policy({"default_mode": "standard"}, SERVED)[1] == []
    runnable = {"default_mode": "premium", "premium": {"verification_models": ["openai/gpt-4o"]}}
    assert check_policy(runnable, SERVED)[1] == []


def test_the_editor_refuses_them_all_at_once(client, owner_a, tenant_a):
    client.force_login(owner_a)
    body = editor_post(
        client,
        default_mode="premium",
        premium_verification_models="",
        cascade_enabled="on",
        cascade_judge_model="openai/nobody-serves-this",
    )
    response = client.post(reverse("dashboard:policy"), body)
    assert response.status_code == 400
    page = response.content.decode()
    assert NO_VERIFIERS in page
    assert "nobody-serves-this" in page
    assert UNSERVED in page
    assert not Policy.objects.filter(tenant=tenant_a.tenant).exists()


def test_the_yaml_import_refuses_them_all_at_once(client, owner_a, tenant_a):
    client.force_login(owner_a)
    text = (
        "default_mode: premium\n"
        "premium:\n  verification_models: [openai/unknown-verifier]\n"
        "cascade:\n  enabled: true\n  judge_model: openai/nobody-serves-this\n"
        "threshold: 3\n"
    )
    response = client.post(reverse("dashboard:policy-import"), {"yaml_text": text})
    assert response.status_code == 400
    page = response.content.decode()
    assert "unknown-verifier" in page
    assert "nobody-serves-this" in page
    assert "threshold" in page
    assert not Policy.objects.filter(tenant=tenant_a.tenant).exists()
    # and premium with no verifier at all
    bare = client.post(reverse("dashboard:policy-import"), {"yaml_text": "default_mode: premium\n"})
    assert bare.status_code == 400
    assert NO_VERIFIERS in bare.content.decode()


def test_restore_refuses_a_version_that_cannot_run(client, owner_a, tenant_a):
    # given version 1, stored before the checks existed, and a runnable version 2
    tenant = tenant_a.tenant
    save_policy(tenant, owner_a, PolicyDocument.model_validate(UNRUNNABLE), PolicyChange.EDITOR)
    good = PolicyDocument.model_validate({"default_mode": "standard"})
    save_policy(tenant, owner_a, good, PolicyChange.EDITOR)
    client.force_login(owner_a)
    # when version 1 is restored
    response = client.post(reverse("dashboard:policy-restore", kwargs={"version": 1}))
    # then it is refused, with both reasons, and version 2 stays
    said = " ".join(str(m) for m in get_messages(response.wsgi_request))
    assert NO_VERIFIERS in said
    assert UNSERVED in said
    assert current_document(tenant) == good


def test_the_draft_test_refuses_a_draft_that_cannot_run(client, owner_a, tenant_a):
    client.force_login(owner_a)
    response = client.post(
        reverse("dashboard:policy-test"),
        {
            "draft": dump_yaml(PolicyDocument.model_validate(UNRUNNABLE)),
            "context": "The Eiffel Tower is in Paris.",
            "response": "The Eiffel Tower is in Rome.",
        },
    )
    assert response.context["outcome"] is None
    page = response.content.decode()
    assert NO_VERIFIERS in page
    assert "nobody-serves-this" in page
