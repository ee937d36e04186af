"""Weekdays judged by the calendar (engine/scoring/weekdays.py), through the typed checks."""

from __future__ import annotations

from engine.scoring import typed_checks
from engine.scoring.weekdays import allowed_years

ITINERARY = [
    "Day 1 (Monday 7 October): arrive Rome Fiumicino 11:20, transfer to the hotel. "
    "Day 2: guided tour of the Vatican. Day 3: train from Rome Termini to Florence at 08:15."
]


def _weekday_findings(context, answer, query=None):
    return [
        (answer[f.start : f.end], f.verdict)
        for f in typed_checks.check(context, answer, query)
        if f.kind == "class"
    ]


def test_a_weekday_counted_from_a_stated_date_is_not_a_contradiction():
    answer = "The Florence train leaves Rome Termini at 08:15 on Wednesday 9 October."
    assert _weekday_findings(ITINERARY, answer) == []


def test_a_weekday_the_date_beside_it_does_not_fall_on_is_contradicted():
    answer = "The Florence train leaves Rome Termini at 08:15 on Thursday 9 October."
    assert ("Thursday", "conflict") in _weekday_findings(ITINERARY, answer)


def test_a_weekday_alone_is_unconfirmed_not_contradicted():
    context = ["Orders placed before 14:00 on a working day leave the warehouse on Monday."]
    answer = "Your order leaves the warehouse on Monday, and it should reach you on Tuesday."
    assert _weekday_findings(context, answer) == [("Tuesday", "absent")]


def test_a_weekday_the_question_states_is_the_users_premise():
    context = ["Orders placed before 14:00, Monday to Friday, leave the warehouse the same day."]
    query = "I ordered at 11:30 on Thursday. When does it leave?"
    answer = "It was placed before 14:00, so it leaves the warehouse the same day, Thursday."
    assert _weekday_findings(context, answer, query) == []


def test_the_years_a_context_allows_follow_its_weekday_and_date_pairs():
    years = allowed_years(["Event: Friday 11 December, delivery at 11:30."])
    assert 2026 in years
    assert 2025 not in years
    assert allowed_years(["Fees from 11 April 2024."]) == {2024}
    assert allowed_years(["No dates here."]) == set()
