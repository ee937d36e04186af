"""Closed-class substitutions and values read from another row of a table."""

from __future__ import annotations

import pytest

from engine.detectors.lexical import LexicalDetector
from engine.pipeline import DetectionConfig, verify
from engine.scoring.records import tables
from engine.scoring.typed_checks import check
from engine.types import DetectionInput

CITIES = (
    "| city | population | area_km2 | founded |\n|---|---|---|---|\n"
    "| Oslo | 709000 | 454 | 1040 |\n| Bergen | 286000 | 465 | 1070 |"
)
ROUTER = (
    "To reset the router, hold the reset button for 10 seconds until the light blinks orange. "
    "The router then restarts, which takes about 2 minutes."
)


def conflicts(context: str | list[str], answer: str) -> dict[str, str]:
    ctx = [context] if isinstance(context, str) else context
    return {answer[f.start : f.end]: f.kind for f in check(ctx, answer) if f.verdict == "conflict"}


@pytest.mark.parametrize(
    ("context", "answer", "expected"),
    [
        (ROUTER, "Hold it for 10 seconds until the light blinks green.", {"green": "class"}),
        (
            "Parental leave is 16 weeks at full pay.",
            "Parental leave lasts 16 weeks at half pay.",
            {"half": "class"},
        ),
        (
            '{"city": "Lisbon", "high_c": 27, "condition": "sunny"}',
            "Lisbon will be cloudy with a high of 27°C.",
            {"cloudy": "class"},
        ),
        ("The market opens every Tuesday.", "The market opens every Friday.", {"Friday": "class"}),
    ],
)
def test_another_member_of_a_closed_class_contradicts_the_context(context, answer, expected):
    assert conflicts(context, answer) == expected


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (ROUTER, "Hold it for 10 seconds until the light blinks orange."),  # the same colour
        ('{"colors": ["black", "blue"]}', "They come in black or blue."),
        # "full" and "half" are common words: compared only inside a matching clause
        ("Parental leave is 16 weeks at full pay.", "Half of the staff took leave this year."),
        ("The office is closed on Sunday.", "You can visit from 9 to 5."),  # nothing to compare
    ],
)
def test_the_same_member_or_an_unrelated_sentence_is_no_conflict(context, answer):
    assert conflicts(context, answer) == {}


def test_a_long_context_compares_class_words_only_inside_a_matching_clause():
    filler = " ".join(f"Paragraph {i} is about other things entirely." for i in range(40))
    context = [filler + " The annual report cover is blue."]
    assert conflicts(context, "The staff wore green shirts.") == {}


def test_markdown_csv_and_json_records_are_read_into_rows():
    assert [len(t.rows) for t in tables([CITIES])] == [2]
    assert [len(t.rows) for t in tables(["name,age\nAnn,31\nBob,45"])] == [2]
    assert [
        len(t.rows) for t in tables(['[{"name": "Ann", "age": 31}, {"name": "Bob", "age": 45}]'])
    ] == [2]
    assert tables(["Oslo, the capital, is old."]) == []  # one line is not a table
    [table] = tables([CITIES])
    bergen = table.rows[1]
    assert CITIES[bergen[3].start : bergen[3].end] == "1070"  # offsets point into the passage


@pytest.mark.parametrize(
    ("context", "answer", "expected"),
    [
        (CITIES, "Bergen is older, founded in 1040.", {"1040": "record"}),
        ("name,age\nAnn,31\nBob,45", "Bob is 31.", {"31": "record"}),
        (
            '[{"name": "Ann", "age": 31}, {"name": "Bob", "age": 45}]',
            "Ann is 45.",
            {"45": "record"},
        ),
        (CITIES, "Oslo was founded in 1040.", {}),  # its own row
        (CITIES, "Bergen covers 465 square kilometres against Oslo's 454.", {}),  # two rows named
        ("name,age\nAnn,31\nBob,45", "Bob is 45 and Ann is 31.", {}),
    ],
)
def test_a_number_from_another_row_of_the_named_entity_is_a_contradiction(
    context, answer, expected
):
    assert conflicts(context, answer) == expected


def test_a_wrong_row_value_comes_back_as_a_contradiction_with_the_right_cell():
    item = DetectionInput.build([CITIES], "Bergen was founded in 1040.", "When was Bergen founded?")
    result = verify(item, DetectionConfig(), LexicalDetector())
    [span] = [s for s in result.spans if s.text == "1040"]
    assert span.label == "contradiction"
    assert span.evidence is not None
    assert "1070" in span.evidence.text
    assert result.score >= 0.95


PROJECTS = (
    "| Project | Owner | Status |\n|---|---|---|\n| Atlas migration | Nadia Osei | On track |\n"
    "| Billing v2 | Kofi Mensah | At risk |\n| SSO rollout | Ingrid Solberg | Done |"
)


@pytest.mark.parametrize(
    ("right", "wrong", "said"),
    [
        (
            "Billing v2, owned by Kofi Mensah, is at risk.",
            "Billing v2, owned by Ingrid Solberg, is at risk.",
            "Ingrid Solberg",
        ),
        ("The SSO rollout is done.", "The SSO rollout is on track.", "on track"),
    ],
)
def test_a_text_cell_of_another_row_is_a_contradiction(right, wrong, said):
    def records(answer):
        found = check([PROJECTS], answer)
        return [(answer[f.start : f.end], f.reason) for f in found if f.kind == "record"]

    assert records(right) == []
    [(text, reason)] = records(wrong)
    assert text == said
    assert reason.startswith("wrong row: the answer gives")


def test_a_clause_naming_two_rows_compares_no_text_cells():
    answer = "Atlas migration is on track, while Billing v2 is at risk."
    assert [f for f in check([PROJECTS], answer) if f.kind == "record"] == []
