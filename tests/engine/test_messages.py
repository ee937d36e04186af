import pytest

from engine.text.messages import MessagesError, inputs_from_messages


def test_tool_and_function_results_become_passages_and_last_turns_are_used():
    item = inputs_from_messages(
        [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "first question"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]},
            {"role": "tool", "tool_call_id": "c1", "content": "The tower is 330 m tall."},
            {
                "role": "function",
                "name": "f",
                "content": [{"type": "text", "text": "Opened 1889."}],
            },
            {"role": "user", "content": "How tall is it?"},
            {"role": "assistant", "content": "It is 330 m tall."},
        ]
    )
    assert item.context == ("The tower is 330 m tall.", "Opened 1889.")
    assert item.query == "How tall is it?"
    assert item.response == "It is 330 m tall."


def test_system_prompt_context_after_a_header_is_split_into_labelled_passages():
    item = inputs_from_messages(
        [
            {
                "role": "system",
                "content": "Answer from the sources.\n\nContext:\n[3] Tall tower.\n[7] Opened 1889.",
            },
            {"role": "user", "content": "When?"},
            {"role": "assistant", "content": "1889 [7]."},
        ]
    )
    assert item.context == ("[3] Tall tower.", "[7] Opened 1889.")
    assert item.passage_ids == ("3", "7")


def test_a_system_prompt_without_documents_is_not_context():
    item = inputs_from_messages(
        [
            {"role": "system", "content": "Be concise and polite."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!"},
        ]
    )
    assert item.context == ()


def test_context_embedded_in_the_user_message_is_extracted():
    item = inputs_from_messages(
        [
            {
                "role": "user",
                "content": "Context: Paris is in France.\n\nBerlin is in Germany.\n"
                "Question: Where is Paris?",
            },
            {"role": "assistant", "content": "In France."},
        ]
    )
    assert item.context == ("Paris is in France.", "Berlin is in Germany.")
    assert item.query == "Where is Paris?"


@pytest.mark.parametrize(
    ("messages", "message"),
    [
        ([], "non-empty list"),
        ("hello", "non-empty list"),
        ([{"role": "user", "content": "q"}], "no assistant message"),
        ([{"role": "assistant", "content": "  "}], "no assistant message"),
        ([{"role": "bot", "content": "x"}], "unknown role"),
        (["not a dict"], "must be an object"),
        ([{"role": "assistant", "content": 42}], "content must be"),
    ],
)
def test_unusable_input_raises_a_clear_value_error(messages, message):
    with pytest.raises(MessagesError, match=message) as err:
        inputs_from_messages(messages)
    assert isinstance(err.value, ValueError)


def test_a_plain_language_document_prompt_is_context_too():
    """The same finder as the gateway's: issue 15's prompt is no longer context-free."""
    item = inputs_from_messages(
        [
            {
                "role": "system",
                "content": "Answer from this document: The Eiffel Tower was built from 1887 to "
                "1889 and is 330 metres tall.",
            },
            {"role": "user", "content": "When was it built?"},
            {"role": "assistant", "content": "In 1950."},
        ]
    )
    assert item.context == ("The Eiffel Tower was built from 1887 to 1889 and is 330 metres tall.",)
    assert item.query == "When was it built?"
