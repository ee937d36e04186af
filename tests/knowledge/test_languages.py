"""Issue 24, defect 3: CJK retrieval, languages told per passage, and the warning a
document gets when the detector cannot check its language."""

from __future__ import annotations

import pytest

from knowledge import retrieval
from knowledge.models import Document, KnowledgeBase, Passage
from knowledge.text_search import query_terms, search_text

from .conftest import index_all

pytestmark = pytest.mark.django_db

JAPANESE = (
    "東京タワーは東京都港区芝公園にある総合電波塔です。一九五八年に完成し、高さは三百三十三メートルです。"
    "展望台からは富士山を眺めることができます。\n\n"
    "大阪城は豊臣秀吉によって築かれた城です。天守閣は一九三一年に再建されました。"
    "春には桜の名所として多くの人が訪れます。"
)
COPIED = "展望台からは富士山を眺めることができます。"

# Four sections, each longer than a passage (about 120 words): passages at the
# boundaries hold two languages and take the one most of their letters are in.
ARABIC = " ".join(
    f"المكتبة الوطنية في المدينة تفتح أبوابها كل يوم من الساعة الثامنة صباحا حتى المساء والقسم رقم {i} "
    "يضم الكتب القديمة والمخطوطات النادرة."
    for i in range(10)
)
HEBREW = " ".join(
    f"הספרייה העירונית פתוחה בכל יום מהשעה שמונה בבוקר ועד הערב והאגף מספר {i} "
    "מכיל ספרים ישנים וכתבי יד נדירים."
    for i in range(10)
)
JAPANESE_SECTION = "".join(
    f"この図書館の第{i}閲覧室には古い写本と地図が保管されていて、研究者は予約をすれば利用できます。"
    for i in range(8)
)
ENGLISH = " ".join(
    f"The reading room number {i} of the municipal library keeps old maps and rare manuscripts, "
    "and researchers may use them after booking a desk at the front office."
    for i in range(14)
)
MIXED = "\n\n".join([ARABIC, HEBREW, JAPANESE_SECTION, ENGLISH])


def _kb(client, name: str, text: str) -> tuple[str, dict]:
    kb = client.post("/v1/knowledge-bases", {"name": "Multi"}, format="json").json()["id"]
    doc = client.post(
        f"/v1/knowledge-bases/{kb}/documents", {"name": name, "content": text}, format="json"
    ).json()
    index_all()
    return kb, client.get(f"/v1/knowledge-bases/{kb}/documents/{doc['id']}").json()


def _search(tenant, text: str) -> list[retrieval.Hit]:
    kb = KnowledgeBase.objects.get(tenant=tenant, name="Multi")
    return retrieval.search(tenant.pk, [kb.pk], text, k=3)


def test_cjk_runs_become_bigrams_and_other_text_is_unchanged():
    assert search_text("The tower is 330 metres tall.") == "The tower is 330 metres tall."
    assert search_text("東京タワー is tall").split() == [
        "東京",
        "京タ",
        "タワ",
        "ワー",
        "is",
        "tall",
    ]
    assert query_terms("東京タワー 1958") == ["1958", "東京", "京タ", "タワ", "ワー"]


def test_a_sentence_copied_from_a_japanese_document_finds_its_passage(client_a, tenant_a):
    _, doc = _kb(client_a, "towers.txt", JAPANESE)
    assert doc["status"] == "ready"
    assert doc["language"] == "ja"
    hits = _search(tenant_a[0], COPIED)
    assert hits, "no candidate for a sentence copied word for word"
    assert COPIED in hits[0].text


def test_a_japanese_answer_is_checked_with_evidence_from_the_document(client_a):
    from verification.actions.claim import claim
    from verification.models import VerificationJob
    from verification.stages.detect import process_jobs

    kb, _ = _kb(client_a, "towers.txt", JAPANESE)
    body = {"knowledge_base": kb, "response": COPIED}
    job = client_a.post("/v1/verifications", body, format="json").json()["id"]
    process_jobs([claim(VerificationJob.parse_public_id(job))])
    grounding = client_a.get(f"/v1/verifications/{job}").json()["grounding"]
    assert grounding["claims_with_evidence"] == 1, grounding
    assert COPIED in grounding["passages"][0]["text"]


def test_a_mixed_document_files_each_passage_under_its_own_language(client_a, tenant_a):
    _, doc = _kb(client_a, "library.txt", MIXED)
    passages = Passage.objects.filter(document_id=Document.objects.get().pk)
    config_of = {p.text[:12]: p.config for p in passages}
    assert config_of[ARABIC[:12]] == "arabic"
    assert config_of[HEBREW[:12]] == "simple"
    assert config_of[JAPANESE_SECTION[:12]] == "simple"
    assert config_of[ENGLISH[:12]] == "english"
    # the document is filed under the language most of its text is in, not the first
    assert doc["language"] == "en"
    # each language's sentence finds its own section
    for section, sentence in [
        (ARABIC, "المكتبة الوطنية في المدينة تفتح أبوابها كل يوم"),
        (HEBREW, "הספרייה העירונית פתוחה בכל יום"),
        (JAPANESE_SECTION, "研究者は予約をすれば利用できます"),
        (ENGLISH, "researchers may use the manuscripts after booking a desk"),
    ]:
        hits = _search(tenant_a[0], sentence)
        assert hits, sentence
        assert hits[0].text[:12] == section[:12], (sentence, hits[0])
    # the detector (English) cannot check three of the four: said on the document
    [warning] = doc["warnings"]
    assert all(f"{lang}: " in warning for lang in ("ar", "he", "ja"))
    assert "en: " not in warning


def test_an_english_document_gets_no_language_warning(client_a):
    _, doc = _kb(client_a, "en.txt", ENGLISH)
    assert doc["language"] == "en"
    assert doc["warnings"] == []


def test_a_replacements_languages_and_warnings_are_served_with_it(client_a):
    """The languages and warnings are worked out per version and swapped in with its
    passages: while a replacement is queued, the document shows the served version's."""
    kb, doc = _kb(client_a, "library.txt", ENGLISH)
    url = f"/v1/knowledge-bases/{kb}/documents/{doc['id']}"
    assert (doc["language"], doc["warnings"]) == ("en", [])
    put = client_a.put(url, {"name": "library.txt", "content": MIXED}, format="json")
    assert put.status_code == 202, put.json()
    queued = client_a.get(url).json()
    assert (queued["version"], queued["language"], queued["warnings"]) == (1, "en", [])
    assert set(Passage.objects.values_list("config", flat=True)) == {"english"}

    index_all()
    served = client_a.get(url).json()
    assert served["version"] == 2
    [warning] = served["warnings"]
    assert all(f"{code}:" in warning for code in ("ar", "he", "ja")), warning
    versions = client_a.get(f"{url}/versions").json()["results"]
    assert [(v["version"], v["warnings"]) for v in versions] == [(2, [warning]), (1, [])]
    assert "arabic" in set(Passage.objects.values_list("config", flat=True))
