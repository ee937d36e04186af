"""Answers in CJK, RTL scripts and with emoji: span offsets index the answer exactly.

Offsets are Python string (code point) indices into the `response` as sent, so a
client can slice `response[start:end]`; astral characters (emoji) and combining
sequences before a span must not shift it.
"""

from __future__ import annotations

import pytest

from verification.models import VerificationJob
from workers.tasks.detect import detect

pytestmark = pytest.mark.django_db

CONTEXT = ["The Eiffel Tower is in Paris. It was built from 1887 to 1889 and is 330 metres tall."]
# English answers (the test detector's language) carrying other scripts before the span.
MIXED = {
    "cjk": "The Eiffel Tower (埃菲尔铁塔, エッフェル塔, 에펠탑) was built in 1950 and is 330 metres tall.",
    "rtl": "The Eiffel Tower (برج إيفل / מגדל אייפל) was built in 1950 and is 330 metres tall.",
    "emoji": "🗼🇫🇷 The Eiffel Tower 👩‍👩‍👧 was built in 1950 and is 330 metres tall. 👍🏽",
}
# Whole answers in a language the detector does not read: a clean, explained outcome.
FOREIGN = {
    "zh": (
        ["埃菲尔铁塔位于巴黎，建于1887年至1889年，高330米。"],
        "埃菲尔铁塔建于1950年，高330米。",
    ),
    "ar": (
        ["برج إيفل في باريس. تم بناؤه بين عامي 1887 و 1889 ويبلغ ارتفاعه 330 مترا."],
        "تم بناء برج إيفل في عام 1950 ويبلغ ارتفاعه 330 مترا.",
    ),
    "he": (
        ["מגדל אייפל בפריז נבנה בין השנים 1887 ל-1889 וגובהו 330 מטר."],
        "מגדל אייפל נבנה בשנת 1950 וגובהו 330 מטר.",
    ),
}


def _verify(client, context: list[str], answer: str) -> tuple[dict, VerificationJob]:
    created = client.post(
        "/v1/verifications",
        {"context": context, "query": "When was it built?", "response": answer},
        format="json",
    )
    assert created.status_code == 202
    job_id = created.json()["id"]
    pk = VerificationJob.parse_public_id(job_id)
    detect(str(pk))  # the detect task, called directly as a worker would
    return client.get(f"/v1/verifications/{job_id}").json(), VerificationJob.objects.get(pk=pk)


@pytest.mark.parametrize("name", sorted(MIXED))
def test_span_offsets_slice_the_answer_exactly(client_a, name):
    # given an answer whose changed year sits after CJK, RTL or emoji text
    answer = MIXED[name]
    # when it is verified
    body, job = _verify(client_a, CONTEXT, answer)
    # then the stored answer is the one sent and every span slices it exactly
    assert body["status"] == "completed", body
    assert body["verification_status"] == "verified", body
    assert job.response == answer
    assert body["spans"], body
    for span in body["spans"]:
        assert 0 <= span["start"] < span["end"] <= len(answer)
        assert answer[span["start"] : span["end"]] == span["text"]
    assert any("1950" in s["text"] for s in body["spans"]), body["spans"]


@pytest.mark.parametrize("lang", sorted(FOREIGN))
def test_an_answer_in_an_unsupported_script_is_checked_on_its_values_not_an_error(client_a, lang):
    context, answer = FOREIGN[lang]
    body, job = _verify(client_a, context, answer)
    assert body["status"] == "completed"
    assert f"'{lang}'" in body["reason"]
    # only the checks that need no language model run (issue 20): values, when it states any
    # the context settles ("1950" against 1887-1889), else it stays unverifiable
    if body["verification_status"] == "verified":
        assert body["coverage"]["checks"] == ["values"]
        assert "only numbers, dates, times, money and units" in body["reason"]
        assert [s["text"] for s in body["spans"] if s["label"] == "contradiction"] == ["1950"]
    else:
        assert body["verification_status"] == "unverifiable"
    assert job.response == answer
    assert job.context == context
    for span in body["spans"]:
        assert answer[span["start"] : span["end"]] == span["text"]
