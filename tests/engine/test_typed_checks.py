"""Typed checks: values written differently but equal match; different ones conflict, with
the context value as evidence; negation flips and antonyms are caught; all through
`verify` too, with the lexical detector so only the typed signal is under test."""

from __future__ import annotations

import json
import re

import pytest

from engine.detectors.lexical import LexicalDetector
from engine.pipeline import DetectionConfig, verify
from engine.scoring.typed_checks import adjust, check
from engine.scoring.typed_values import values
from engine.types import DetectionInput, TokenProb


def verdicts(context: str, answer: str) -> dict[str, str]:
    return {answer[f.start : f.end]: f.verdict for f in check([context], answer)}


@pytest.mark.parametrize(
    ("context", "answer", "value"),
    [
        ("Departure: 09:05", "It leaves at 9:05.", "9:05"),
        ("Departure: 09:00", "It leaves at 9 am.", "9 am"),
        ("Doors close at 21:00.", "Doors close at 9 pm.", "9 pm"),
        ("date: 2025-03-04", "It is on March 4.", "March 4"),
        ("date: 2025-03-04", "It is on 4 March 2025.", "4 March 2025"),
        ("date: 2025-03-04", "It is on Mar 4.", "Mar 4"),
        ("Population: 1000", "About 1,000 people live there.", "1,000"),
        ('{"price_usd": 1200}', "It costs $1,200.", "$1,200"),
        ("Price: $1,200", "It costs $1.2k.", "$1.2k"),
        ("The rate is 2.5%.", "The rate is 2.5 percent.", "2.5 percent"),
        ("Returns within 30 days.", "There is a 30-day return window.", "30-day"),
        ("The tower is 330 m tall.", "It is 330 metres tall.", "330 metres"),
        ('{"duration_min": 95}', "The flight takes 95 minutes.", "95 minutes"),
        ('{"distance_km": 6200}', "It covers 6,200 km.", "6,200 km"),
    ],
)
def test_a_value_written_differently_but_equal_matches(context, answer, value):
    assert verdicts(context, answer)[value] == "match"


@pytest.mark.parametrize(
    ("context", "answer", "value"),
    [
        ("The tower is 330 m tall.", "It is 500 m tall.", "500 m"),
        ("Departure: 09:05", "It leaves at 9:50.", "9:50"),
        ("date: 2025-03-04", "It is on March 14.", "March 14"),
        ("It was built from 1887 to 1889.", "It was built in 1950.", "1950"),
        ("The rate is 2.5%.", "The rate is 3.5 percent.", "3.5 percent"),
        ("The trail is 5 km long.", "The trail is 5 miles long.", "5 miles"),
        ("Price: $1,200", "It costs $2,100.", "$2,100"),
    ],
)
def test_a_different_value_of_the_same_kind_conflicts(context, answer, value):
    assert verdicts(context, answer)[value] == "conflict"


def test_a_conflict_names_the_context_value_as_evidence():
    [finding] = check(["Intro.", "The tower is 330 m tall."], "It is 500 m tall.")
    passage, start, end = finding.evidence
    assert passage == 1
    assert "The tower is 330 m tall."[start:end] == "330 m"
    assert "500 m" in finding.reason
    assert "330 m" in finding.reason


def test_a_value_with_nothing_comparable_in_the_context_is_absent():
    assert verdicts("The museum has three floors.", "It opened on May 2.")["May 2"] == "absent"


def test_json_tool_result_paraphrased_values_all_match():
    record = {"departure": "09:05", "gate": "B12", "duration_min": 95, "date": "2025-03-04"}
    answer = "Your flight departs at 9:05 on March 4 from gate B12 and takes 95 minutes."
    found = check([json.dumps(record)], answer)
    assert found
    assert all(f.verdict == "match" for f in found)


def test_a_negation_flip_conflicts_in_both_directions():
    ctx = "Items on sale cannot be returned."
    assert "conflict" in verdicts(ctx, "Yes, sale items can be returned within 30 days.").values()
    assert (
        "conflict"
        in verdicts("Sale items can be returned.", "Sale items cannot be returned.").values()
    )
    assert "conflict" not in verdicts(ctx, "Sale items are final and cannot be returned.").values()


def test_a_negated_clause_does_not_flip_another_clause():
    ctx = "Dogs are not allowed in the park, but cats are welcome."
    assert verdicts(ctx, "Cats are welcome in the park.") == {}


def test_an_antonym_in_a_matching_sentence_conflicts():
    assert (
        verdicts("Revenue increased by 12% in 2023.", "Revenue decreased by 12% in 2023.")[
            "decreased"
        ]
        == "conflict"
    )


