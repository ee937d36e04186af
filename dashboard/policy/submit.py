"""Reading the policy editor's submission: the document it describes, or every problem.

Both forms are validated, then whatever they could read goes through
`check_policy` (pydantic plus the publishing checks), so one submit reports
everything: a number that does not parse, a threshold out of range, a default
mode that is not allowed and a decision without conditions all show at once.
Each problem sits on its field and is listed at the top with its human name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine import Available, PolicyDocument, Problem, check_policy

from .forms import DecisionForm, DecisionFormSet, GlobalSettingsForm
from .labels import decision_field, global_label, human_loc


@dataclass
class Submission:
    settings_form: GlobalSettingsForm
    decisions: DecisionFormSet
    document: PolicyDocument | None = None
    #: "Human name: message", every problem of the submission, in page order
    problems: list[str] = field(default_factory=list)

    @property
    def version(self) -> int | None:
        return self.settings_form.cleaned_data.get("version")


def editor_forms(doc: PolicyDocument, version: int, data=None):
    settings_form = GlobalSettingsForm(data, initial=GlobalSettingsForm.initial_from(doc, version))
    decisions = DecisionFormSet(
        data, prefix="decisions", initial=[DecisionForm.initial_from(d) for d in doc.decisions]
    )
    return settings_form, decisions


def _kept(decisions) -> list[int]:
    """Indexes of the decision forms that become decisions (not deleted, not the empty one)."""
    return [
        i
        for i, f in enumerate(decisions.forms)
        if getattr(f, "cleaned_data", None) is not None
        and not f.cleaned_data.get("DELETE")
        and (i < decisions.initial_form_count() or f.has_changed())
    ]


def _form_errors(sub: Submission, names: list[str]) -> None:
    for name, errors in sub.settings_form.errors.items():
        path = GlobalSettingsForm.PATHS.get(name)
        label = global_label(path[0]) if path else "Policy"
        sub.problems += [f"{label}: {e}" for e in errors]
    for i, form in enumerate(sub.decisions.forms):
        if not form.has_changed() and i >= sub.decisions.initial_form_count():
            continue
        for name, errors in form.errors.items():
            where = f"Decision {i + 1}" + (f" ({names[i]})" if names[i] else "")
            if name != "__all__":
                where += f" → {DecisionForm.base_fields[name].label}"
            sub.problems += [f"{where}: {e}" for e in errors]
    sub.problems += [f"Decisions: {e}" for e in sub.decisions.non_form_errors()]


def _attach(sub: Submission, problems: list[Problem], kept: list[int], names: list[str]) -> None:
    """Put each document problem on its field; one the form already refused is not repeated."""
    for problem in problems:
        loc = problem.loc
        if loc[:1] == ("decisions",) and len(loc) > 1 and isinstance(loc[1], int):
            form = sub.decisions.forms[kept[loc[1]]] if loc[1] < len(kept) else None
            name = decision_field(tuple(loc[2:]))
            if form is None:
                target, name = sub.settings_form, None
            else:
                target = form
            human = human_loc(("decisions", kept[loc[1]], *loc[2:]) if form else loc, names)
        else:
            target, name = sub.settings_form, GlobalSettingsForm.field_for(loc)
            human = human_loc(loc)
        if name is not None and name in target.errors:
            continue
        target.add_error(name, problem.message)
        sub.problems.append(f"{human}: {problem.message}")


def read_submission(
    data, stored: PolicyDocument, stored_version: int, available: Available | None = None
) -> Submission:
    """The editor's POST `data` over the `stored` policy: a document, or its problems."""
    settings_form, decisions = editor_forms(stored, stored_version, data)
    sub = Submission(settings_form, decisions)
    forms_valid = settings_form.is_valid() & decisions.is_valid()  # both, always
    # names by form position, for "Decision 2 (medical)"
    names = [
        (getattr(f, "cleaned_data", None) or {}).get("name") or (f.initial or {}).get("name", "")
        for f in decisions.forms
    ]
    _form_errors(sub, names)
    kept = _kept(decisions)
    document = settings_form.to_document(stored.model_dump())
    document["decisions"] = [decisions.forms[i].to_decision() for i in kept]
    validated, problems = check_policy(document, available)
    _attach(sub, problems, kept, names)
    if forms_valid and validated is not None:
        sub.document = validated
    return sub
