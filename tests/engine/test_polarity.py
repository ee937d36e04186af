"""Predicate-level negation: each case is a faithful paraphrase and the same sentence
with its one predicate's polarity flipped; the flip is caught, the paraphrase is not.
Then the exceptions, which are never caught."""

from __future__ import annotations

import pytest

from engine.scoring import polarity
from engine.scoring.negations import _same_polarity
from engine.scoring.polarity import polarity_findings
from engine.scoring.typed_checks import check

pytestmark = pytest.mark.skipif(not polarity._nlp(), reason="spaCy model not installed")


def flagged(context: str, answer: str) -> list[str]:
    return [
        answer[f.start : f.end]
        for f in polarity_findings([context], answer, (), _same_polarity)
        if f.verdict == "conflict"
    ]


LEAVE = "Unused annual leave cannot be carried over or paid out at the end of the year."
SCHEME = "Management decided not to extend the four-day week scheme to the call centre."
CONTRACT = "The committee agreed to renew the cleaning contract with CleanPro for a further year."
ROUTER = "Do not unplug the router during the firmware restart."
TRAVEL = (
    "When staff are asked to attend the office on a remote day, travel costs are not reimbursed."
)
DEFENCES = "Under managed realignment the existing sea defences would not be maintained."

PAIRS = [
    # (context, faithful paraphrase, wrong answer, what the wrong answer flags)
    (
        LEAVE,
        "Any annual leave you don't use is lost: it is neither carried over nor paid out.",
        "Any annual leave you don't use is paid out at the end of the year.",
        "is paid",
    ),
    (
        SCHEME,
        "The four-day week scheme will not be extended to the call centre.",
        "The four-day week scheme will be extended to the call centre.",
        "will be extended",
    ),
    (
        CONTRACT,
        "The committee agreed to renew the CleanPro cleaning contract for another year.",
        "The committee decided not to renew the CleanPro cleaning contract for another year.",
        "not to renew",
    ),
    (
        ROUTER,
        "You shouldn't unplug the router while the firmware restarts.",
        "You can safely unplug the router during the firmware restart.",
        "can safely unplug",
    ),
    (
        TRAVEL,
        "If you're asked into the office on a remote day, your travel costs are not reimbursed.",
        "If you're asked into the office on a remote day, your travel costs are reimbursed.",
        "are reimbursed",
    ),
    (
        DEFENCES,
        "With managed realignment, the existing sea defences would no longer be maintained.",
        "With managed realignment, the existing sea defences would still be maintained.",
        "would still be maintained",
    ),
]


@pytest.mark.parametrize(("context", "faithful", "wrong", "span"), PAIRS)
def test_faithful_paraphrase_passes_and_flip_is_caught(
    context: str, faithful: str, wrong: str, span: str
) -> None:
    assert flagged(context, faithful) == []
    assert flagged(context, wrong) == [span]


def test_conjunct_shares_the_negation_of_its_head() -> None:
    # "paid" has no auxiliary of its own: "cannot" negates it too
    assert flagged(LEAVE, "Unused annual leave can be paid out at the end of the year.")


def test_a_negation_on_another_verb_does_not_hide_the_flip() -> None:
    # the regex check sees a negation on both sides; only the predicate check sees the flip
    answer = "Any annual leave you don't use is paid out at the end of the year."
    found = [f for f in check([LEAVE], answer) if f.kind == "negation"]
    assert [answer[f.start : f.end] for f in found] == ["is paid"]


EXCEPTIONS = [
    # a bound: "do not use for more than 10 days" is "up to ten days"
    (
        "Do not use the tablets for more than 10 days for pain.",
        "You can use the tablets for up to ten days for pain.",
    ),
    # a fixed phrase: "no later than" is "within"
    (
        "Claims must be submitted no later than 30 days after the trip.",
        "Claims must be submitted within 30 days after the trip.",
    ),
    # a word that negates by itself
    ("Brushes and filters are excluded from the warranty cover.",
     "The warranty does not cover brushes and filters."),
    # a condition states the user's case, not a claim
    (
        "Refunds are paid within 14 days of the request.",
        "If refunds are not paid within 14 days of the request, contact support.",
    ),
    # the negation governs the verb above: "not allowed to work" is no claim about "work"
    (
        "Applicants must not work during their stay in the country.",
        "Applicants aren't allowed to work during their stay in the country.",
    ),
    # a contrast after a clause
    (
        "The judges ruled that Okoro was a self-employed contractor and an employee of nobody.",
        "The judges ruled that Okoro was a self-employed contractor, not an employee.",
    ),
    # "not erased for 30 days" is "erased after 30 days"
    (
        "The workspace is deactivated at once and permanently erased after 30 days.",
        "The workspace is deactivated at once but not permanently erased for 30 days.",
    ),
    # a structured context: its clauses are fields
    ('{"refundable": false, "ticket": "Advance Single", "route": "MAN-EUS"}',
     "The Advance Single ticket MAN-EUS is refundable."),
]  # fmt: skip


@pytest.mark.parametrize(("context", "answer"), EXCEPTIONS)
def test_exceptions_are_not_flips(context: str, answer: str) -> None:
    assert flagged(context, answer) == []


def test_unaligned_clause_is_not_compared() -> None:
    # shares only the verb with the context: no real alignment, no finding
    assert flagged(ROUTER, "Never unplug anything while cooking.") == []


def test_without_spacy_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(polarity, "_nlp", lambda: None)
    assert polarity_findings([SCHEME], "The scheme will be extended to the call centre.") == []
