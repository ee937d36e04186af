"""Policy editor, publishing: lossless round trip, every problem at once with human names,
stale saves refused with a diff, draft testing, restore, and the previewed YAML import."""

from __future__ import annotations

import pytest
from django.urls import reverse

from dashboard.models import PolicyChange
from dashboard.policy.actions import current_document, save_policy
from dashboard.policy.forms import DecisionForm, GlobalSettingsForm
from dashboard.policy.labels import human_loc
from dashboard.policy.yaml_io import dump_yaml
from engine.policy import PolicyDocument
from engine.policy_checks import check_policy, model_name_problem
from tenants.models import Policy

from .html_form import form_data
from .policy_full import FULL, unset_fields

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("providers_a")]
EDITOR = "dashboard:policy"


def untouched_form(client) -> dict[str, list[str]]:
    return form_data(client.get(reverse(EDITOR)).content.decode(), "policy-form")


def with_changes(data: dict, **changes) -> dict:
    out = dict(data)
    for name, value in changes.items():
        out[name] = value if isinstance(value, list) else [str(value)]
    return out


@pytest.fixture
def full_policy(tenant_a, owner_a):
    document = PolicyDocument.model_validate(FULL)
    assert unset_fields(document) == []  # every field of the schema is off its default
    save_policy(tenant_a.tenant, owner_a, document, PolicyChange.EDITOR)
    return document


def test_every_field_round_trips_through_the_editor_unchanged(
    client, owner_a, tenant_a, full_policy
):
    # given a stored policy with a non-default value in every field
    client.force_login(owner_a)
    # when the editor is loaded and submitted as the browser would send it
    response = client.post(reverse(EDITOR), untouched_form(client))
    # then the document is exactly the stored one, and no version was added
    assert response.status_code == 302, response.context and response.context["problems"]
    assert current_document(tenant_a.tenant) == full_policy
    assert current_document(tenant_a.tenant).model_dump() == full_policy.model_dump()
    assert PolicyChange.objects.filter(tenant=tenant_a.tenant).count() == 1


def test_cascade_is_editable(client, owner_a, tenant_a, full_policy):
    client.force_login(owner_a)
    body = with_changes(
        untouched_form(client),
        cascade_low="0.1",
        cascade_high="0.6",
        cascade_judge_model="anthropic/claude-3-5-haiku-20241022",
    )
    del body["cascade_enabled"]
    assert client.post(reverse(EDITOR), body).status_code == 302
    cascade = current_document(tenant_a.tenant).cascade
    assert (cascade.enabled, cascade.low, cascade.high) == (False, 0.1, 0.6)
    assert cascade.judge_model == "anthropic/claude-3-5-haiku-20241022"


def test_every_problem_is_reported_in_one_pass_with_human_names(
    client, owner_a, tenant_a, full_policy
):
    client.force_login(owner_a)
    body = with_changes(
        untouched_form(client),
        threshold="1.7",  # out of range (the schema)
        standard_max_iterations="many",  # not a number (the form)
        allowed_modes=[],  # inconsistent
        premium_judge_model="???not a model<script>",
        **{
            "decisions-0-conditions": "",  # a decision that never applies
            "decisions-0-threshold": "4",  # plugins.0.configuration.threshold
            "decisions-1-conditions": "color: blue",  # unreadable (the form)
        },
    )
    response = client.post(reverse(EDITOR), body)
    assert response.status_code == 400
    problems = response.context["problems"]
    expected = [
        "Hallucination threshold: Input should be less than or equal to 1",
        "Standard mode → Refinement rounds: Enter a whole number.",
        "Allowed modes: Allow at least one mode.",
        "Premium mode → Judge model: '???not a model<script>' is not a model name",
        "Decision 1 (medical) → Conditions: A decision needs at least one condition",
        "Decision 1 (medical) → Hallucination threshold: Input should be less than or equal to 1",
        "Decision 2 (quiet) → Conditions: Line 1",
    ]
    for start in expected:
        assert any(p.startswith(start) for p in problems), (start, problems)
    assert len(problems) == len(expected), problems
    page = response.content.decode()
    assert "<script>" not in page.split('id="policy-problems"')[1][:4000]
    assert "7 problems" in page
    # and each sits on its field too
    assert "threshold" in response.context["settings_form"].errors
    assert "threshold" in response.context["decisions"].forms[0].errors
    assert current_document(tenant_a.tenant) == full_policy


