"""Detection v3: verdicts that move with the evidence (issue 20).

Property tests run through the whole pipeline: a contradiction decides, function-word
noise stays at the token level, and context that shares nothing with the answer
changes nothing. Then the precise-contradiction rule, derived durations, values in
other languages and knowledge-base claims.
"""

import re
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import DetectionConfig, DetectionInput, LexicalDetector, verify
from engine.claims import checkable_claims
from engine.query_types import QueryTypeClassifier
from engine.scoring import typed_checks
from engine.scoring.evidence_rules import (
    UNCONFIRMED_CAP,
    damp_function_words,
    precise_labels,
)
from engine.scoring.typed_values import values
from engine.text.locale_numbers import to_english_notation
from engine.types import Span, TokenProb

RULES_ONLY = QueryTypeClassifier(encoder=None)
CONFIG = DetectionConfig(explain_embeddings=False)
DETECTOR = LexicalDetector()

CONTEXT = (
    "The Harbour Line ferry leaves Pier 4 at 08:20 and reaches Castle Quay at 08:55. "
    "A single ticket costs €3.40 and a weekly pass costs €21.",
)
PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def run(context, response, query="When does the ferry leave?", config=CONFIG):
    item = DetectionInput.build(list(context), response, query)
    return verify(item, config, DETECTOR, classifier=RULES_ONLY)


# Nonsense words that share nothing with any answer below (no digits either).
unrelated_word = st.text(alphabet="qxzvkjw", min_size=4, max_size=9)
unrelated_passage = st.lists(unrelated_word, min_size=3, max_size=30).map(" ".join)
answers = st.sampled_from(
    [
        "The ferry leaves Pier 4 at 08:20 and reaches Castle Quay at 08:55.",
        "The ferry leaves Pier 4 at 09:20 and reaches Castle Quay at 08:55.",
        "A single ticket costs €3.40, and the crossing takes 35 minutes.",
        "A weekly pass costs €25 and the ferry is free on Sundays.",
        "The ferry never stops at Castle Quay.",
    ]
)


@PROPERTY
@given(answer=answers, extra=st.lists(unrelated_passage, min_size=1, max_size=4))
def test_passages_that_share_nothing_with_the_answer_change_nothing(answer, extra):
    # given the answer checked against its context alone
    before = run(CONTEXT, answer)
    # when passages that share no word or number with it are added, before and after
    after = run((*extra[:1], *CONTEXT, *extra[1:]), answer)
    # then the score and the spans are the same, evidence pointing at the same passage
    assert after.score == before.score
    assert after.detected == before.detected
    assert [(s.start, s.end, s.label) for s in after.spans] == [
        (s.start, s.end, s.label) for s in before.spans
    ]
    for span in after.spans:
        if span.evidence is not None:
            assert "Harbour Line" in CONTEXT[0]
            assert (
                span.evidence.text
                in (*extra[:1], *CONTEXT, *extra[1:])[span.evidence.passage_index]
            )
    assert after.coverage.passages_unrelated == len(extra)


@PROPERTY
@given(answer=answers, threshold=st.floats(min_value=0.05, max_value=0.95))
def test_a_contradiction_at_or_above_the_threshold_always_detects(answer, threshold):
    config = DetectionConfig(explain_embeddings=False, threshold=threshold)
    result = run(CONTEXT, answer, config=config)
    strongest = max((s.confidence for s in result.spans if s.label == "contradiction"), default=0)
    if strongest >= threshold:
        assert result.detected is True
    assert result.score >= strongest


words = st.sampled_from(["the", "and", "of", "is", "ferry", "Pier", "08:20", "€21", "never"])


@PROPERTY
@given(
    picked=st.lists(st.tuples(words, st.floats(0, 1)), min_size=1, max_size=12),
)
def test_a_lone_function_word_never_stays_flagged(picked):
    text, tokens = "", []
    for word, prob in picked:
        start = len(text)
        text += word + " "
        tokens.append(TokenProb(start, start + len(word), prob))
    out = damp_function_words(text, tokens, 0.5)
    for k, (t, (word, _)) in enumerate(zip(out, picked, strict=True)):
        if word in ("the", "and", "of", "is") and t.prob > 0.5:
            # only inside a flagged phrase: both neighbours flagged
            assert 0 < k < len(out) - 1
            assert tokens[k - 1].prob > 0.5
            assert tokens[k + 1].prob > 0.5
        if word not in ("the", "and", "of", "is"):
            assert t.prob == tokens[k].prob  # content words are never touched


