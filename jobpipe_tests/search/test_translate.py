"""Dictionary translations (CC-CEDICT) in the keyword leg: both directions, trimmed glosses, cities."""

from __future__ import annotations

from jobpipe.search import keyword, search
from jobpipe.search.query_terms import SUBWORD_WEIGHT, query_concepts
from jobpipe.search.translate import _clean_gloss, available, chinese_for, english_for, english_senses
from jobpipe_tests.search.helpers import insert_job


def test_the_dictionary_is_installed():
    assert available()


def test_chinese_words_get_short_english_glosses():
    assert "headhunter" in english_for("猎头")
    assert english_for("退伍军人") == ("veteran",)
    assert english_for("苏黎世") == ("zurich",)          # "Zurich, Switzerland" -> the name
    assert english_for("不存在的词语") == () and english_for("data") == ()


def test_english_words_and_phrases_get_chinese_headwords():
    assert "猎头" in chinese_for("headhunter")
    assert chinese_for("product manager") == ("产品经理",)
    assert "房地产" in chinese_for("Real Estate")
    assert chinese_for("猎头") == ()


def test_glosses_are_trimmed_or_dropped():
    assert _clean_gloss("to test (machinery etc)") == "test"
    assert _clean_gloss("Oslo, capital of Norway") == "oslo"
    assert _clean_gloss("CL:個|个[ge4]") is None
    assert _clean_gloss("variant of 谷歌[Gu3 ge1]") is None
    assert _clean_gloss("a person who is in charge of several important things") is None   # an explanation


def test_concepts_carry_dictionary_translations_and_phrases():
    concepts = {c.label: c for c in query_concepts("猎头 公司")}
    assert "headhunter" in [a.text for a in concepts["猎头"].alternatives]
    concepts = {c.label: c for c in query_concepts("real estate agent")}
    assert "房地产" in [a.text for a in concepts["real estate"].alternatives]


def test_parts_of_a_longer_chinese_word_count_less():
    concepts = {c.label: c for c in query_concepts("数据科学家")}
    assert concepts["数据科学家"].weight == 1.0
    assert concepts["科学家"].weight == SUBWORD_WEIGHT and concepts["数据"].weight == SUBWORD_WEIGHT


def test_english_query_finds_a_chinese_posting_through_the_dictionary(db):
    target = insert_job(db, "hh", "猎头顾问", cities=["Shanghai"], description="为互联网公司寻访中高端人才。")
    insert_job(db, "other", "人事专员", cities=["Shanghai"], description="负责员工入职和考勤。")
    insert_job(db, "en", "Recruiting coordinator", cities=["Shanghai"], description="Schedule interviews.")
    db.commit()
    response = search(db, "headhunter", mode="keyword")
    assert [r.job_id for r in response.results] == [target]


def test_chinese_query_finds_an_english_posting_through_the_dictionary(db):
    target = insert_job(db, "vet", "Veteran outreach coordinator", cities=["Columbia"],
                        description="Help veterans buy homes with a home loan.")
    insert_job(db, "zh", "客服专员", cities=["Columbia"], description="处理客户来电。")
    db.commit()
    response = search(db, "退伍军人 房贷", mode="keyword")
    assert response.results and response.results[0].job_id == target


def test_inflected_english_words_are_translated_by_their_base_form():
    # Dictionary senses are base forms: a plural or an -ing form used to get no translation at all.
    alts = lambda q, label: [a.text for a in {c.label: c for c in query_concepts(q)}[label].alternatives]  # noqa: E731
    assert "机器人" in alts("robots", "robots")
    assert "视频" in alts("videos", "videos")
    assert "标注" in alts("tagging", "tagging")        # doubled consonant undone
    assert "价格" in alts("pricing", "pricing")        # -ing of a word ending in e
    assert "产品经理" in alts("product managers", "product managers")   # a phrase's last word


def test_english_glosses_of_a_chinese_word_carry_their_plural():
    alts = [a.text for a in {c.label: c for c in query_concepts("调查")}["调查"].alternatives]
    assert "investigation" in alts and "investigations" in alts


def test_a_plural_english_query_finds_a_chinese_posting(db):
    target = insert_job(db, "robot", "机器人销售", cities=["Hangzhou"], description="销售智能机器人产品。")
    insert_job(db, "other", "电话销售", cities=["Hangzhou"], description="负责客户回访。")
    db.commit()
    response = search(db, "robots", mode="keyword")
    assert [r.job_id for r in response.results] == [target]


def test_a_note_with_a_comma_does_not_lose_the_gloss():
    assert _clean_gloss("Columbia (District of, or University etc)") == "columbia"
    assert english_for("哥伦比亚") == ("colombia", "columbia")


def test_a_city_word_also_gets_the_other_places_of_its_name():
    # The city table reads 圣地亚哥 as Santiago; the dictionary knows San Diego too.
    alts = [a.text for a in {c.label: c for c in query_concepts("圣地亚哥")}["圣地亚哥"].alternatives]
    assert "santiago" in alts and "san diego" in alts


def test_parts_of_a_place_name_keep_no_unrelated_translations():
    concepts = {c.label: [a.text for a in c.alternatives] for c in query_concepts("都柏林 圣地亚哥 数据科学家")}
    assert concepts["柏林"] == ["柏林"]                 # Dublin's part is no Berlin
    assert "holy land" not in concepts["圣地"]
    assert "data" in concepts["数据"]                   # a word that composes keeps its parts' senses


def test_the_dictionary_keeps_more_senses_than_it_searches():
    # english_for is the dictionary's first MAX_GLOSSES; english_senses the ones the search may choose among.
    assert english_for("仓库") == ("depot", "storehouse")
    assert "warehouse" in english_senses("仓库")
    assert english_senses("全球")[:2] == english_for("全球") and "global" in english_senses("全球")


def test_a_sense_the_catalogue_uses_is_searched_beside_the_dictionary_first(db):
    # 仓库's first senses are depot and storehouse; a posting says warehouse. Only the senses
    # the catalogue contains compete for the second place, so the English posting is found.
    target = insert_job(db, "wh", "Warehouse associate", cities=["Reno"], description="Pick and pack warehouse orders.")
    insert_job(db, "zh", "客服专员", cities=["Reno"], description="处理客户来电。")
    db.commit()
    db.execute("ANALYZE job_terms")
    keyword._stats_cache.clear()   # this catalogue's frequencies, not an earlier test's
    response = search(db, "仓库", mode="keyword", debug=True)
    assert [r.job_id for r in response.results] == [target]
    bodies = [a["body"] for c in response.debug["keyword_concepts"] if c["label"] == "仓库" for a in c["alternatives"]]
    assert "'depot'" in bodies and "'warehouse'" in bodies and "'storehouse'" not in bodies


def test_a_chinese_word_lists_its_dictionary_senses_as_choices():
    concept = {c.label: c for c in query_concepts("仓库")}["仓库"]
    senses = {a.text: a.sense for a in concept.alternatives}
    assert senses["warehouses"] == "warehouse" and senses["仓库"] is None
    assert concept.max_senses == 2