def test_adjust_caps_matches_and_raises_conflicts_only_inside_findings():
    answer = "It leaves at 9:05 and is 500 m long."
    findings = check(["Departure 09:05. Length: 330 m."], answer)
    tokens = [TokenProb(m.start(), m.end(), 0.5) for m in re.finditer(r"[\w:]+", answer)]
    out = {answer[t.start : t.end]: t.prob for t in adjust(tokens, findings)}
    assert out["9:05"] < 0.1
    assert out["500"] > 0.9
    assert out["leaves"] == 0.5


def test_values_keep_exact_offsets():
    text = "On 4 March 2025 at 9 pm it cost $4.2 billion, 12% more."
    for v in values(text):
        assert text[v.start : v.end].strip() == text[v.start : v.end]
    assert [text[v.start : v.end] for v in values(text)] == [
        "4 March 2025", "9 pm", "$4.2 billion", "12%",
    ]  # fmt: skip


# -- through the pipeline -------------------------------------------------------------------


@pytest.fixture(scope="module")
def lexical():
    return LexicalDetector()


CONFIG = DetectionConfig(classify_queries=False, explain_embeddings=False)


def test_pipeline_passes_a_time_without_its_leading_zero(lexical):
    result = verify(
        DetectionInput.build(["Departure: 09:05"], "It departs at 9:05.", None), CONFIG, lexical
    )
    assert not any(s.text == "9:05" for s in result.spans)


def test_pipeline_reports_330_against_500_as_a_contradiction_with_evidence(lexical):
    ctx = ["The Eiffel Tower is in Paris. It is 330 m tall."]
    result = verify(
        DetectionInput.build(ctx, "The Eiffel Tower is 500 m tall.", None), CONFIG, lexical
    )
    [span] = [s for s in result.spans if "500" in s.text]
    assert span.label == "contradiction"
    assert span.evidence.text == "It is 330 m tall."
    assert result.detected


def test_pipeline_detects_the_sale_items_negation_flip(lexical):
    ctx = ["Items on sale cannot be returned."]
    answer = "Yes, sale items can be returned within 30 days with a receipt."
    result = verify(DetectionInput.build(ctx, answer, None), CONFIG, lexical)
    assert result.detected
    assert any(s.label == "contradiction" and s.text == "can" for s in result.spans)


def test_typed_checks_can_be_switched_off(lexical):
    ctx = ["Departure: 09:05"]
    off = DetectionConfig(classify_queries=False, explain_embeddings=False, typed_checks=False)
    result = verify(DetectionInput.build(ctx, "It departs at 9:05.", None), off, lexical)
    assert any("9:05" in s.text for s in result.spans)  # the lexical detector alone flags it


def test_ambiguous_and_key_named_units_do_not_conflict():
    # "pounds" may be sterling; a "balance" key names money but not which currency
    assert verdicts("It will cost 12 million pounds.", "It costs £12 million.") == {
        "£12 million": "match"
    }
    assert verdicts('{"balance": 2214.55, "currency": "EUR"}', "You hold €2,214.55.") == {
        "€2,214.55": "match"
    }


def test_a_leading_no_answers_the_question_and_flips_nothing():
    ctx = '{"colors": ["black", "blue"]}. The shoes are offered in black and blue.'
    assert verdicts(ctx, "No, the shoes are only offered in black and blue.") == {}


def test_the_pipeline_reuses_the_findings_of_a_detector_that_already_checked(lexical, monkeypatch):
    from engine.detectors.ensemble import EnsembleDetector
    from engine.scoring import typed_checks

    calls = []
    real = typed_checks.check
    monkeypatch.setattr(typed_checks, "check", lambda *a: calls.append(1) or real(*a))
    ctx = ["The Eiffel Tower is in Paris. It is 330 m tall."]
    item = DetectionInput.build(ctx, "The Eiffel Tower is 500 m tall.", None)
    # when: an ensemble (which checks before its head) goes through the pipeline
    result = verify(item, CONFIG, EnsembleDetector(lexical, lexical))
    # then: one check per answer, and its conflict still comes back as a contradiction
    assert len(calls) == 1
    assert any(s.label == "contradiction" and "500" in s.text for s in result.spans)
    # a detector that does not check is checked by the pipeline
    verify(item, CONFIG, lexical)
    assert len(calls) == 2


