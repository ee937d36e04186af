"""Prompt format and window planning (no model needed)."""

from __future__ import annotations

from engine.detectors.windows import (
    Piece,
    format_prompt,
    pack_windows,
    plan_windows,
    sentence_bounds,
    split_passage,
)


def _word_offsets(text: str) -> list[tuple[int, int]]:
    """One 'token' per whitespace-separated word: enough to test the packing logic."""
    out, pos = [], 0
    for word in text.split():
        start = text.index(word, pos)
        out.append((start, start + len(word)))
        pos = start + len(word)
    return out


def test_prompt_follows_lettucedetect_qa_and_summary_formats():
    qa = format_prompt(["alpha", "beta"], "why?")
    assert "Briefly answer the following question:\nwhy?" in qa
    assert "following 2 passages:\npassage 1: alpha\npassage 2: beta\n" in qa
    assert qa.endswith("output:\n")
    assert (
        format_prompt(["alpha"], None)
        == "\nSummarize the following text:\npassage 1: alpha\noutput:\n"
    )


def test_sentence_bounds_cover_each_sentence_without_separators():
    text = "One two. Three four!  Five"
    assert [text[s:e] for s, e in sentence_bounds(text)] == ["One two.", "Three four!", "Five"]


def test_a_passage_that_fits_stays_whole():
    text = "a b c d"
    assert split_passage(0, text, _word_offsets(text), budget=10) == [Piece(0, 0, len(text), 4)]


def test_an_oversized_passage_splits_by_sentences_with_one_sentence_overlap():
    text = "s1 a b. s2 c d. s3 e f. s4 g h."
    pieces = split_passage(0, text, _word_offsets(text), budget=6)
    texts = [text[p.start : p.end] for p in pieces]
    assert texts == ["s1 a b. s2 c d.", "s2 c d. s3 e f.", "s3 e f. s4 g h."]
    assert all(p.tokens <= 6 for p in pieces)


def test_sentence_token_counts_ignore_empty_offsets_and_offset_order():
    text = "s1 a b. s2 c d. s3 e f. s4 g h."
    offsets = _word_offsets(text)
    noisy = [*reversed(offsets), (3, 3), (len(text), len(text))]  # empty tokens count for nothing
    expected = split_passage(0, text, offsets, budget=6)
    assert split_passage(0, text, noisy, budget=6) == expected
    assert [p.tokens for p in expected] == [6, 6, 6]


def test_an_oversized_sentence_splits_by_tokens_with_overlap():
    text = " ".join(f"w{i}" for i in range(20))
    pieces = split_passage(0, text, _word_offsets(text), budget=8, token_overlap=2)
    assert all(p.tokens <= 8 for p in pieces)
    assert pieces[0].start == 0
    assert pieces[-1].end == len(text)
    # consecutive pieces overlap
    assert all(b.start < a.end for a, b in zip(pieces, pieces[1:], strict=False))


def test_windows_pack_whole_pieces_in_order():
    pieces = [Piece(i, 0, 1, 4) for i in range(5)]
    windows = pack_windows(pieces, budget=10, piece_overhead=1)
    assert [[p.passage for p in w.pieces] for w in windows] == [[0, 1], [2, 3], [4]]


def test_no_context_gives_one_empty_window():
    windows = plan_windows([], [], budget=50, piece_overhead=2)
    assert len(windows) == 1
    assert windows[0].pieces == []
