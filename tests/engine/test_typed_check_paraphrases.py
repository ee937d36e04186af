"""Typed checks on faithful paraphrases: what a good model writes when it restates a
context must not become a contradiction, and the same sentence with a real error still
must. Each case comes as a pair: the faithful answer, then the wrong one."""

from __future__ import annotations

import json

import pytest

from engine.scoring.typed_checks import check
from engine.scoring.typed_values import values


def conflicts(context: str, answer: str) -> list[str]:
    return [answer[f.start : f.end] for f in check([context], answer) if f.verdict == "conflict"]


def verdicts(context: str, answer: str) -> dict[str, str]:
    return {answer[f.start : f.end]: f.verdict for f in check([context], answer)}


WARRANTY = "The warranty does not cover filters, brushes or damage caused by misuse."
LEAFLET = "Do not use for more than 10 days for pain without consulting a doctor."
PTO = "Requests for more than 3 days off must be submitted two weeks in advance."
WAITS = "The median wait from arrival to being seen fell from 94 minutes to 71 minutes."
FLIGHT = json.dumps(
    {
        "flight": "LH 431",
        "scheduled_departure": "2024-06-03T10:35:00+02:00",
        "estimated_departure": "2024-06-03T11:20:00+02:00",
    }
)
CALENDAR = json.dumps(
    {"events": [{"title": "Planning", "start": "09:00", "end": "10:30"},
                {"title": "1:1", "start": "13:00", "end": "13:30"}]}
)  # fmt: skip
STATEMENT = json.dumps(
    {
        "transactions": [
            {"description": "Payroll deposit", "amount": 2450.0},
            {"description": "Rent - Oakview Apartments", "amount": -1375.0},
            {"description": "Whole Foods Market", "amount": -86.42},
            {"description": "Netflix", "amount": -15.49},
        ]
    }
)
IELTS = "You need an IELTS score of 6.5 overall with no component below 6.0."
QUOTE = json.dumps({"symbol": "NVTA", "price": 48.27, "change_percent": -2.29})
FORECAST = json.dumps({"forecast": {"condition": "partly cloudy", "precip_probability": 0.1}})
MACHINES = (
    "| Model | Capacity | Price |\n|---|---|---|\n| WM-7 | 7 kg | €429 |\n"
    "| WM-9 | 9 kg | €549 |\n| WM-10X | 10 kg | €699 |"
)
NUTRITION = (
    "item,serving,calories,protein_g\nGreek yogurt (plain),170 g,100,17\n"
    "Almonds,28 g,164,6\nBanana (medium),118 g,105,1.3"
)
RESULTS = (
    "The company kept its full-year revenue forecast unchanged. "
    "A new plant in Ohio will begin production in the first quarter of next year."
)


@pytest.mark.parametrize(
    ("context", "faithful", "wrong", "error"),
    [
        # a negative said with a word, not a negation ("excluded" = "does not cover")
        (WARRANTY, "Brushes are excluded from the warranty.", "Brushes are covered by the warranty.", "are"),
        # a negated excess is an upper bound
        (LEAFLET, "You can use it for up to ten days for pain.", "You can use it for more than ten days for pain.", "can"),
        # one duration in two units
        (PTO, "Submit such requests at least 14 days ahead.", "Submit such requests at least 10 days ahead.", "10 days"),
        # a difference of two stated values is worked out, not invented
        (WAITS, "The median wait fell by 23 minutes, to 71 minutes.", "The median wait fell by 23 minutes, to 74 minutes.", "74 minutes"),
        # an ISO date-time's time, and its zone offset is no time at all
        (FLIGHT, "It was scheduled for 10:35 and now leaves at 11:20.", "It was scheduled for 10:50 and now leaves at 11:20.", "10:50"),
        # a time without am/pm may be an afternoon one
        (CALENDAR, "You are busy from 1:00 to 1:30.", "You are busy from 1:00 to 2:30.", "2:30"),
        # a negated shortfall is a lower bound
        (IELTS, "Each component must be at least 6.0.", "Each component must be 6.0.", "must"),
        # a probability in a tool result, said as a percentage
        (FORECAST, "There is a 10% chance of rain.", "There is a 30% chance of rain.", "30%"),
        # a rounded figure
        (QUOTE, "The stock fell about 2.3% today.", "The stock fell about 2.9% today.", "2.9%"),
    ],
)  # fmt: skip
def test_a_faithful_paraphrase_passes_and_the_same_sentence_with_an_error_conflicts(
    context, faithful, wrong, error
):
    assert conflicts(context, faithful) == []
    assert error in conflicts(context, wrong)