@pytest.mark.parametrize(
    ("context", "right", "wrong", "value_right", "value_wrong"),
    [
        # a percentage before "to N million" is its own value, not the low end of a range
        (
            "Passenger numbers rose 12% to 6.7 million.",
            "Passengers were up 12%, to 6.7 million.",
            "Passengers were up 15%, to 6.7 million.",
            "12%",
            "15%",
        ),
        # "B" straight after a money figure is billions, at either end of a range
        (
            "We now expect revenue of $1.62–1.65 billion.",
            "Guidance is $1.62–1.65B.",
            "Guidance is $1.52–1.65B.",
            "$1.62",
            "$1.52",
        ),
        # a date never runs across a line break ("14 March.\n3) ..." is 14 March)
        (
            "Actions:\n2) Draft the plan by 14 March.\n3) Book the room.",
            "The plan is due 14 March.",
            "The plan is due 24 March.",
            "14 March",
            "24 March",
        ),
    ],
)
def test_values_are_read_as_a_person_reads_them(context, right, wrong, value_right, value_wrong):
    def read(answer: str) -> dict[str, str]:
        return {k.rstrip("."): v for k, v in verdicts(context, answer).items()}

    assert read(right)[value_right] == "match"
    assert read(wrong)[value_wrong] == "conflict"


def test_a_b_after_a_number_is_billions_only_beside_money():
    [room] = values("Go to room 5b.")
    assert (room.canon, room.unit) == ((5.0,), None)
    [deal] = values("a $2B deal")
    assert deal.canon == (2e9,)


def test_a_number_shared_by_two_kinds_of_quantity_is_no_renamed_unit():
    context = "Adult tickets rise from £8 to £10."
    # a duration that happens to share the price's number is another quantity
    assert (
        "conflict" not in verdicts(context, "It reopens after ten years, at £10 a ticket.").values()
    )
    # the same number in another currency is a renamed unit
    assert verdicts(context, "Adult tickets now cost $10.")["$10"] == "conflict"


def test_a_fahrenheit_key_names_its_unit():
    forecast = '{"high_f": 34, "low_f": 21, "wind_mph": 12}'
    assert verdicts(forecast, "The low will be 21°F.")["21°F"] == "match"
    assert verdicts(forecast, "The low will be 12°F.")["12°F"] == "conflict"


def test_numbers_in_a_csv_row_are_read_and_thousands_groups_are_not_split():
    row = "item,serving,calories,protein_g\nGreek yogurt,170 g,100,17\nAlmonds,28 g,164,6"
    assert [v.canon[0] for v in values(row)] == [170.0, 100.0, 17.0, 28.0, 164.0, 6.0]
    assert [v.canon[0] for v in values("1,000,000 people and 12,400 cars")] == [1e6, 12400.0]
    assert verdicts(row, "Yogurt has 17 g of protein per 170 g serving.")["17 g"] == "match"


@pytest.mark.parametrize(
    ("context", "query", "right", "wrong"),
    [
        (
            '{"base": "CHF", "rates": {"EUR": 1.0642, "USD": 1.1378}}',
            "How much is 2,500 CHF in euros and dollars?",
            "It is about €2,660.50 and about $2,844.50.",
            "It is about €2,760.50 and about $2,844.50.",
        ),
        (
            "Unpaid: $8,750 and $5,320. FX rate for reporting: 1 USD = 0.92 EUR.",
            "What is unpaid, in euros?",
            "The unpaid $14,070 is roughly €12,944 at the reporting rate.",
            "The unpaid $14,070 is roughly €13,944 at the reporting rate.",
        ),
    ],
)
def test_an_amount_converted_at_the_contexts_exchange_rate_is_worked_out(
    context, query, right, wrong
):
    def conflicts(answer: str) -> list[str]:
        found = check([context], answer, query)
        return [answer[f.start : f.end] for f in found if f.verdict == "conflict"]

    assert conflicts(right) == []
    assert conflicts(wrong) != []


@pytest.mark.parametrize(
    ("context", "right", "wrong"),
    [
        # "net 30" counts days from the invoice date of its own sentence
        (
            "Billing period: 1 August 2024 – 31 August 2024. Payment terms: Net 30 from invoice "
            "date 2 September 2024.",
            "Payment is due by 2 October 2024.",
            "Payment is due by 30 September 2024.",
        ),
        # a term of N years or months from a date ends then, or the day before
        (
            "Term: 10 years from 1 April 2026. Rent: £28,000 per annum.",
            "The lease runs from 1 April 2026 to 31 March 2036.",
            "The lease runs from 1 April 2026 to 31 March 2034.",
        ),
        # a year worked out from a term, or from "last year"
        (
            "Policy start date: 14 March 2026, 12-month term.",
            "The policy comes up for renewal in March 2027.",
            "The policy comes up for renewal in March 2029.",
        ),
        (
            "The 2025 marathon drew 11,480 finishers, up from 9,870 last year.",
            "There were 1,610 more finishers than in 2024.",
            "There were 1,610 more finishers than in 2021.",
        ),
    ],
)
def test_dates_and_years_worked_out_from_a_term_are_not_contradictions(context, right, wrong):
    def conflicts(answer: str) -> list[str]:
        return [
            answer[f.start : f.end] for f in check([context], answer) if f.verdict == "conflict"
        ]

    assert conflicts(right) == []
    assert conflicts(wrong) != []


