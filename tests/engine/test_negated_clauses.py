"""A negation the answer drops from a context clause it restates (`scoring/negated_clauses.py`).

Each wrong answer is paired with a faithful one that keeps the negation, says it in
other words, or states a condition, through the check and through the pipeline.
"""

import pytest

from engine import DetectionConfig, DetectionInput, LexicalDetector, verify
from engine.scoring.negated_clauses import negated_clause_findings

POLICY = (
    "An excess of £99 applies to each claim. Pre-existing conditions are not covered. "
    "Dental treatment is covered only if it results from an accident."
)
LEASE = (
    "13. PETS. Pets are permitted subject to a one-time, non-refundable pet fee of $300 "
    "per animal, with a maximum of two (2) animals."
)


def _flagged(context: str, answer: str) -> list[str]:
    return [answer[f.start : f.end].strip() for f in negated_clause_findings([context], answer)]


@pytest.mark.parametrize(
    ("context", "faithful", "wrong", "flagged"),
    [
        (
            POLICY,
            "Pre-existing conditions are not covered under PawSure Complete.",
            "Pre-existing conditions are covered under PawSure Complete, up to £7,000 per "
            "condition each policy year.",
            "Pre-existing conditions are covered under PawSure Complete, up to £7,000 per "
            "condition each policy year.",
        ),
        (
            POLICY,
            "Pre-existing conditions are excluded from the policy.",
            "Pre-existing conditions are covered by the policy.",
            "Pre-existing conditions are covered by the policy.",
        ),
        (
            LEASE,
            "Pets are allowed, up to two, with a one-time $300 fee each, which is non-refundable.",
            "Pets are allowed, up to two, with a one-time $300 fee each, which is refundable.",
            "is refundable.",
        ),
        (
            LEASE,
            "Pets are allowed, with a one-time $300 fee each that you won't get back.",
            "Pets are allowed, with a one-time $300 fee each that you get back when you leave.",
            None,  # no word of the context's "non-refundable" is left to compare
        ),
    ],
)
def test_a_dropped_negation_is_a_contradiction_and_a_kept_one_is_not(
    context, faithful, wrong, flagged
):
    assert _flagged(context, faithful) == []
    assert _flagged(context, wrong) == ([flagged] if flagged else [])


def test_a_condition_is_no_plain_negative():
    context = "Refunds are not issued unless the item arrives damaged."
    assert _flagged(context, "Refunds are issued for items that arrive damaged.") == []


def test_a_json_field_is_no_statement_to_negate():
    context = '{"note": "Parking is not included in the nightly rate", "rate": 120}'
    assert _flagged(context, "Parking is included in the nightly rate of 120.") == []


def test_through_the_pipeline_the_dropped_negation_is_a_contradiction_with_evidence():
    config = DetectionConfig(threshold=0.5)
    answer = "Pre-existing conditions are covered under PawSure Complete."
    result = verify(
        DetectionInput.build([POLICY], answer, "Is my cat's asthma covered?"),
        config,
        LexicalDetector(),
    )
    assert result.detected
    (span,) = [s for s in result.spans if s.label == "contradiction"]
    assert span.evidence is not None
    assert "not covered" in span.evidence.text
    kept = verify(
        DetectionInput.build([POLICY], "Pre-existing conditions are not covered.", None),
        config,
        LexicalDetector(),
    )
    assert not kept.detected