def test_an_unconfirmed_conflict_is_unsupported_not_a_contradiction():
    # given a span the explainer called a contradiction that no typed check confirms
    span = Span(10, 12, "35", 0.9, "contradiction", None, "number mismatch: 35 vs 20")
    # when
    [out] = precise_labels([span], findings=[])
    # then it stays reported, as unsupported and at a lower weight
    assert out.label == "unsupported"
    assert out.confidence == UNCONFIRMED_CAP
    assert "not confirmed" in out.reason


def test_a_worked_out_journey_time_passes_and_one_minute_off_is_flagged():
    # 08:20 to 08:55 is 35 minutes
    right = run(CONTEXT, "The crossing from Pier 4 to Castle Quay takes 35 minutes.")
    wrong = typed_checks.check(CONTEXT, "The crossing from Pier 4 to Castle Quay takes 36 minutes.")
    assert not [s for s in right.spans if s.text.startswith("35")]
    assert [f.verdict for f in wrong if f.verdict != "match"] == ["absent"]


def test_a_derived_total_passes_and_the_same_total_off_by_one_is_a_contradiction():
    context = ("Members may freeze their membership for a fee of £5 per month frozen.",)
    query = "What would a three-month freeze cost?"
    right = typed_checks.check(context, "A three-month freeze costs £15.", query)
    wrong = typed_checks.check(context, "A three-month freeze costs £16.", query)
    assert all(f.verdict == "match" for f in right)
    assert [f.verdict for f in wrong if f.verdict != "match"] == ["conflict"]
    result = run(context, "A three-month freeze costs £16.", query)
    assert result.detected is True
    assert [s.label for s in result.spans if "16" in s.text] == ["contradiction"]


def test_a_stated_total_off_by_one_is_a_contradiction():
    context = ("A three-month freeze of your membership costs £15 in total.",)
    wrong = typed_checks.check(context, "A three-month freeze of your membership costs £16.")
    assert [f.verdict for f in wrong if f.verdict != "match"] == ["conflict"]
    result = run(context, "A three-month freeze of your membership costs £16.")
    assert result.detected is True
    assert [s.label for s in result.spans if "16" in s.text] == ["contradiction"]


def test_a_spanish_answer_with_a_wrong_figure_is_detected():
    context = ["La entrada cuesta 2.500 euros para grupos y el museo abre a las 9:00."]
    wrong = run(context, "Para grupos la entrada cuesta 2.800 euros y el museo abre a las 9:00.")
    right = run(context, "Para grupos la entrada cuesta 2.500 euros y el museo abre a las 9:00.")
    assert wrong.status == right.status == "verified"
    assert wrong.detected is True
    assert right.detected is False
    [span] = wrong.spans
    assert span.text == "2.800 euros"
    assert span.label == "contradiction"
    assert span.evidence is not None
    assert "2.500" in span.evidence.text
    assert wrong.coverage.checks == right.coverage.checks == ["values"]
    assert wrong.coverage.language == "es"
    assert not wrong.coverage.language_supported


def test_other_notations_are_read_as_english_ones():
    for text, lang, english in [
        ("Kosten: 1.250,50 €", "de", "Kosten: €1,250.50"),
        ("Il part à 14 h 30.", "fr", "Il part à 14:30."),
        ("会議は15時に始まります", "ja", "会議は15:00に始まります"),
        ("Abfahrt am 14. Juli 2026", "de", "Abfahrt am 14 July 2026"),
        ("el martes 8 de diciembre de 2025", "es", "el martes 8 December 2025"),
        ("dal 12 agosto, 5 settimane", "it", "dal 12 August, 5 weeks"),
        ("soit 975 € au total", "fr", "soit €975 au total"),
        ("für drei Monate, 4 Stunden und 55 Minuten", "de", "für 3 months, 4 hours and 55 minutes"),
    ]:
        rewritten = to_english_notation(text, lang)
        assert rewritten.text == english
        # offsets map back onto the original characters
        start = re.search(r"\d", english).start()
        lo, hi = rewritten.span(start, start + 5)
        assert text[lo:hi].strip() in text


def test_every_sentence_of_an_answer_is_a_claim():
    answer = (
        "The setting is not case sensitive. It was added in version 2.4. "
        "You can change it at any time."
    )
    claims = checkable_claims(answer)
    assert sorted(c.text.strip() for c in claims) == sorted(
        [
            "The setting is not case sensitive.",
            "It was added in version 2.4.",
            "You can change it at any time.",
        ]
    )
    assert claims[0].markers  # a marked claim is searched first
    assert not any(string.whitespace == c.text for c in claims)