@pytest.mark.parametrize(
    ("context", "right", "wrong"),
    [
        # a yearly amount paid quarterly is a quarter of it
        (
            "Rent: £28,000 per annum, payable quarterly in advance.",
            "Rent is £28,000 a year, paid in quarterly instalments of £7,000.",
            "Rent is £28,000 a year, paid in quarterly instalments of £7,500.",
        ),
        # "Net 45" on a line of its own counts from the document's invoice date
        (
            "Invoice total: EUR 12,400.00\nInvoice date: 2024-03-18\nPayment terms: Net 45",
            "Payment is due on 2 May 2024.",
            "Payment is due on 12 May 2024.",
        ),
        # a time the answer gives as approximate is near the stated one
        (
            '{"events": [{"ts": "2026-11-22T07:55", "status": "Arrived at delivery office"}]}',
            "It reached the delivery office just before 8am.",
            "It reached the delivery office just before 9am.",
        ),
    ],
)
def test_rates_payment_terms_and_approximate_times_read_as_people_write_them(context, right, wrong):
    def conflicts(answer: str) -> list[str]:
        return [
            answer[f.start : f.end] for f in check([context], answer) if f.verdict == "conflict"
        ]

    assert conflicts(right) == []
    assert conflicts(wrong) != []


@pytest.mark.parametrize(
    ("context", "right", "wrong"),
    [
        # a table's header row states nothing
        (
            "| Tariff | Exit fee | Green |\n|---|---|---|\n| Fix 12 | £75 | No |",
            "Fix 12 isn't a green tariff and has a £75 exit fee.",
            None,
        ),
        # nor does a heading
        (
            "Deleting your account.\nOpen Settings, choose Privacy and follow the steps.",
            "An account with an active subscription can't be deleted.",
            None,
        ),
        # "No —" answers the question
        (
            "Take 1 or 2 tablets every 4 to 6 hours as needed.",
            "No — take 1 or 2 tablets every 4 to 6 hours as needed.",
            None,
        ),
        # "free of" says what "without" says
        (
            "Customers may switch tariff without an exit fee until 31 October 2024.",
            "Customers can switch tariff free of exit fees until 31 October 2024.",
            "Customers cannot switch tariff until 31 October 2024.",
        ),
        # a short statement is still one
        ("It is not dishwasher safe.", "It is not dishwasher safe.", "It is dishwasher safe."),
    ],
)
def test_negation_flips_need_a_statement_on_both_sides(context, right, wrong):
    def flips(answer: str) -> list[str]:
        found = check([context], answer)
        return [
            answer[f.start : f.end]
            for f in found
            if f.kind == "negation" and f.verdict == "conflict"
        ]

    assert flips(right) == []
    if wrong is not None:
        assert flips(wrong) != []


def _unsettled(context: str, answer: str, query: str | None = None) -> list[str]:
    """The answer's values that the checks neither confirm nor work out."""
    return [
        answer[f.start : f.end]
        for f in check([context], answer, query)
        if f.verdict in ("conflict", "absent")
    ]


