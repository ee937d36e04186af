"""Dates counted in working days: a worked-out end date passes, one a day off does not."""

from __future__ import annotations

import datetime

from engine.scoring import working_days
from engine.scoring.typed_checks import check

QUOTE = (
    "Installation takes 4 working days; earliest start date Monday 9 June. "
    "The quote is valid for 60 days."
)


def verdicts(context: str, answer: str) -> dict[str, str]:
    return {answer[f.start : f.end].rstrip("."): f.verdict for f in check([context], answer)}


def test_working_days_skip_the_weekend_and_count_the_first_day():
    friday = datetime.date(2025, 6, 13)
    assert working_days.ends(friday, 1)[0] == datetime.date(2025, 6, 16)  # Monday
    assert datetime.date(2025, 6, 12) in working_days.ends(datetime.date(2025, 6, 9), 4)


def test_a_date_without_its_year_takes_the_year_of_its_weekday():
    text = "start Monday 9 June"
    years = working_days.years_of(text, text.index("9 June"), 6, 9, known=[])
    assert 2025 in years
    assert 2024 not in years  # 9 June 2024 was a Sunday


def test_an_end_date_worked_out_in_working_days_passes_and_a_day_off_is_flagged():
    ok = "If we start on Monday 9 June, the four working days of installation end on 12 June."
    off = "If we start on Monday 9 June, the four working days of installation end on 17 June."
    assert verdicts(QUOTE, ok)["12 June"] == "match"
    assert verdicts(QUOTE, off)["17 June"] != "match"


def test_without_a_weekday_or_a_year_nothing_is_worked_out_in_working_days():
    context = "Installation takes 4 working days from 9 June."
    assert verdicts(context, "Installation would end on 12 June.")["12 June"] != "match"
