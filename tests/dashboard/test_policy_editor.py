"""Policy editor: validation by PolicyDocument, change history, YAML round trip, test box."""

from __future__ import annotations

import pytest
from django.urls import reverse

from dashboard.models import PolicyChange
from dashboard.policy.actions import current_document, save_policy
from dashboard.policy.yaml_io import PolicyImportError, dump_yaml, load_yaml
from engine.policy import PolicyDocument
from tenants.models import Policy

from .html_form import form_data

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("providers_a")]

RICH = {
    "enabled": True,
    "default_mode": "auto",
    "threshold": 0.55,
    "require_context": True,
    "standard": {"max_iterations": 4, "convergence_threshold": 0.25},
    "premium": {
        "verification_models": ["anthropic/claude-3-5-haiku"],
        "judge_model": "openai/gpt-4o",
        "max_iterations": 2,
        "require_consensus": True,
    },
    "budgets": {"per_request_usd": 0.05, "monthly_usd": 500},
    "decisions": [
        {
            "name": "medical",
            "priority": 10,
            "rules": {
                "operator": "OR",
                "conditions": [
                    {"type": "domain", "name": "health"},
                    {"type": "keyword", "name": "dosage"},
                ],
            },
            "modelRefs": ["openai/gpt-4o"],
            "plugins": [
                {
                    "type": "hallucination",
                    "configuration": {
                        "enabled": True,
                        "mode": "premium",
                        "threshold": 0.3,
                        "max_iterations": 2,
                        "require_disclaimer": True,
                    },
                }
            ],
        },
        {
            "name": "chit-chat",
            "priority": 1,
            "rules": {"operator": "AND", "conditions": [{"type": "query_type", "name": "opinion"}]},
            "plugins": [{"type": "hallucination", "configuration": {"enabled": False}}],
        },
    ],
}


def editor_post(client, **overrides) -> dict:
    """The editor's POST body as a browser sends the page untouched, with `overrides`."""
    data = form_data(client.get(reverse("dashboard:policy")).content.decode(), "policy-form")
    for name, value in overrides.items():
        data[name] = value if isinstance(value, list) else [str(value)]
    return data


def test_editor_shows_and_saves_the_same_document_unchanged(client, owner_a, tenant_a):
    tenant = tenant_a.tenant
    doc = PolicyDocument.model_validate(RICH)
    save_policy(tenant, owner_a, doc, PolicyChange.EDITOR)
    client.force_login(owner_a)
    page = client.get(reverse("dashboard:policy"))
    assert page.status_code == 200
    assert b"medical" in page.content
    assert b'<span class="check"><label for="id_enabled">' in page.content  # checkbox in label
    assert b'id="id_require_context" checked' in page.content
    # when the form is posted back untouched, nothing changes and no history row is added
    response = client.post(reverse("dashboard:policy"), editor_post(client))
    assert response.status_code == 302
    assert current_document(tenant) == doc
    assert PolicyChange.objects.filter(tenant=tenant).count() == 1


def test_each_mode_with_settings_gets_its_fieldset_from_the_registry(client, owner_a):
    client.force_login(owner_a)
    page = client.get(reverse("dashboard:policy")).content.decode()
    standard = page.index("<legend>Standard mode (the answer is refined)</legend>")
    premium = page.index("<legend>Premium mode (other models cross-check)</legend>")
    assert standard < page.index('id="id_standard_max_iterations"') < premium
    assert premium < page.index('id="id_premium_require_consensus"')
    assert "Lightweight mode" not in page  # no settings, no fieldset


def test_the_editor_sets_what_a_late_verdict_does(client, owner_a, tenant_a):
    client.force_login(owner_a)
    body = editor_post(client, on_unverified="refuse", unverified_note="(Not checked yet.)")
    response = client.post(reverse("dashboard:policy"), body)
    assert response.status_code == 302
    doc = current_document(tenant_a.tenant)
    assert (doc.on_unverified, doc.unverified_note) == ("refuse", "(Not checked yet.)")