def test_a_default_mode_that_is_not_allowed_is_refused(client, owner_a, tenant_a, full_policy):
    client.force_login(owner_a)
    body = with_changes(untouched_form(client), default_mode="lightweight")
    response = client.post(reverse(EDITOR), body)
    assert response.status_code == 400
    assert response.context["problems"] == [
        "Default mode: The default mode 'lightweight' is not an allowed mode."
    ]


def test_model_names_must_look_like_models():
    assert model_name_problem("openai/gpt-4o-mini") is None
    assert model_name_problem("bedrock/anthropic.claude-3-haiku-20240307-v1:0") is None
    assert model_name_problem("gpt-4o") is None  # a plain name litellm knows
    assert model_name_problem("not-a-model-anyone-knows") is not None
    assert model_name_problem("???not a model<script>") is not None
    assert model_name_problem("openai/gpt 4o") is not None


def test_check_policy_reports_schema_and_consistency_problems_together():
    document, problems = check_policy(
        {"threshold": 3, "allowed_modes": ["lightweight"], "default_mode": "premium"}
    )
    assert document is None
    assert {p.loc for p in problems} == {("threshold",), ("default_mode",)}


@pytest.mark.parametrize(
    ("loc", "name"),
    [
        (("decisions", 0, "plugins", 0, "configuration", "threshold"), "Decision 1 → "),
        (("decisions", 0, "rules", "conditions"), "Decision 1 → Conditions"),
        (("decisions", 2, "modelRefs", 0), "Decision 3 → Models"),
        (("cascade", "high"), "Judge for uncertain spans → Upper confidence bound"),
        (("budgets", "per_request_usd"), "Budgets → Limit per request (USD)"),
        (("threshold",), "Hallucination threshold"),
    ],
)
def test_error_paths_read_as_field_names(loc, name):
    assert human_loc(loc).startswith(name)
    assert "_" not in human_loc(loc).replace("per_request", "")


def test_every_field_has_written_wording():
    # Django would make "Budget per request usd" from the name; every field says more
    for form in (GlobalSettingsForm, DecisionForm):
        for name, field in form.base_fields.items():
            if name != "version":
                assert field.label, name


def test_policy_pages_speak_to_users_not_to_the_design_doc(client, owner_a, full_policy):
    client.force_login(owner_a)
    for url in ("dashboard:policy", "dashboard:policy-import", "dashboard:policy-test"):
        page = client.get(reverse(url)).content.decode()
        assert "DESIGN" not in page
        assert "§" not in page
        assert "modelRefs" not in page
        assert "Budget per request usd" not in page


def test_a_save_from_a_stale_tab_is_refused_with_the_diff(client, owner_a, tenant_a, full_policy):
    # given two tabs opened on version 1
    client.force_login(owner_a)
    first, second = untouched_form(client), untouched_form(client)
    assert first["version"] == ["1"]
    # when the first saves, then the second
    assert client.post(reverse(EDITOR), with_changes(first, threshold="0.35")).status_code == 302
    response = client.post(reverse(EDITOR), with_changes(second, threshold="0.8"))
    # then the second is refused, nothing of it is stored, and the page shows the difference
    assert response.status_code == 409
    assert current_document(tenant_a.tenant).threshold == 0.35
    assert Policy.objects.get(tenant=tenant_a.tenant).version == 2
    diff = response.context["conflict"]["diff"]
    assert "-threshold: 0.35" in diff
    assert "+threshold: 0.8" in diff
    page = response.content.decode()
    assert "someone else saved the policy" in page
    assert "+threshold: 0.8" in page
    # and saving the re-shown form (now on version 2) replaces version 2 knowingly
    again = form_data(page, "policy-form")
    assert again["version"] == ["2"]
    assert again["threshold"] == ["0.8"]
    assert client.post(reverse(EDITOR), again).status_code == 302
    assert current_document(tenant_a.tenant).threshold == 0.8


def test_the_draft_can_be_tested_before_it_is_published(
    client, owner_a, tenant_a, full_policy, settings
):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "DETECTOR": "lexical"}
    client.force_login(owner_a)
    # given an unsaved edit: verification on, a new threshold, the decision no longer disabling
    draft = with_changes(untouched_form(client), enabled="on", threshold="0.27")
    draft["draft_from_editor"] = ["1"]
    page = client.post(reverse("dashboard:policy-test"), draft)
    # then the test page says it tests the draft, and carries it
    assert page.status_code == 200
    assert "unsaved draft" in page.content.decode()
    carried = form_data(page.content.decode(), "policy-test-form")["draft"][0]
    assert "threshold: 0.27" in carried
    # when the test runs
    response = client.post(
        reverse("dashboard:policy-test"),
        {
            "draft": carried,
            "context": "The Eiffel Tower is in Paris. It was built from 1887 to 1889.",
            "query": "Where is the Eiffel Tower?",
            "response": "The Eiffel Tower is in Rome.",
        },
    )
    # then it ran under the draft, and the stored policy is untouched
    outcome = response.context["outcome"]
    assert outcome is not None, response.context["error"]
    assert outcome.resolved.threshold == 0.27
    assert outcome.resolved.enabled is True
    assert current_document(tenant_a.tenant) == full_policy
    # and the saved policy, tested the usual way, still has its own threshold
    saved = client.post(
        reverse("dashboard:policy-test"),
        {"context": "Paris is in France.", "response": "Paris is in France."},
    )
    assert saved.context["outcome"].resolved.threshold == 0.42


