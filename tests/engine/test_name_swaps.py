"""A name from the context put into a sentence about another entity (`scoring/name_swaps.py`).

Each case pairs an answer with the right name (no finding) with the same answer
carrying a name the context uses for something else (a contradiction), through the
typed checks and through the pipeline.
"""

import pytest

from engine import DetectionConfig, DetectionInput, LexicalDetector, verify
from engine.query_types import QueryTypeClassifier
from engine.scoring import roles, typed_checks
from engine.scoring.name_swaps import name_swap_findings

pytestmark = pytest.mark.skipif(not roles.available(), reason="spaCy model not installed")

TEAM = (
    "Facilities page: The Leeds office is managed by Hannah Okoro. Parking permits and "
    "bike storage requests go to Daniel Mbeki, who runs the car park rota. The meeting "
    "room calendar is kept by Sofia Lindgren."
)
BOARD = (
    "Minutes of 4 May. Present: Karim Haddad (chair), Lotte Janssen (treasurer). Lotte "
    "reported a surplus for the spring fair. Karim will write to the council about the "
    "playground lease before the June meeting."
)
GRANTS = (
    "Grants round 3. The Riverside Trust awarded the garden project £4,000. The Hollins "
    "Foundation funded the reading club for two years."
)


def _swaps(context: str, answer: str) -> list[str]:
    return [answer[f.start : f.end] for f in name_swap_findings([context], answer)]


@pytest.mark.parametrize(
    ("context", "right", "wrong", "name"),
    [
        (
            TEAM,
            "For a parking permit, ask Daniel Mbeki, who looks after the car park rota.",
            "For a parking permit, ask Sofia Lindgren, who looks after the car park rota.",
            "Sofia Lindgren",
        ),
        (
            BOARD,
            "Before the June meeting, Karim will contact the council about the playground lease.",
            "Before the June meeting, Lotte Janssen will contact the council about the "
            "playground lease.",
            "Lotte Janssen",
        ),
        (
            GRANTS,
            "The reading club got two years of funding from the Hollins Foundation.",
            "The reading club got two years of funding from the Riverside Trust.",
            "Riverside Trust",
        ),
    ],
)
def test_a_name_in_another_entitys_sentence_is_a_conflict(context, right, wrong, name):
    assert _swaps(context, right) == []
    [found] = name_swap_findings([context], wrong)
    assert wrong[found.start : found.end].endswith(name)
    assert found.verdict == "conflict"
    i, s, e = found.evidence
    evidence = context[s:e]
    assert name.split()[-1] not in evidence
    assert found.reason.startswith("wrong name: the context says this of")


def test_names_the_context_never_uses_are_left_to_the_detector():
    assert _swaps(TEAM, "For a parking permit, ask Marta Kowalski at reception.") == []


def test_a_sentence_combining_two_facts_keeps_both_names():
    answer = "Hannah Okoro manages the Leeds office, and Sofia Lindgren keeps the room calendar."
    assert _swaps(TEAM, answer) == []


def test_acronyms_codes_and_table_headers_are_not_names():
    table = (
        "| Model | RAM | Price |\n|---|---|---|\n| Aero 14 | 16 GB | £899 |\n"
        "| Nimbus Air | 8 GB | £749 |"
    )
    assert _swaps(table, "The Nimbus Air has 8 GB of RAM and costs £749.") == []


def test_a_finding_already_made_is_not_repeated():
    wrong = "For a parking permit, ask Sofia Lindgren, who looks after the car park rota."
    first = name_swap_findings([TEAM], wrong)
    assert first
    assert name_swap_findings([TEAM], wrong, first) == []
    # and the typed checks report the name once
    spans = [(f.start, f.end) for f in typed_checks.check([TEAM], wrong) if f.kind == "role"]
    assert len(spans) == len(set(spans)) == 1


def test_through_the_pipeline_the_swap_detects_the_answer_and_the_right_name_passes():
    config = DetectionConfig(explain_embeddings=False)
    classifier = QueryTypeClassifier(encoder=None)
    query = "Who do I ask for a parking permit?"

    def run(answer):
        item = DetectionInput.build([TEAM], answer, query)
        return verify(item, config, LexicalDetector(), classifier=classifier)

    wrong = run("For a parking permit, ask Sofia Lindgren, who looks after the car park rota.")
    right = run("For a parking permit, ask Daniel Mbeki, who looks after the car park rota.")
    [span] = [s for s in wrong.spans if s.label == "contradiction"]
    assert span.text.endswith("Sofia Lindgren")
    assert span.evidence is not None
    assert "Daniel Mbeki" in span.evidence.text
    assert wrong.detected is True
    assert not [s for s in right.spans if s.label == "contradiction"]


def test_a_sentence_that_refers_to_someone_by_a_pronoun_is_no_evidence_of_a_swap():
    # "she" may be Ana Ruiz: the check cannot tell, so it says nothing
    context = (
        "Ana Ruiz joined the lab in 2019. In 2021 she led the Arctic survey for the Polar "
        "Institute. Tom Berg coordinates the data archive."
    )
    assert _swaps(context, "In 2021, Ana Ruiz led the Arctic survey for the Polar Institute.") == []
