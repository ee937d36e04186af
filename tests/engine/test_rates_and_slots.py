"""A context amount contradicts an answer amount only when both are about the same thing:
a rate is compared with a rate, a total with a total, and the two amounts' surroundings
share content words. Otherwise an amount the checks cannot confirm is unsupported."""

from __future__ import annotations

from engine.scoring.rates import per_unit
from engine.scoring.typed_checks import check


def verdicts(context: str, answer: str, query: str | None = None) -> dict[str, str]:
    return {answer[f.start : f.end]: f.verdict for f in check([context], answer, query)}


HOTEL = (
    "House-hunting trips: up to two trips of two nights each, with hotel costs reimbursed "
    "up to £120 per night and standard-class rail or economy flights."
)
SEATS = "Admin seats: $15 per additional seat per month. Storage: $25 per additional TB."


def test_amounts_stated_per_unit_are_rates():
    for text, amount in [
        ("£120 per night", "£120"),
        ("$0.03 per bushel", "$0.03"),
        ("£25 a month per pet", "£25"),
        ("$40 each", "$40"),
        ('{"deposit_per_person_gbp": 15}', "15"),
        ('"price_per_seat_usd_month": 35,', "35"),
    ]:
        k = text.index(amount)
        assert per_unit(text, k, k + len(amount)), text
    for text, amount in [
        ("£480 in hotel costs", "£480"),
        ('"total_gbp": 15}', "15"),
        ("$35. Service", "$35"),
    ]:
        k = text.index(amount)
        assert not per_unit(text, k, k + len(amount)), text


def test_a_total_worked_out_from_a_rate_is_not_contradicted_by_the_rate():
    answer = "House-hunting: two trips of two nights each, so up to £480 in hotel costs across both trips."
    assert verdicts(HOTEL, answer)["£480"] == "absent"


def test_a_wrong_rate_is_still_contradicted_by_the_rate():
    answer = (
        "House-hunting: two trips of two nights each, with hotels covered up to £150 per night."
    )
    assert verdicts(HOTEL, answer)["£150"] == "conflict"


def test_a_wrong_rate_per_seat_conflicts_and_a_total_of_seats_is_unconfirmed():
    assert (
        verdicts(SEATS, "Extra admin seats cost $18 per additional seat per month.")["$18"]
        == "conflict"
    )
    assert (
        verdicts(SEATS, "Your four extra admins come to $60 per month in seat charges.")["$60"]
        != "conflict"
    )


def test_an_amount_about_something_else_is_unsupported_not_contradicted():
    context = (
        "Plant availability: 98.7%, performance ratio 81.2%. Two inverters tripped on 18 July. "
        "Generation: 4,310 MWh against a forecast of 4,050 MWh."
    )
    answer = "The farm beat its forecast by 260 MWh in July, with sunshine about 12% above normal."
    assert verdicts(context, answer)["12%"] == "absent"


def test_the_same_amount_restated_wrongly_in_the_same_words_conflicts():
    context = "Plant availability in July: 98.7%, with two inverter trips on 18 July."
    answer = "Plant availability in July was 97.8%, with two inverter trips on 18 July."
    assert verdicts(context, answer)["97.8%"] == "conflict"