@pytest.mark.parametrize(
    ("context", "query", "right", "wrong", "value"),
    [
        # a later step of a calculation uses the answer's own confirmed values
        (
            "An excess of £99 applies to each claim, and for pets aged 8 or over a co-payment "
            "of 20% of the remaining claim applies.",
            "My dog is 9. If I claim for £600, how much would I get back?",
            "First the £99 excess comes off, leaving £501; then you pay a 20% co-payment on "
            "that remainder, which is £100.20. So the insurer would pay out £400.80.",
            "First the £99 excess comes off, leaving £501; then you pay a 20% co-payment on "
            "that remainder, which is £100.20. So the insurer would pay out £410.80.",
            "£410.80",
        ),
        # a total spelled out in its own sentence: every listed amount, a count times a rate
        (
            '{"daily_rate_eur": 38.0, "days_charged": 5, "extras": [{"item": "child seat", '
            '"per_day_eur": 7.5, "days": 5}, {"item": "additional driver", "flat_eur": 25.0}]}',
            None,
            "You'll be charged for 5 days at €38.00 a day, plus €37.50 for the child seat and a "
            "flat €25.00 for the additional driver, bringing the rental to €252.50.",
            "You'll be charged for 5 days at €38.00 a day, plus €37.50 for the child seat and a "
            "flat €25.00 for the additional driver, bringing the rental to €262.50.",
            "€262.50",
        ),
        # a total that leaves out one of the charges its sentence lists is not worked out
        (
            '{"items": [{"qty": 2, "unit_price_usd": 89.00}, {"qty": 1, "unit_price_usd": '
            '54.50}], "shipping_usd": 7.95}',
            None,
            "It contains two units at $89.00 each and one at $54.50; with $7.95 shipping, the "
            "total comes to $240.45.",
            "It contains two units at $89.00 each and one at $54.50; with $7.95 shipping, the "
            "total comes to $232.50.",
            "$232.50",
        ),
        # a count is a number of things, never an amount: $4.00 times $4.00 is no total
        (
            '{"refills_remaining": 3, "copay_usd": 4.0}',
            None,
            "Your copay is $4.00 per fill, so all three remaining refills would come to $12.00.",
            "Your copay is $4.00 per fill, so all three remaining refills would come to $16.00.",
            "$16.00",
        ),
    ],
)
def test_worked_out_totals_pass_and_the_same_total_off_is_caught(
    context, query, right, wrong, value
):
    assert _unsettled(context, right, query) == []
    assert value in _unsettled(context, wrong, query)


def test_only_a_rate_stated_per_period_is_multiplied_by_the_days_of_a_week():
    context = "The child seat costs €37.50 for the rental. Cleaning is €5 per day."
    assert "€262.50" in _unsettled(context, "The seat comes to €262.50.")
    assert _unsettled(context, "Cleaning comes to €35 a week.") == []
    leave = "Employees accrue 1.5 days of paid leave per month worked."
    assert _unsettled(leave, "Staff earn 1.5 leave days a month, 18 days over a year.") == []
    assert "20 days" in _unsettled(leave, "Staff earn 1.5 leave days a month, 20 days over a year.")


def test_a_time_plus_a_duration_needs_the_duration_beside_the_time_or_in_the_answer():
    handbook = (
        "The rotation hands over every Tuesday at 10:00 CET. The outgoing engineer must post a "
        "handover note by 09:30 the same day. Pages not acknowledged within 15 minutes escalate."
    )
    assert _unsettled(handbook, "Post the handover note by 09:30 that morning.") == []
    # 09:30 plus the 15 minutes of another sentence is no worked-out time
    assert "09:45" in _unsettled(handbook, "Post the handover note by 09:45 that morning.")
    programme = "10:45 Break (15 minutes).\n11:00 Panel: Responsible AI (75 minutes).\n12:15 Lunch."
    assert (
        _unsettled(programme, "The panel starts at 11:00 and runs 75 minutes, ending at 12:15.")
        == []
    )
    assert "12:30" in _unsettled(
        programme, "The panel starts at 11:00 and runs 75 minutes, ending at 12:30."
    )


def test_the_users_own_time_plus_a_stated_gap_is_worked_out():
    context = "Leave at least 4 hours between doses. Do not take more than 6 tablets in 24 hours."
    query = "I took two tablets at 7:30am. When can I take the next dose?"
    right = "Doses need to be at least four hours apart, so the earliest is 11:30 am."
    assert _unsettled(context, right, query) == []
    assert "12:30 pm" in _unsettled(context, right.replace("11:30 am", "12:30 pm"), query)


def test_a_clock_time_of_the_answers_own_lifts_the_score_over_the_uncertainty_band():
    from engine.scoring.typed_checks import ABSENT_TIME_FLOOR, floor_score

    context = "Dosage: Take one 500 mg tablet every 8 hours, with or after food."
    query = "If I take my first tablet at 6 am, when should I take the other doses?"
    right = "With one tablet every eight hours from 6 am, your next doses fall at 2 pm and 10 pm."
    wrong = right.replace("10 pm", "11 pm")
    assert _unsettled(context, right, query) == []
    assert _unsettled(context, wrong, query) == ["11 pm"]
    assert floor_score(0.3, check([context], wrong, query), [context]) == ABSENT_TIME_FLOOR
    assert floor_score(0.3, check([context], right, query), [context]) == 0.3