def test_editing_a_decision_and_adding_one_is_saved_with_history(client, owner_a, tenant_a):
    tenant = tenant_a.tenant
    doc = PolicyDocument.model_validate(RICH)
    save_policy(tenant, owner_a, doc, PolicyChange.EDITOR)
    client.force_login(owner_a)
    body = editor_post(
        client,
        **{
            "threshold": "0.65",
            "decisions-0-threshold": "0.2",
            "decisions-2-name": "legal",
            "decisions-2-priority": "5",
            "decisions-2-conditions": "keyword: contract\nquery_type: factual_qa",
            "decisions-2-operator": "AND",
            "decisions-2-mode": "standard",
            "decisions-1-DELETE": "on",
        },
    )
    response = client.post(reverse("dashboard:policy"), body)
    assert response.status_code == 302, response.content.decode()[:2000]
    saved = current_document(tenant)
    assert saved.threshold == 0.65
    assert [d.name for d in saved.decisions] == ["medical", "legal"]
    assert saved.decisions[0].plugins[0].configuration.threshold == 0.2
    legal = saved.decisions[1]
    assert legal.rules.operator == "AND"
    assert len(legal.rules.conditions) == 2
    assert legal.plugins[0].configuration.mode == "standard"
    change = PolicyChange.objects.filter(tenant=tenant).first()
    assert change.version == 2
    assert change.actor == owner_a
    diff = "\n".join(change.diff_lines())
    assert "-threshold: 0.55" in diff
    assert "+threshold: 0.65" in diff
    assert "legal" in diff
    history = client.get(reverse("dashboard:policy-history")).content.decode()
    assert "owner-a" in history
    assert "+threshold: 0.65" in history


def test_invalid_values_are_refused_with_the_field_named(client, owner_a, tenant_a):
    client.force_login(owner_a)
    response = client.post(
        reverse("dashboard:policy"),
        editor_post(
            client,
            threshold="1.7",
            standard_max_iterations="40",
            warning_template="{nope}",
        ),
    )
    assert response.status_code == 400
    form = response.context["settings_form"]
    assert "threshold" in form.errors
    assert "standard_max_iterations" in form.errors
    assert "warning_template" in form.errors
    assert not Policy.objects.filter(tenant=tenant_a.tenant).exists()


def test_duplicate_decision_names_and_bad_conditions_are_refused(client, owner_a, tenant_a):
    client.force_login(owner_a)
    doc = PolicyDocument.model_validate(RICH)
    save_policy(tenant_a.tenant, owner_a, doc, PolicyChange.EDITOR)
    response = client.post(
        reverse("dashboard:policy"), editor_post(client, **{"decisions-1-name": "medical"})
    )
    assert response.status_code == 400
    assert "must be unique" in response.content.decode()
    response = client.post(
        reverse("dashboard:policy"),
        editor_post(client, **{"decisions-0-conditions": "color: blue"}),
    )
    assert response.status_code == 400
    assert "Line 1" in response.content.decode()
    assert current_document(tenant_a.tenant) == doc
    assert PolicyChange.objects.filter(tenant=tenant_a.tenant).count() == 1


def test_yaml_round_trip_is_lossless():
    doc = PolicyDocument.model_validate(RICH)
    assert load_yaml(dump_yaml(doc)) == doc
    assert load_yaml(dump_yaml(PolicyDocument())) == PolicyDocument()


def test_yaml_errors_say_where():
    with pytest.raises(PolicyImportError) as bad_yaml:
        load_yaml("threshold: [0.5\n")
    assert "line" in bad_yaml.value.messages[0]
    with pytest.raises(PolicyImportError) as bad_value:
        load_yaml("threshold: 2\ndecisions:\n  - name: x\n    rules: {operator: XOR}\n")
    joined = " | ".join(bad_value.value.messages)
    assert "threshold (Hallucination threshold): Input should be" in joined
    assert "decisions.0.rules.operator" in joined
    with pytest.raises(PolicyImportError):
        load_yaml("- just\n- a list\n")