def test_a_sentence_walking_through_several_rows_reads_each_clause_against_its_own_row():
    faithful = (
        "Plain Greek yogurt (170 g) has 100 kcal and 17 g protein; almonds (28 g) have "
        "164 kcal and 6 g protein; and a medium banana (118 g) has 105 kcal."
    )
    assert conflicts(NUTRITION, faithful) == []
    # one clause naming one row with another row's number is still a wrong row
    assert conflicts(NUTRITION, "Almonds have 100 kcal per serving.") == ["100"]


def test_a_row_is_named_by_its_name_without_the_parenthesis_or_the_part_after_a_dash():
    answer = "Rent took $1,375 and Whole Foods Market $86.42."
    # two rows named: neither number is read against the other row
    assert conflicts(STATEMENT, answer) == []


def test_clauses_joined_by_and_are_compared_with_their_own_context_sentence():
    answer = (
        "The company left its full-year forecast unchanged, and the new Ohio plant will "
        "begin production in the first quarter of next year."
    )
    assert conflicts(RESULTS, answer) == []
    assert "last" in conflicts(RESULTS, "The new Ohio plant will begin production in the last quarter of next year.")  # fmt: skip


def test_units_of_one_dimension_compare_by_size_and_others_do_not():
    (weeks,) = values("two weeks")
    (days,) = values("14 days")
    (km,) = values("1.5 km")
    (m,) = values("1500 m")
    (months,) = values("14 months")
    assert weeks.same(days)
    assert km.same(m)
    assert not months.same(days)
    # a bare number still compares with a sized one by the number as written
    (bare,) = values("14")
    assert bare.same(days)


def test_the_zone_offset_of_an_iso_date_time_is_not_read_as_a_time():
    found = [(v.kind, v.canon) for v in values("2024-06-03T10:35:00+02:00")]
    assert ("time", (10, 35)) in found
    assert ("time", (2, 0)) not in found


def test_a_weather_word_named_as_a_chance_is_no_rival_of_the_stated_condition():
    assert conflicts(FORECAST, "It will be partly cloudy, with a 10% chance of rain.") == []
    assert "rainy" in conflicts(FORECAST, "It will be rainy all day.")


def test_a_number_inside_a_model_code_is_not_read_as_a_value():
    answer = "The WM-10X costs €699, €270 more than the WM-7."
    assert conflicts(MACHINES, answer) == []
    assert conflicts(MACHINES, "The WM-10X holds 7 kg.") == ["7"]


def test_a_sum_is_only_rounded_where_the_answer_says_it_is_approximate():
    # 1,375 + 86.42 + 15.49 = 1,476.91; "$1,480" without "about" claims a figure the
    # statement does not give
    assert conflicts(STATEMENT, "You spent about $1,480 on rent, groceries and Netflix.") == []
    assert verdicts(STATEMENT, "You spent $1,480 on rent, groceries and Netflix.") == {
        "$1,480": "absent"
    }


def test_a_value_the_user_gave_in_the_question_is_a_premise_not_a_claim():
    context = "One dog weighing under 20 kg is allowed per flat."
    answer = "Yes, your 15 kg dog is allowed."
    assert conflicts(context, answer) == ["15 kg"]  # without the question: unsupported
    found = check([context], answer, "I have a 15 kg dog. Can I bring it?")
    assert [f.verdict for f in found if answer[f.start : f.end] == "15 kg"] == ["match"]
    # ... and a figure worked out from it (2 x €5) is no contradiction either
    fee = "A freeze costs €5 per month."
    said = "A two-month freeze costs €10 in total."
    assert [f for f in check([fee], said, "I want to freeze for two months.") if f.verdict == "conflict"] == []  # fmt: skip


