"""Name checks that compare a name only with another entity in the same role
(engine/scoring/name_swaps.py, name_neighbours.py), through the typed checks."""

from __future__ import annotations

from engine.scoring import typed_checks

LEAGUE = [
    "Southern Counties League — table after 22 rounds (3 points for a win, 1 for a draw)\n\n"
    "| Pos | Club | P | W | D | L | Pts |\n|---|---|---|---|---|---|---|\n"
    "| 1 | Northgate Rovers | 22 | 14 | 5 | 3 | 47 |\n"
    "| 2 | Castlebrook Athletic | 22 | 12 | 7 | 3 | 43 |\n"
    "| 3 | Millford Town | 22 | 11 | 6 | 5 | 39 |"
]


def _names(context, answer, query=None):
    return [
        (answer[f.start : f.end], f.verdict)
        for f in typed_checks.check(context, answer, query)
        if f.kind == "role" and f.verdict == "conflict"
    ]


def test_a_tables_title_is_no_rival_for_the_clubs_in_it():
    answer = (
        "Castlebrook Athletic have 43 points from 12 wins and 7 draws, which leaves them "
        "four points behind leaders Northgate Rovers on 47."
    )
    assert _names(LEAGUE, answer) == []


def test_a_club_swapped_into_another_row_is_still_caught():
    answer = "Millford Town are second with 43 points from 12 wins and 7 draws."
    conflicts = [f for f in typed_checks.check(LEAGUE, answer) if f.verdict == "conflict"]
    assert conflicts, "a club put in another club's row"


def test_a_country_is_no_rival_for_the_company_that_works_there():
    context = [
        "Fjordline Logistics reported revenue of NOK 3.42 billion for 2023. The company "
        "signed a five-year contract with the retailer Nordhus covering all of its "
        "e-commerce deliveries in Norway."
    ]
    answer = "Fjordline also secured a five-year contract to handle all of Nordhus's e-commerce deliveries."
    assert _names(context, answer) == []


def test_a_person_swapped_into_another_persons_sentence_is_still_caught():
    context = [
        "Questions about Snowflake access go to Tomasz Zielinski. Alicia Ferreira "
        "coordinates the BI guild and its monthly demos."
    ]
    answer = "Questions about Snowflake access go to Alicia Ferreira."
    assert ("Alicia Ferreira", "conflict") in _names(context, answer)


def test_a_place_swapped_for_another_place_is_still_caught():
    context = [
        "This agreement is made between Corvane Ltd of Dublin and Helix Retail GmbH of Munich. "
        "Irish law governs this agreement. Any dispute shall be resolved by arbitration "
        "seated in Dublin."
    ]
    answer = "Irish law governs the contract, and any disputes go to arbitration seated in Munich."
    found = [
        (answer[f.start : f.end], f.verdict)
        for f in typed_checks.check(context, answer)
        if f.verdict == "conflict"
    ]
    assert ("Munich", "conflict") in found
