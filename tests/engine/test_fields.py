"""A person from one field of a tool result given in another field's role (`scoring/fields.py`)."""

import pytest

from engine.scoring.fields import field_findings
from engine.scoring.typed_checks import check

PIPELINE = (
    '{"pipeline_id": 90317, "status": "failed", "triggered_by": "hwong", '
    '"commit_author": "dbaptiste", "duration_s": 754}'
)
TICKET = (
    '{"ticket": "SUP-4410", "reporter": "Omar Haddad", "assignee": "Grace Lee", '
    '"priority": "high", "opened": "2025-02-03T09:12:00Z"}'
)


@pytest.mark.parametrize(
    ("context", "right", "wrong", "said"),
    [
        (
            PIPELINE,
            "The run was triggered by hwong and failed after 12 minutes.",
            "The run was triggered by dbaptiste and failed after 12 minutes.",
            "dbaptiste",
        ),
        (
            TICKET,
            "Omar Haddad reported it, and the ticket is assigned to Grace Lee.",
            "The ticket is assigned to Omar Haddad.",
            "Omar Haddad",
        ),
    ],
)
def test_a_value_in_another_fields_role_is_a_conflict(context, right, wrong, said):
    assert field_findings([context], right) == []
    [found] = field_findings([context], wrong)
    assert wrong[found.start : found.end] == said
    assert found.verdict == "conflict"
    assert found.reason.startswith("wrong field: the context gives")
    assert [f for f in check([context], wrong) if f.kind == "role" and f.verdict == "conflict"]


def test_ids_dates_and_fields_without_a_role_are_not_compared():
    answer = "Ticket SUP-4410, opened on 3 February, has high priority and is with the reporter."
    assert field_findings([TICKET], answer) == []