def test_hours_and_minutes_are_one_duration_however_spelled():
    assert [(v.canon, v.unit) for v in values("two hours and forty-five minutes")] == [((165.0,), "min")]  # fmt: skip
    sleep = json.dumps({"sleep": {"duration_min": 412}})
    assert conflicts(sleep, "You slept 6 hours 52 minutes.") == []
    assert conflicts(sleep, "You slept 7 hours 52 minutes.") == ["7 hours 52 minutes"]


def test_a_probability_field_over_one_is_already_a_percentage():
    hourly = json.dumps({"hourly": [{"time": "09:00", "precip_prob": 10}]})
    assert conflicts(hourly, "Only a 10% chance of rain at 9 am.") == []
    assert conflicts(hourly, "A 40% chance of rain at 9 am.") == ["40%"]


def test_a_table_value_is_not_read_from_a_time_or_from_a_row_the_clause_names_in_part():
    classes = "| Day | Class | Start |\n|---|---|---|\n| Tuesday | Yoga | 07:30 |\n| Thursday | Pilates | 19:00 |"  # fmt: skip
    assert conflicts(classes, "On Thursday Pilates starts at 7 pm.") == []
    menu = "item,price\nTomato & basil soup,5.50\nChicken liver pâté,7.00"
    said = "Starters: tomato and basil soup at £5.50 and the chicken liver pâté at £7."
    assert conflicts(menu, said) == []
    assert conflicts(menu, "The chicken liver pâté costs 5.50.") == ["5.50"]


def test_a_negated_condition_about_the_user_is_no_flip_and_a_negated_claim_still_is():
    policy = (
        "Return shipping is free for members of our Plus program; other customers pay a "
        "flat $6.95 return shipping fee."
    )
    assert conflicts(policy, "Because you aren't a Plus member, a flat $6.95 fee applies.") == []
    assert "n't" in conflicts(policy, "Return shipping isn't free for members of our Plus program.")


# Formats read as a person reads them, and values worked out with a plain number or a
# percentage (issue 20, item 2). Each pair: the worked-out value passes, the same answer
# with the value off is still a contradiction.

RACE = "Results: Ana Ruiz finished the half marathon in 1:05:30, a new course record."
GUIDANCE = "The board expects full-year revenue of €3.1–3.4 million, up from €2.9 million."
SALE = "All winter jackets are $50 this week, with a further 20% off at the till."
SHIFT = "Cleaning crews work 6 hours per shift."


@pytest.mark.parametrize(
    ("context", "faithful", "wrong", "wrong_value"),
    [
        (RACE, "Ana ran the half marathon in 65.5 minutes.", "Ana ran the half marathon in 67.5 minutes.", "67.5 minutes"),
        (RACE, "Ana's time was 1 hour, 5 minutes and 30 seconds.", "Ana's time was 1 hour, 6 minutes and 30 seconds.", "1 hour, 6 minutes and 30 seconds"),
        (GUIDANCE, "Revenue should land between €3.1 million and €3.4 million.", "Revenue should land between €3.1 million and €3.8 million.", "€3.8 million"),
        (SALE, "This week a winter jacket costs $40 at the till.", "This week a winter jacket costs $45 at the till.", "$45"),
    ],
)  # fmt: skip
def test_a_worked_out_value_passes_and_the_same_value_off_is_a_contradiction(
    context, faithful, wrong, wrong_value
):
    assert conflicts(context, faithful) == []
    assert conflicts(context, wrong) == [wrong_value]


def test_a_clock_duration_is_a_duration_and_a_clock_time_stays_a_time():
    assert [v.kind for v in values("She finished in 1:05:30.")] == ["quantity"]
    assert values("She finished in 1:05:30.")[0].base() == 3930
    assert [v.kind for v in values("The meeting starts at 14:30:00 sharp.")] == ["time"]


def test_a_range_gives_both_ends_its_unit_and_scale_and_two_values_stay_two():
    low, high = values("revenue of €3.1–3.4 million")
    assert (low.canon, low.unit, high.canon, high.unit) == ((3.1e6,), "eur", (3.4e6,), "eur")
    low, high = values("between 5 and 7 kg")
    assert (low.unit, high.unit) == ("kg", "kg")
    rise, total = values("revenue rose 12% to $4.2 billion")
    assert (rise.canon, rise.unit) == ((12.0,), "%")