def _conflicts(context, answer, query=None):
    return [
        answer[f.start : f.end]
        for f in typed_checks.check(context, answer, query)
        if f.verdict == "conflict"
    ]


def test_values_worked_out_from_the_answers_own_operands_are_no_contradiction():
    booking = ('{"cancellation_policy": "Free up to 24 hours before; $20 per person after that"}',)
    assert _conflicts(booking, "The charge is $20 per person, or $80 for your party of four.") == []
    assert _conflicts(booking, "The charge is $20 per person, or $90 for your party of four.") == [
        "$90"
    ]
    timetable = ("day,class,start,duration_min\nThursday,Pilates,19:00,50\nMonday,Spin,18:00,45",)
    assert (
        _conflicts(
            timetable, "On Thursday a 50-minute Pilates class starts at 7 pm and ends at 7:50."
        )
        == []
    )
    rent = ("For annual rent below £50,000, the deposit is capped at five weeks' rent.",)
    query = "My rent is £1,200 a month. What is the most my deposit can be?"
    assert _conflicts(rent, "Your rent comes to £14,400 a year, well under £50,000.", query) == []


def test_an_instruction_to_check_is_no_negation_flip():
    manual = (
        "If the display shows E24, the water is not draining. Check that the drain hose is not kinked.",
    )
    answer = "E24 means the water isn't draining: check the drain hose for kinks."
    assert _conflicts(manual, answer) == []


def test_a_contrast_after_a_comma_is_no_negation_flip():
    # "charged by your previous provider, not by us": the "not" rules out the other
    # party; it does not deny what the context states
    terms = ("Any early termination fees are charged by your previous provider.",)
    answer = "Early termination fees are charged by your previous provider, not by us."
    assert _conflicts(terms, answer) == []
    # a plain negation of the same clause is still a flip
    flipped = "Early termination fees are not charged by your previous provider."
    assert _conflicts(terms, flipped) != []


def test_a_weekday_the_context_uses_elsewhere_is_no_contradiction():
    timetable = ("day,class,start\nMonday,Spin,18:00\nTuesday,Yoga,07:30",)
    assert (
        _conflicts(timetable, "Spin is on Monday at 6 pm. On Tuesday, yoga starts at 7:30 am.")
        == []
    )


def test_a_name_swapped_with_another_entity_of_the_context_is_a_contradiction():
    context = (
        "The 2025 budget was approved by Priya Shah on 3 March. "
        "Marco Rossi requested an extra 5% for the design team.",
    )
    swapped = run(context, "Marco Rossi approved the budget on 3 March.", "Who approved it?")
    right = run(context, "Priya Shah approved the budget on 3 March.", "Who approved it?")
    [span] = [s for s in swapped.spans if s.label == "contradiction"]
    assert span.text == "Marco Rossi"
    assert "Priya Shah" in span.reason
    assert span.evidence is not None
    assert "approved by Priya Shah" in span.evidence.text
    assert swapped.detected is True
    assert not [s for s in right.spans if s.label == "contradiction"]


def test_an_acquisition_told_backwards_is_caught_and_the_passive_is_not():
    context = ("Acme Corp acquired Beta Labs in 2021 for $40 million.",)
    assert _conflicts(context, "Beta Labs acquired Acme Corp in 2021.") == [
        "Beta Labs",
        "Acme Corp",
    ]
    assert _conflicts(context, "Beta Labs was acquired by Acme Corp in 2021.") == []


def test_a_score_inside_the_band_is_uncertain_and_the_route_decides():
    # given an answer whose only unsupported word the lexical detector scores under 1.0
    answer = "The ferry leaves Pier 4 at 08:20 and is very popular."
    plain = run(CONTEXT, answer)
    assert plain.verdict in ("faithful", "hallucinated")
    band = (max(0.0, plain.score - 0.01), min(1.0, plain.score + 0.01))
    # when the policy's band holds its score
    passed = run(
        CONTEXT, answer, config=DetectionConfig(explain_embeddings=False, uncertain_band=band)
    )
    flagged = run(
        CONTEXT,
        answer,
        config=DetectionConfig(explain_embeddings=False, uncertain_band=band, on_uncertain="flag"),
    )
    # then it is uncertain, passed or flagged as the policy says, with the same score
    assert passed.verdict == flagged.verdict == "uncertain"
    assert passed.detected is False
    assert flagged.detected is True
    assert passed.score == flagged.score == plain.score


