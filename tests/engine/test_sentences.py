from engine.text.sentences import sentence_at, sentence_index_at, split_sentences


def test_sentences_keep_offsets_and_skip_abbreviations_and_decimals():
    text = "Dr. Smith met J. K. Rowling in the U.S. today! Was it 3.5 km? Yes [1]. Done"
    got = split_sentences(text)
    assert [s.text for s in got] == [
        "Dr. Smith met J. K. Rowling in the U.S. today!",
        "Was it 3.5 km?",
        "Yes [1].",
        "Done",
    ]
    assert all(text[s.start : s.end] == s.text for s in got)


def test_cjk_full_stops_and_line_breaks_end_sentences():
    assert [s.text for s in split_sentences("东京是首都。大阪很大！\n- item two")] == [
        "东京是首都。",
        "大阪很大！",
        "- item two",
    ]


def test_sentence_at_picks_the_sentence_with_most_overlap():
    sents = split_sentences("One two. Three four five.")
    assert sentence_at(sents, 10, 14).text == "Three four five."
    assert sentence_at(sents, 100, 101) is None
    assert sentence_index_at(sents, 6, 12) == 1  # 2 chars of the first, 3 of the second
    assert sentence_index_at(sents, 100, 101) is None


def test_a_statement_is_neither_a_table_row_nor_a_verbless_heading():
    from engine.text.sentences import states_something

    assert not states_something("| Tariff | Exit fee | Green |")
    assert not states_something("Deleting your account.")
    assert states_something("It is not dishwasher safe.")
    assert states_something("Unused leave cannot be carried over or paid out.")
