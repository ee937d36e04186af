"""The detail page of a truncated answer says how much was checked and marks the rest."""

from __future__ import annotations

from django.urls import reverse

from engine.detectors.lexical import LexicalDetector
from engine.types import DetectionInput

from .conftest import ANSWER, make_job

CUT = ANSWER.index("1950") + 4  # the scored prefix ends here


def _coverage(**fields) -> dict:
    return {
        "answer_truncated": True,
        "answer_tokens_given": 1140,
        "answer_tokens_checked": 385,
        **fields,
    }


def test_a_truncated_answer_says_what_was_checked_and_marks_the_rest(client, owner_a, tenant_a):
    job = make_job(tenant_a.tenant, coverage=_coverage(answer_chars_checked=CUT))
    client.force_login(owner_a)
    body = client.get(reverse("dashboard:verification", args=[job.public_id])).content.decode()
    assert "385 of 1,140 answer tokens checked" in body
    tail = ANSWER[CUT:]
    assert f'<span class="badge warn">not checked</span>{tail}</span>' in body
    assert 'aria-describedby="coverage-note"' in body


def test_an_old_truncated_job_without_the_offset_still_says_so(client, owner_a, tenant_a):
    job = make_job(tenant_a.tenant, coverage=_coverage())
    client.force_login(owner_a)
    body = client.get(reverse("dashboard:verification", args=[job.public_id])).content.decode()
    assert "385 of 1,140 answer tokens checked" in body
    assert "Where the check stopped was not recorded" in body
    assert "not checked</span>" not in body


def test_a_whole_answer_has_no_coverage_note(client, owner_a, tenant_a):
    job = make_job(tenant_a.tenant, coverage={"answer_truncated": False})
    client.force_login(owner_a)
    body = client.get(reverse("dashboard:verification", args=[job.public_id])).content.decode()
    assert "answer tokens checked" not in body


def test_the_detectors_record_how_much_of_the_answer_they_scored():
    item = DetectionInput(context=["Paris is in France."], response="Paris is in Spain.")
    [prediction] = LexicalDetector().predict([item])
    assert prediction.coverage.answer_chars_checked == len(item.response)