def test_a_contradiction_is_never_uncertain():
    answer = "A weekly pass costs €25."
    wide = DetectionConfig(explain_embeddings=False, uncertain_band=(0.0, 1.0))
    result = run(CONTEXT, answer, "How much is a weekly pass?", config=wide)
    assert result.verdict == "hallucinated"
    assert result.detected is True


def test_an_hour_the_user_named_as_a_bare_number_is_a_premise():
    calendar = ('{"events": [{"title": "Demo", "start": "15:00", "end": "16:00"}]}',)
    query = "When am I free between 9 and 5 that day?"
    assert _conflicts(calendar, "You are free after the demo ends at 4 pm until 5 pm.", query) == []
    assert _conflicts(calendar, "You are free after the demo ends at 4 pm until 6 pm.", query) == [
        "6 pm"
    ]


def test_a_date_worked_out_from_a_stated_date_and_days_passes_and_a_day_off_is_flagged():
    invoice = ("Invoice INV-2291 was issued on 1 March 2024. Payment terms: net 30 days.",)
    assert _conflicts(invoice, "Payment is due 30 days after 1 March 2024, by 31 March 2024.") == []
    assert _conflicts(invoice, "Payment is due 30 days after 1 March 2024, by 30 March 2024.") == [
        "30 March 2024"
    ]
    tracking = ('{"order": "88213", "shipped": "2024-02-26", "transit_days": 5}',)
    assert _conflicts(tracking, "It shipped on 26 February and should arrive on 2 March.") == []


def test_a_balance_less_two_pending_amounts_is_worked_out_and_a_restated_amount_counts_once():
    account = ('{"balance": 1250.40, "pending": [{"amount": -200.00}, {"amount": -50.40}]}',)
    answer = "Once the pending $200.00 and $50.40 clear, your $1,250.40 balance will be $1,000.00."
    assert _conflicts(account, answer) == []
    budget = (
        "The council approved a $2,500,000 budget. Of this, $1,000,000 goes to playgrounds, "
        "$900,000 to paths, and the remainder to landscaping.",
    )
    wrong = "It approved $2.5m: $1m for playgrounds, $900k for paths and $700k for landscaping."
    assert _conflicts(budget, wrong) == ["$700k"]


def test_a_frequency_named_from_the_contexts_noun_is_no_rival_and_decimals_keep_a_sentence():
    plan = ("Subscription: $11.99 per month, or $119.88 billed annually.",)
    answer = (
        "Monthly billing costs $143.88 over a year ($11.99 × 12), so paying $119.88 "
        "annually saves you $24.00."
    )
    assert _conflicts(plan, answer) == []


@pytest.mark.parametrize(
    ("text", "lang", "said", "kind", "canon"),
    [
        ("Ankunft am 14. Juli 2026.", "de", "14. Juli 2026", "date", (7, 14, 2026)),
        ("Llega el 8 de diciembre.", "es", "8 de diciembre", "date", (12, 8, None)),
        ("Le total est de 975 € par mois.", "fr", "975 €", "quantity", (975.0,)),
        ("En total pagaréis 29 euros.", "es", "29 euros", "quantity", (29.0,)),
        (
            "Die Fahrt dauert 4 Stunden und 55 Minuten.",
            "de",
            "4 Stunden und 55 Minuten",
            "quantity",
            (295.0,),
        ),
        ("Il rinnovo richiede 5 settimane.", "it", "5 settimane", "quantity", (5.0,)),
        # singular units: one hour, one week
        ("Ensoleillement : 1 heure 12 minutes.", "fr", "1 heure 12 minutes", "quantity", (72.0,)),
        ("La visita dura 1 hora y 30 minutos.", "es", "1 hora y 30 minutos", "quantity", (90.0,)),
    ],
)
def test_dates_money_and_units_of_other_languages_are_values_at_their_own_offsets(
    text, lang, said, kind, canon
):
    rewritten = to_english_notation(text, lang)
    [value] = [v for v in values(rewritten.text) if v.kind == kind]
    assert value.canon == canon
    lo, hi = rewritten.span(value.start, value.end)
    assert text[lo:hi].rstrip(".") == said


def test_a_french_answer_with_a_wrong_date_is_detected():
    context = ["Votre réservation à l'Hôtel des Tilleuls est confirmée du 18 au 22 juillet 2026."]
    wrong = run(context, "Votre séjour commence le 14 juillet 2026 et dure quatre nuits.")
    right = run(context, "Votre séjour commence le 18 juillet 2026 et dure quatre nuits.")
    assert wrong.detected is True
    assert right.detected is False
    assert [s.text for s in wrong.spans] == ["14 juillet 2026"]
