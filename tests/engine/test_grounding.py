"""Implicit context: each shape the gateway finds grounding documents in, and the negatives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.grounding import find_context

DOC = (
    "The Eiffel Tower is a wrought-iron lattice tower in Paris. It was built from 1887 "
    "to 1889 and is 330 metres tall."
)
SECOND = (
    "The Great Wall of China is a series of fortifications. The best-known sections were "
    "built during the Ming dynasty, between 1368 and 1644."
)
Q = "When was the Eiffel Tower built?"


def user(text):
    return {"role": "user", "content": text}


def system(text):
    return {"role": "system", "content": text}


@pytest.mark.parametrize(
    ("messages", "how"),
    [
        ([system(f"Answer from this document: {DOC}"), user(Q)], "cue"),
        ([user(f"<document>{DOC}</document>\n\n{Q}")], "tag"),
        ([system(f"<context>\n{DOC}\n</context>"), user(Q)], "tag"),
        ([user(f"```\n{DOC}\n```\n\n{Q}")], "fence"),
        ([system(f"## Context\n\n{DOC}\n\n## Rules\nBe brief."), user(Q)], "md"),
        ([user(f"Context: {DOC}\nQuestion: {Q}")], "header"),
        ([user(f'Use the article below.\n"""\n{DOC}\n"""\n{Q}')], "delimited"),
        ([system(f"Cite by number.\n[1] {DOC}"), user(Q)], "numbered"),
        ([{"role": "tool", "tool_call_id": "c", "content": DOC}], "tool"),
        ([{"role": "user", "content": [{"type": "text", "text": DOC * 3}, {"type": "text", "text": Q}]}], "content_part"),
        ([{"role": "user", "content": [{"type": "document", "source": {"type": "text", "data": DOC}}, {"type": "text", "text": Q}]}], "document"),
    ],
)  # fmt: skip
def test_it_finds_the_document_in_each_shape(messages, how):
    found = find_context(messages)
    assert found.status == "found"
    assert how in found.sources
    assert any(DOC in p or p in DOC * 3 for p in found.passages)


def test_the_query_is_the_user_message_without_its_documents():
    found = find_context(
        [user(f"<documents><document><source>a.pdf</source>{DOC}</document></documents>\n{Q}")]
    )
    assert found.query == Q


def test_anthropic_style_metadata_tags_are_not_passages():
    text = (
        '<documents><document index="1"><source>eiffel.pdf</source>'
        f"<document_content>{DOC}</document_content></document>"
        f'<document index="2"><source>wall.pdf</source><document_content>{SECOND}'
        "</document_content></document></documents>"
    )
    assert find_context([user(text + "\n" + Q)]).passages == (DOC, SECOND)


def test_a_headed_section_keeps_each_of_its_documents():
    found = find_context([user(f"Context:\n{DOC}\n\n{SECOND}\n\nQuestion: {Q}")])
    assert found.passages == (DOC, SECOND)


@pytest.mark.parametrize(
    "messages",
    [
        [user("hi")],
        [user("Why does this fail?\n```python\nprint(add(1))\n```")],
        [system("You are a helpful assistant."), user("Write a haiku about rain.")],
        [user("Answer from this document: too short.")],
    ],
)
def test_it_finds_nothing_where_there_is_no_document(messages):
    assert find_context(messages).passages == ()


@pytest.mark.parametrize(
    "messages",
    [
        [system("Answer only from the provided documents."), user(Q)],
        [user("According to the document above, when does the lease end?")],
        [system("Context:\n"), user(Q)],
    ],
)
def test_a_grounded_looking_request_without_a_document_is_missing(messages):
    assert find_context(messages).status == "missing"


def test_plain_chat_is_none():
    assert find_context([user("What's a good name for a dog?")]).status == "none"


def test_the_development_set_stays_extracted():
    """A floor under the bench (bench/gateway_context.py): a regression fails here first."""
    rows = [
        json.loads(line)
        for line in (Path(__file__).parents[1] / "data" / "gateway_context.jsonl").open()
    ]
    assert len(rows) >= 100
    wrong = [r["id"] for r in rows if find_context(r["messages"]).status != r["grounded"]]
    assert wrong == []