def test_a_percentage_said_as_a_change_may_be_worked_out_and_a_chance_may_not():
    context = '{"city": "Lisbon", "high_c": 27, "low_c": 18, "rain_chance_pct": 5}'
    # 50% is (27 - 18) / 18, but a chance of rain is no change between the two
    assert conflicts(context, "Lisbon will reach 27°C with a 50% chance of rain.") == ["50%"]
    sales = "Unit sales were 1,200 in March and 1,500 in April."
    assert conflicts(sales, "April's unit sales were up 25% on March's.") == []
    # no percentage in the context to contradict: unsupported, not worked out
    assert verdicts(sales, "April's unit sales were up 30% on March's.") == {"30%": "absent"}


def test_a_value_presented_as_worked_out_that_no_derivation_reproduces_is_unsupported():
    # a wrong sum and a sum of operands the check cannot see look alike: the check
    # cannot settle it, so it is reported unsupported with its reason, never contradicted
    context = "Adult tickets are $12 and child tickets are $11. Parking is $6 per car."
    found = check(
        [context], "Two adults come to $24 and three children to $33, so the total is $91."
    )
    unsettled = [f for f in found if f.verdict == "absent"]
    assert [(f.start, f.end) for f in unsettled] == [(66, 69)]
    assert "not confirmed" in unsettled[0].reason
    # 2 × $12 and 3 × $11 are worked out, as settled as stated values
    assert [(f.start, f.verdict) for f in found if f.start < 66] == [(19, "match"), (45, "match")]
    # a total just off the answer's own figures (57) is that sum gone wrong, not an
    # unseen operand: a contradiction (`own_arithmetic`)
    off = check([context], "Two adults come to $24 and three children to $33, so the total is $59.")
    assert [(f.start, f.verdict) for f in off if f.start >= 66] == [(66, "conflict")]
    # the same figure stated flatly where the context states another is a contradiction
    assert conflicts(context, "Adult tickets are $13.") == ["$13"]


def test_a_calculation_word_after_the_value_marks_it_worked_out_too():
    # "or £220 altogether": the cue follows the figure; a total the check cannot
    # reproduce (4 bags x £55 on two flights) is unsupported, not a contradiction
    context = "Checked bags cost £22 each online and £55 each at the airport."
    answer = "Online four bags cost £88, while at the airport they come to £440 altogether."
    found = check([context], answer)
    start = answer.index("£440")
    at = [f for f in found if f.start == start]
    assert [f.verdict for f in at] == ["absent"]
    assert "not confirmed" in at[0].reason
    # without the cue, the same wrong figure is still a contradiction
    assert conflicts(context, "At the airport a bag costs £45.") == ["£45"]


def test_a_limit_restated_without_its_negation_and_a_free_of_word_are_no_flips():
    dose = "Do not give more than 4 tablets in 24 hours."
    assert conflicts(dose, "Give at most 4 tablets in any 24 hours.") == []
    assert conflicts(dose, "Give 4 tablets in 24 hours, one at a time.") == []
    assert conflicts(dose, "Give more than 4 tablets in 24 hours if needed.") != []
    cash = "We ended the quarter with $310 million in cash and no debt."
    assert (
        conflicts(cash, "The company ended the quarter debt-free with $310 million in cash.") == []
    )
    assert (
        conflicts(cash, "The company ended the quarter with debt and $310 million in cash.") != []
    )
    # "step-free" negates nothing the context says "no" to: the flip is still one.
    plans = "The plans include a new children's wing and step-free access throughout."
    assert (
        conflicts(plans, "The plans include a new children's wing but not step-free access.") != []
    )


def test_a_rate_per_minute_is_worked_out_per_hour():
    pump = "Model: AX-170 Centrifugal Pump. Flow rate: 45 L/min. Max head: 32 m."
    assert conflicts(pump, "The pump moves 45 litres per minute, or 2,700 litres an hour.") == []
    assert conflicts(pump, "The pump moves 45 litres per minute, or 2,900 litres an hour.") == [
        "2,900 litres"
    ]


