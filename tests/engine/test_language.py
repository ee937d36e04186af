import pytest

from engine.text.language import answer_language, detect_language


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("The Eiffel Tower was completed in 1889 and stands in Paris.", "en"),
        ("Der Eiffelturm wurde 1889 fertiggestellt und steht in Paris.", "de"),
        ("La tour Eiffel a été achevée en 1889 et se trouve à Paris.", "fr"),
        ("La Torre Eiffel fue terminada en 1889 y está en París.", "es"),
        ("A torre foi concluída em 1889 e não é pequena.", "pt"),
        ("La torre è stata completata nel 1889 ed è a Parigi.", "it"),
        ("埃菲尔铁塔于1889年建成。", "zh"),
        ("エッフェル塔は1889年に完成しました。", "ja"),
        ("에펠탑은 1889년에 완공되었습니다.", "ko"),
        ("Эйфелева башня была построена в 1889 году.", "ru"),
        ("برج إيفل في باريس", "ar"),
    ],
)
def test_it_identifies_common_languages(text, lang):
    assert detect_language(text) == lang


def test_it_is_deterministic():
    text = "Het is niet waar dat de toren in 1889 werd gebouwd."
    assert {detect_language(text) for _ in range(5)} == {"nl"}


def test_too_short_text_is_undetermined_instead_of_guessed():
    assert detect_language("Paris.") == "und"
    assert detect_language("1889") == "und"
    assert detect_language("") == "und"


def test_short_ascii_answers_take_the_context_language():
    assert answer_language("Paris.", ["The tower stands in Paris, France, since 1889."]) == "en"
    assert (
        answer_language("Paris.", ["Der Turm steht seit 1889 in Paris und ist sehr hoch."]) == "de"
    )
    assert answer_language("Yes, it is.", []) == "en"


def test_a_few_foreign_letters_or_emoji_do_not_change_an_english_answer():
    assert detect_language("The city is called Beijing (北京) and it is the capital 🎉.") == "en"


def test_a_short_answer_in_a_foreign_script_is_still_recognised():
    assert answer_language("東京です", ["Tokyo is the capital of Japan."]) == "ja"


@pytest.mark.parametrize(
    "text",
    [
        "Yes I 'd love to do some video game development .",
        "It 's a lot of fun . Just rolling a bowling ball towards a target .",
        "i love seafoam too, i really like green plants, especially plants.",
    ],
)
def test_casual_english_is_not_mistaken_for_a_language_sharing_short_words(text):
    # "i", "a", "do", "to" are also Polish/Czech/Portuguese function words
    assert detect_language(text) == "en"


def test_the_context_is_read_only_when_the_answer_cannot_name_its_language():
    def unread():
        raise AssertionError("the context was read")
        yield ""

    assert (
        answer_language("Der Turm wurde im Jahr 1889 für die Weltausstellung gebaut.", unread())
        == "de"
    )
    assert answer_language("Paris.", iter(["Der Turm steht in Paris und ist sehr hoch."])) == "de"