def test_a_draft_with_problems_says_so_instead_of_running(client, owner_a, full_policy):
    client.force_login(owner_a)
    draft = with_changes(untouched_form(client), threshold="9", draft_from_editor="1")
    page = client.post(reverse("dashboard:policy-test"), draft).content.decode()
    assert "The draft cannot be tested" in page
    assert "Hallucination threshold: Input should be less than or equal to 1" in page


def test_restore_publishes_an_old_version_as_a_new_one(client, owner_a, tenant_a, full_policy):
    client.force_login(owner_a)
    client.post(reverse(EDITOR), with_changes(untouched_form(client), threshold="0.9"))
    assert current_document(tenant_a.tenant).threshold == 0.9
    history = client.get(reverse("dashboard:policy-history")).content.decode()
    assert "Restore version 1" in history
    assert "Restore version 2" not in history  # the current one
    response = client.post(reverse("dashboard:policy-restore", kwargs={"version": 1}))
    assert response.status_code == 302
    assert current_document(tenant_a.tenant) == full_policy
    latest = PolicyChange.objects.filter(tenant=tenant_a.tenant).first()
    assert (latest.version, latest.source) == (3, PolicyChange.RESTORE)


def test_restore_is_for_editors_and_for_versions_of_ones_own_tenant(
    client, viewer_a, owner_b, owner_a, tenant_a, full_policy
):
    url = reverse("dashboard:policy-restore", kwargs={"version": 1})
    client.force_login(viewer_a)
    assert client.post(url).status_code == 403
    client.force_login(owner_b)
    assert client.post(url).status_code == 404  # tenant A's version 1 is not B's
    assert client.get(url).status_code == 405


def test_import_shows_the_diff_before_it_replaces_the_policy(
    client, owner_a, tenant_a, full_policy
):
    client.force_login(owner_a)
    text = dump_yaml(full_policy).replace("threshold: 0.42", "threshold: 0.44")
    # when the YAML is uploaded, the page previews the change and nothing is saved yet
    preview = client.post(reverse("dashboard:policy-import"), {"yaml_text": text})
    assert preview.status_code == 200
    assert "-threshold: 0.42" in preview.context["diff"]
    assert "+threshold: 0.44" in preview.context["diff"]
    assert current_document(tenant_a.tenant).threshold == 0.42
    # when it is confirmed, it is imported
    confirm = form_data(preview.content.decode(), "import-confirm")
    assert confirm["version"] == ["1"]
    assert client.post(reverse("dashboard:policy-import"), confirm).status_code == 302
    assert current_document(tenant_a.tenant).threshold == 0.44


def test_an_import_confirmed_after_the_policy_moved_on_is_refused(
    client, owner_a, tenant_a, full_policy
):
    client.force_login(owner_a)
    text = dump_yaml(full_policy).replace("threshold: 0.42", "threshold: 0.44")
    preview = client.post(reverse("dashboard:policy-import"), {"yaml_text": text})
    confirm = form_data(preview.content.decode(), "import-confirm")
    client.post(reverse(EDITOR), with_changes(untouched_form(client), threshold="0.5"))
    response = client.post(reverse("dashboard:policy-import"), confirm)
    assert response.status_code == 409
    assert current_document(tenant_a.tenant).threshold == 0.5
    assert "-threshold: 0.5" in response.context["diff"]


def test_an_inconsistent_import_is_refused_with_human_names(client, owner_a, tenant_a):
    client.force_login(owner_a)
    response = client.post(
        reverse("dashboard:policy-import"),
        {"yaml_text": "allowed_modes: [lightweight]\ndecisions:\n  - name: x\n"},
    )
    assert response.status_code == 400
    body = response.content.decode()
    assert "decisions.0.rules.conditions (Decision 1 → Conditions)" in body
    assert not Policy.objects.filter(tenant=tenant_a.tenant).exists()