@pytest.mark.parametrize(
    ("context", "faithful", "wrong", "wrong_value"),
    [
        # a total of three amounts
        (STATEMENT, "You spent $1,476.91 on rent, groceries and Netflix.", "You spent $1,576.91 on rent, groceries and Netflix.", "$1,576.91"),
        # ... rounded, and said to be
        (STATEMENT, "About $1,480 went on rent, groceries and Netflix.", "About $1,980 went on rent, groceries and Netflix.", "$1,980"),
        # a rate per shift times the answer's own count
        (SHIFT, "Three cleaning shifts keep a crew busy for 18 hours.", "Three cleaning shifts keep a crew busy for 21 hours.", "21 hours"),
    ],
)  # fmt: skip
def test_a_wrong_total_of_parts_or_of_a_rate_is_unsupported_not_contradicted(
    context, faithful, wrong, wrong_value
):
    # the context states the parts or the rate, never the total: the right total is
    # worked out, and a wrong one is unsupported (no context amount says another total)
    assert conflicts(context, faithful) == []
    assert verdicts(context, faithful).get(wrong_value) is None
    assert verdicts(context, wrong)[wrong_value] == "absent"


def test_an_ending_said_with_a_verb_is_no_flip_of_a_negation():
    fees = "Award seat change fees will be abolished for all tiers."
    assert conflicts(fees, "Nobody will pay a fee to change an award seat any more.") == []
    export = "Customer Brightline reported that CSV exports from the Reports tab time out for long ranges."
    assert (
        conflicts(export, "Brightline could not export CSVs from the Reports tab for long ranges.")
        == []
    )


def test_a_time_counted_back_from_a_stated_time_is_worked_out():
    flight = "LH 1023 to Barcelona is delayed: estimated departure 14:10 from gate A26."
    query = "When should I be at the gate if boarding closes 20 minutes before departure?"
    right = (
        "It now leaves at 14:10, so with boarding closing 20 minutes before, be at A26 by 13:50."
    )
    wrong = (
        "It now leaves at 14:10, so with boarding closing 20 minutes before, be at A26 by 13:40."
    )
    assert [answer_conflicts(flight, a, query) for a in (right, wrong)] == [[], ["13:40"]]


def test_a_time_worked_out_from_the_answers_own_times_is_worked_out():
    runbook = "Writes freeze at 22:00. Dump: 75 minutes. Restore: 110 minutes. Go/no-go at 01:45."
    right = "Writes freeze at 22:00 and the dump takes 75 minutes, so it ends at 23:15; the 110-minute restore is done by 01:05."
    wrong = "Writes freeze at 22:00 and the dump takes 75 minutes, so it ends at 23:15; the 110-minute restore is done by 01:25."
    assert answer_conflicts(runbook, right) == []
    assert answer_conflicts(runbook, wrong) == ["01:25"]


def answer_conflicts(context: str, answer: str, query: str | None = None) -> list[str]:
    return [
        answer[f.start : f.end] for f in check([context], answer, query) if f.verdict == "conflict"
    ]


def test_a_date_hours_before_a_stated_date_and_a_date_from_the_answers_own_date():
    order = "Delivery on Friday 11 December. Headcount changes are accepted up to 48 hours before delivery."
    assert (
        answer_conflicts(
            order, "Changes must reach us by 9 December, 48 hours before the 11 December delivery."
        )
        == []
    )
    assert answer_conflicts(
        order, "Changes must reach us by 7 December, 48 hours before the 11 December delivery."
    ) == ["7 December"]
    invoice = "Invoice dated 1 November 2024. Payment is due within 15 days of the invoice date."
    chained = "Payment is due by 16 November 2024, and a reminder follows 9 days after that, on 25 November."
    assert "25 November" not in answer_conflicts(invoice, chained)


def test_a_wrong_difference_unlike_either_figure_is_unconfirmed_not_contradicted():
    # 30 is neither 94 nor 71 with a digit wrong: a difference worked out wrongly and one
    # worked out from figures the check cannot see look alike (misquotes.py)
    found = verdicts(WAITS, "The median wait fell by 30 minutes, to 71 minutes.")
    assert found["30 minutes"] == "absent"