def test_export_then_import_through_the_dashboard(client, owner_a, tenant_a):
    tenant = tenant_a.tenant
    save_policy(tenant, owner_a, PolicyDocument.model_validate(RICH), PolicyChange.EDITOR)
    client.force_login(owner_a)
    exported = client.get(reverse("dashboard:policy-export"))
    assert exported["Content-Type"].startswith("application/yaml")
    text = exported.content.decode()
    assert "decisions:" in text
    assert "modelRefs:" in text
    # importing it unchanged changes nothing; importing an edit records a YAML change
    client.post(reverse("dashboard:policy-import"), {"yaml_text": text, "version": 1, "confirm": 1})
    assert PolicyChange.objects.filter(tenant=tenant).count() == 1
    response = client.post(
        reverse("dashboard:policy-import"),
        {
            "yaml_text": text.replace("threshold: 0.55", "threshold: 0.45"),
            "version": 1,
            "confirm": 1,
        },
    )
    assert response.status_code == 302
    assert current_document(tenant).threshold == 0.45
    assert PolicyChange.objects.filter(tenant=tenant).first().source == PolicyChange.YAML_IMPORT


def test_invalid_import_keeps_the_policy(client, owner_a, tenant_a):
    client.force_login(owner_a)
    response = client.post(
        reverse("dashboard:policy-import"), {"yaml_text": "default_mode: turbo\n"}
    )
    assert response.status_code == 400
    assert "default_mode" in response.content.decode()
    assert not Policy.objects.filter(tenant=tenant_a.tenant).exists()


def test_viewer_sees_the_editor_read_only(client, viewer_a):
    client.force_login(viewer_a)
    page = client.get(reverse("dashboard:policy")).content.decode()
    assert "viewer role" in page
    assert "Save policy" not in page
    assert client.post(reverse("dashboard:policy"), editor_post(client)).status_code == 403


def test_test_box_runs_the_engine_under_the_tenants_policy(client, owner_a, tenant_a, settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "DETECTOR": "lexical"}
    save_policy(tenant_a.tenant, owner_a, PolicyDocument.model_validate(RICH), PolicyChange.EDITOR)
    client.force_login(owner_a)
    response = client.post(
        reverse("dashboard:policy-test"),
        {
            "context": "The Eiffel Tower is in Paris. It was built from 1887 to 1889 and is 330 metres tall.",
            "query": "When was the Eiffel Tower built?",
            "response": "The Eiffel Tower was built in 1950 and is 330 metres tall.",
            "decision": "medical",
        },
    )
    assert response.status_code == 200
    outcome = response.context["outcome"]
    assert response.context["error"] == "", response.context["error"]
    assert outcome.resolved.decision == "medical"
    assert outcome.resolved.threshold == 0.3
    assert outcome.result.status == "verified"
    assert outcome.result.score is not None
    body = response.content.decode()
    assert "<dt>decision</dt><dd>medical</dd>" in body
    assert "<dt>threshold</dt><dd>0.3</dd>" in body


def test_test_box_reports_unknown_decision(client, owner_a, settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "DETECTOR": "lexical"}
    client.force_login(owner_a)
    response = client.post(
        reverse("dashboard:policy-test"),
        {
            "context": "Paris is in France.",
            "response": "Paris is in France.",
            "decision": "nope",
        },
    )
    assert "no decision of that name" in response.content.decode()


def test_the_editor_keeps_settings_it_does_not_show_and_saves_fact_checking(
    client, owner_a, tenant_a
):
    tenant = tenant_a.tenant
    doc = PolicyDocument.model_validate(
        {**RICH, "cascade": {"enabled": True, "low": 0.2, "high": 0.8}}
    )
    save_policy(tenant, owner_a, doc, PolicyChange.EDITOR)
    client.force_login(owner_a)
    body = editor_post(
        client,
        fact_check_search_sources=["knowledge_base", "web"],
        fact_check_knowledge_base="Handbook",
        fact_check_max_queries="3",
        fact_check_verify_threshold="0.4",
        **{"decisions-0-max_queries": "2", "decisions-0-search_sources": ["web"]},
    )
    assert client.post(reverse("dashboard:policy"), body).status_code == 302
    saved = current_document(tenant)
    assert saved.cascade == doc.cascade  # not on the form, and not lost by a save
    assert saved.fact_check.search_sources == ["knowledge_base", "web"]
    assert saved.fact_check.knowledge_base == "Handbook"
    assert (saved.fact_check.max_queries, saved.fact_check.verify_threshold) == (3, 0.4)
    conf = saved.decisions[0].plugins[0].configuration
    assert (conf.search_sources, conf.max_queries) == (["web"], 2)
