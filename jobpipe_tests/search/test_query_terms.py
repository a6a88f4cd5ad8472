"""Query analysis: filter words stripped, concepts with translations and variants."""

from __future__ import annotations

from jobpipe.search.query_terms import query_concepts
from jobpipe.search.types import SearchFilters


def _labels(query, filters=SearchFilters()):
    return [c.label for c in query_concepts(query, filters)]


def _alternatives(query, label, filters=SearchFilters()):
    concept = next(c for c in query_concepts(query, filters) if c.label == label)
    return {a.text: a.weight for a in concept.alternatives}


def test_city_words_are_dropped_when_the_city_is_a_filter():
    assert "旧金山" not in _labels("旧金山的数据工程师", SearchFilters(city="San Francisco"))
    assert "旧金山" in _labels("旧金山的数据工程师")
    assert "beijing" not in _labels("Beijing backend engineer", SearchFilters(city="北京"))


def test_job_type_and_remote_words_are_dropped_when_filtered():
    assert _labels("内容运营 应届生岗位", SearchFilters(job_type="campus")) == ["内容", "运营", "内容运营"]
    assert "remote" not in _labels("remote golang developer", SearchFilters(remote=True))
    assert "实习" in _labels("数据分析 实习")


def test_translations_and_variants_are_alternatives_of_one_concept():
    assert _alternatives("数据工程师", "数据工程师")["data engineer"] < 1.0
    assert "engineer" in _alternatives("数据工程师", "工程师")
    assert "engineer" in _alternatives("engineers wanted", "engineers")
    assert "数据" in _alternatives("data analyst", "data")


def test_dictionary_terms_split_by_jieba_are_still_found():
    # jieba cuts 后端 into 后 / 端; the term list still recognises it and adds "backend".
    assert "backend" in _alternatives("Node.js 后端开发", "后端")
    assert "后" not in _labels("Node.js 后端开发")    # lone characters are dropped


def test_a_query_of_only_filter_words_has_no_concepts():
    assert query_concepts("实习", SearchFilters(job_type="intern")) == []


def test_function_words_are_no_concepts():
    labels = [c.label for c in query_concepts("which roles can I do with their team, 我们 以及 其他 团队")]
    assert labels == ["team", "团队"]


def test_function_words_do_not_pull_same_language_postings_above_the_asked_one(db):
    from jobpipe.search import search
    from jobpipe_tests.search.helpers import insert_job

    target = insert_job(db, "zh", "机器人销售", cities=["Hangzhou"], description="销售智能机器人。")
    insert_job(db, "en", "Office assistant", cities=["Hangzhou"], description="Who we are: a team that can help.")
    insert_job(db, "zh2", "前台", cities=["Hangzhou"], description="接待访客。")
    db.commit()
    response = search(db, "who can sell robots", mode="keyword")
    assert [r.job_id for r in response.results] == [target]


def test_a_hyphenated_compound_reads_as_the_vocabulary_phrase():
    concepts = {c.label: [a.text for a in c.alternatives] for c in query_concepts("big-data live-streaming roles")}
    assert "big data" in concepts["big-data"] and "大数据" in concepts["big-data"]
    assert "直播" in concepts["live-streaming"]
    # widened, not doubled: "front-end" is one concept however it is spelled in the list
    # (and its tools, a concept of their own: below)
    words = [c.label for c in query_concepts("front-end developer") if c.family_of is None]
    assert words == ["front-end", "developer"]


def test_an_english_word_is_also_looked_up_in_its_other_number_spelled_as_english_spells_it():
    plural_of = {"branch": "branches", "strategy": "strategies", "survey": "surveys", "analysis": "analyses",
                 "campus": "campuses", "engineer": "engineers"}
    for word, plural in plural_of.items():
        assert plural in _alternatives(f"{word} manager", word)
        assert word in _alternatives(f"{plural} manager", plural)
    # singular words ending in s, and words with no plural, get no made-up forms
    for word, made_up in {"nucleus": "nucleu", "satisfied": "satisfieds", "various": "variou",
                          "status": "statu", "careful": "carefuls"}.items():
        assert made_up not in _alternatives(f"{word} manager", word)


def test_a_skill_word_also_searches_the_taxonomy_names_of_that_skill_in_both_languages():
    # 性能测试 and "load testing" are one skill of the normalizer's taxonomy, not a curated job term
    assert "load testing" in _alternatives("性能测试", "性能测试")
    assert "performance testing" in _alternatives("性能测试", "性能测试")
    assert "性能测试" in _alternatives("load testing engineer", "load testing")
    # a phrase jieba splits is still found as the taxonomy's name
    assert "frontend" in _alternatives("web前端 兼职", "web前端")


def test_skill_names_that_need_their_spelling_or_context_are_not_expanded_to():
    from jobpipe.normalize.skills import skill_synonyms

    names = skill_synonyms()
    assert "go" not in names.get("Go", ())          # "=Go": lower-case "go" is an English word
    assert "r" not in names.get("R", ("r",))[1:] and "assembly" not in names["Assembly"]   # ~R, !self
    assert all(len(n) > 2 or any("\u3400" <= ch <= "\u9fff" for ch in n) for group in names.values() for n in group)
    # a word is looked up once per concept, at its best weight
    texts = [a.text for a in query_concepts("测试")[0].alternatives]
    assert len(texts) == len(set(texts))


def test_a_chinese_skill_query_finds_the_english_posting_named_by_the_taxonomy(db):
    from jobpipe.search import search
    from jobpipe_tests.search.helpers import insert_job

    target = insert_job(db, "en", "Load Testing Engineer", cities=["Berlin"],
                        description="Run load testing and stress testing of our APIs.")
    insert_job(db, "en2", "Backend Engineer", cities=["Berlin"], description="Build APIs in Go.")
    insert_job(db, "en3", "Performance Marketing Manager", cities=["Berlin"], description="Run paid campaigns.")
    db.commit()
    response = search(db, "性能测试工程师", mode="keyword")
    assert response.results and response.results[0].job_id == target


def test_a_compound_no_dictionary_lists_is_read_from_its_words():
    # Neither the curated terms nor CC-CEDICT list 金融服务 or 谷歌云; their words they do.
    assert "financial services" in _alternatives("金融服务行业的客户经理", "金融服务")
    assert "google cloud" in _alternatives("谷歌云销售", "谷歌云")    # 云 as the curated terms read it
    assert "contract" in _alternatives("合同制数据工程师", "合同制")    # one unread suffix character
    # a name whose characters are no words gets nothing made up
    assert [a for a in _alternatives("阿斯利康招数据科学家", "阿斯利康") if a.isascii()] == []


def test_a_compound_read_from_its_words_finds_the_english_posting_first(db):
    from jobpipe.search import search
    from jobpipe_tests.search.helpers import insert_job

    target = insert_job(db, "en", "Customer Engineer, Financial Services", cities=["New York"],
                        description="Help banks adopt the cloud.")
    insert_job(db, "zh", "客户经理", cities=["Shanghai"], description="金融服务行业客户经理，维护客户关系。")
    insert_job(db, "en2", "Customer Success Engineer", cities=["New York"], description="Support our customers.")
    db.commit()
    response = search(db, "金融服务 客户工程师", mode="keyword")
    assert response.results[0].job_id == target


def test_amounts_and_cohorts_are_also_searched_as_postings_write_them():
    assert {"20000-30000", "20k-30k"} <= set(_alternatives("substrate developer 20-30k RMB", "20-30k"))
    assert "20-30k" in _alternatives("薪资20000-30000", "20000-30000")
    assert "25000" in _alternatives("25k salary", "25k") and "25k" in _alternatives("salary 25000", "25000")
    assert "25届" in _alternatives("2025 graduates", "2025")
    assert "2025" in _alternatives("招聘25届毕业生", "25")
    assert set(_alternatives("3 years", "3")) == {"3"}          # a bare number is no cohort


def test_a_stated_amount_tells_sibling_postings_apart(db):
    from jobpipe.search import search
    from jobpipe_tests.search.helpers import insert_job

    insert_job(db, "lead", "Substrate Lead Developer 薪水 25000+ RMB", description="远程，Rust 开发。")
    target = insert_job(db, "dev", "substrate工程师 薪水 20000-30000 RMB", description="远程，Rust 开发。")
    insert_job(db, "grad24", "英语客服 24届-26届毕业生", description="远程客服。")
    grad = insert_job(db, "grad25", "英语客服 25届和26届毕业生", description="远程客服。")
    db.commit()
    assert search(db, "substrate developer 20-30k RMB", mode="keyword").results[0].job_id == target
    assert search(db, "English customer support, 2025 graduates", mode="keyword").results[0].job_id == grad


def test_an_amount_matches_however_its_thousands_are_separated(db):
    from jobpipe.search import search
    from jobpipe_tests.search.helpers import insert_job

    grouped = insert_job(db, "grouped", "Account Manager", description="Pay: $8,000 - $9,500 per month.")
    plain = insert_job(db, "plain", "Account Manager", description="月薪 12000 到 15000 美元。")
    insert_job(db, "other", "Account Manager", description="Pay: $6,000 - $7,000 per month, 000 bonus.")
    db.commit()
    assert search(db, "account manager 8000 to 9500 USD", mode="keyword").results[0].job_id == grouped
    assert search(db, "月薪 8000 到 9500 美元 account manager", mode="keyword").results[0].job_id == grouped
    assert search(db, "account manager $12,000 - $15,000", mode="keyword").results[0].job_id == plain


def test_a_latin_word_that_reads_as_pinyin_also_searches_its_marked_reading():
    assert _alternatives("Lianjia real estate agent", "lianjia")["py0lianjia"] == 0.9
    assert "py0shuju" in _alternatives("shuju fenxi", "shuju")
    assert not any(a.startswith("py0") for a in _alternatives("data engineer", "engineer"))   # no pinyin reading


def test_an_employer_named_in_pinyin_finds_the_posting_that_writes_it_in_chinese(db):
    from jobpipe.search import keyword, search
    from jobpipe_tests.search.helpers import insert_job

    keyword._found_cache.clear()
    insert_job(db, "other", "我爱我家 置业顾问", company="我爱我家", cities=["Kunming"], description="房产经纪，五险一金。")
    target = insert_job(db, "lianjia", "链家地产 置业顾问", company="链家", cities=["Kunming"],
                        description="房产经纪，五险一金。")
    db.commit()
    assert [r.job_id for r in search(db, "Lianjia", mode="keyword").results] == [target]
    assert search(db, "Lianjia 置业顾问", mode="keyword").results[0].job_id == target
    # typed without an input method: each word's reading, in the title
    analyst = insert_job(db, "analyst", "数据分析师", description="负责业务报表。")
    insert_job(db, "dba", "数据库管理员", description="负责业务报表。")
    db.commit()
    assert search(db, "shuju fenxi", mode="keyword").results[0].job_id == analyst


def test_an_english_word_spelled_like_pinyin_does_not_match_chinese_postings(db):
    from jobpipe.search import keyword, search
    from jobpipe_tests.search.helpers import insert_job

    keyword._found_cache.clear()
    chinese = insert_job(db, "zh", "我们的运营专员", description="加入我们。")   # 我们 reads "women"
    db.commit()
    # no posting says "women": the reading is searched, and finds the posting that writes 我们
    assert [r.job_id for r in search(db, "women", mode="keyword").results] == [chinese]
    english = insert_job(db, "en", "Women in Tech Program Manager", description="Lead our women in tech programme.")
    db.commit()
    # once a posting has the word as typed, it is that English word: the Chinese posting drops out
    assert [r.job_id for r in search(db, "women", mode="keyword").results] == [english]


def test_a_word_read_as_pinyin_weighs_as_much_as_its_reading_is_rare(db):
    from jobpipe.search import keyword
    from jobpipe_tests.search.helpers import insert_job

    keyword._found_cache.clear()
    keyword._stats_cache.clear()
    for i, title in enumerate(["数据分析师", "数据工程师", "链家经纪人", "销售"]):
        insert_job(db, f"p{i}", title)
    db.commit()
    [shuju, lianjia] = keyword.prepare_concepts(db, query_concepts("shuju lianjia"))
    # 数据 is in half the titles, 链家 in one: typed as pinyin, neither spelling is in any posting
    assert shuju.alts[0].idf == keyword._idf(2 / 4, 4) < lianjia.alts[0].idf == keyword._idf(1 / 4, 4)



def _scripts_catalogue(db):
    from jobpipe_tests.search.helpers import insert_job

    traditional = insert_job(db, "hk", "智能合約工程師", cities=["Hong Kong"], description="負責區塊鏈智能合約開發。")
    simplified = insert_job(db, "sz", "数据库管理员", cities=["Shenzhen"], description="维护数据库。")
    # each shares the query's words that are written alike in both scripts (智能, 工程, 管理)
    insert_job(db, "bj", "人工智能工程师", cities=["Beijing"], description="智能硬件。")
    insert_job(db, "tw", "管理培訓生", cities=["Taipei"], description="管理 管理員 培訓。")
    db.commit()
    return traditional, simplified


def test_a_simplified_query_finds_a_posting_in_traditional_characters(db):
    from jobpipe.search import search

    traditional, _ = _scripts_catalogue(db)
    assert [r.job_id for r in search(db, "智能合约工程师", mode="keyword").results][:1] == [traditional]


def test_a_traditional_query_finds_a_posting_in_simplified_characters(db):
    from jobpipe.search import search

    _, simplified = _scripts_catalogue(db)
    assert [r.job_id for r in search(db, "數據庫管理員", mode="keyword").results][:1] == [simplified]


def test_a_word_naming_a_family_of_work_adds_a_weaker_concept_of_its_tools_names():
    concepts = query_concepts("智能合约工程师")
    parent = next(i for i, c in enumerate(concepts) if c.label == "智能合约")
    family = [c for c in concepts if c.family_of is not None]
    assert len(family) == 1 and family[0].family_of == parent
    names = {a.text for a in family[0].alternatives}
    assert {"solidity", "hardhat"} <= names
    assert "move" not in names and "cairo" not in names     # ~Move, ~Cairo: ordinary words in lower case
    assert family[0].weight == concepts[parent].weight * 0.5
    # a skill that heads no family, and a word that is no skill, add none
    assert not [c for c in query_concepts("java 开发") if c.family_of is not None]
    assert not [c for c in query_concepts("销售经理") if c.family_of is not None]


def test_a_tools_name_the_query_already_types_is_not_looked_up_again():
    concepts = query_concepts("前端开发 vue")
    family_names = {a.text for c in concepts if c.family_of is not None for a in c.alternatives}
    assert "vue" not in family_names and "react.js" in family_names
    assert len([c for c in concepts if c.family_of is not None]) == 1   # 前端 and 前端开发: one family


def test_a_posting_naming_only_a_tool_of_the_asked_family_is_found_below_one_naming_the_work(db):
    from jobpipe.search import search
    from jobpipe_tests.search.helpers import insert_job

    named = insert_job(db, "a", "智能合约工程师", cities=["Shanghai"], description="负责链上合约的开发与审计。")
    tool = insert_job(db, "b", "Solidity 区块链研发工程师", cities=["Shanghai"], description="使用 Solidity 和 Hardhat 开发协议。")
    insert_job(db, "c", "市场营销经理", cities=["Shanghai"], description="负责品牌推广和活动策划。")
    db.commit()
    ids = [r.job_id for r in search(db, "智能合约", mode="keyword").results]
    assert ids == [named, tool]


def test_a_familys_lookups_never_take_the_row_budget_a_typed_word_needs():
    from jobpipe.search import keyword

    def concept(label, rows, family=False):
        alt = keyword.Alt(f"'{label}'", None, 1.0, 2.0, rows / 100_000, 0.0, 100_000)
        return keyword.PreparedConcept(label, [alt], 1.0, family)

    typed = concept("bi", keyword.ROW_BUDGET - 100)
    tools = concept("bi (family)", 500, family=True)
    chosen = {b.concept for b in keyword._branches([typed, tools], 1.0)}
    assert chosen == {0, 1}            # one budget: the rarer tools' lookup came first and left "bi" out
    too_many = concept("ai (family)", keyword.FAMILY_ROW_BUDGET + 1, family=True)
    assert {b.concept for b in keyword._branches([typed, too_many], 1.0)} == {0}


def test_a_common_tools_name_is_left_out_not_the_whole_family():
    from jobpipe.search import keyword

    total = 100_000
    common = keyword.Alt("'html'", None, 1.0, 2.0, keyword.FAMILY_ROW_BUDGET / total, 0.0, total)
    rare = keyword.Alt("'svelte'", None, 1.0, 2.0, 50 / total, 0.0, total)
    tools = keyword.PreparedConcept("前端 (family)", [common, rare], 0.5, family=True)
    [branch] = keyword._branches([tools], 1.0)
    assert branch.query == "( 'svelte' )"


def test_level_words_translate_as_titles_use_them_not_as_the_dictionary_reads_them():
    # CC-CEDICT reads "principal" as 主要 (main), 本金 (a loan's principal), 校监 (a school's)
    assert set(_alternatives("principal engineer", "principal")) == {"principal", "principals", "首席"}
    assert {"principal", "chief"} <= set(_alternatives("首席工程师", "首席"))
    assert "chief" not in _alternatives("principal engineer", "principal")   # a chief is not a principal
    assert "中级" in _alternatives("intermediate accountant", "intermediate")


def test_a_range_of_levels_searches_the_levels_between_as_a_weaker_concept():
    from jobpipe.search.understand import understand

    query = "lead or principal data scientist"
    concepts = query_concepts(query, levels=understand(query).seniority_levels)
    implied = [c for c in concepts if c.label.endswith("(level)")]
    assert [(c.label, [a.text for a in c.alternatives]) for c in implied] == [("staff (level)", ["staff"])]
    anchor = implied[0].family_of
    assert concepts[anchor].label == "lead" and implied[0].weight == concepts[anchor].weight * 0.5
    # the vocabulary's other levels (senior for staff, head for lead) are not the level implied
    words = {a.text for a in query_concepts("senior to staff engineer", levels=("senior", "lead", "staff"))[-1].alternatives}
    assert words == {"lead"}
    # one level, or two with none between, implies nothing
    for q, levels in (("senior data scientist", ("senior",)), ("senior or lead engineer", ("senior", "lead"))):
        assert not [c for c in query_concepts(q, levels=levels) if c.label.endswith("(level)")]


def test_a_posting_at_a_level_between_the_two_named_is_found(db):
    from jobpipe.search import search
    from jobpipe_tests.search.helpers import insert_job

    for i in range(12):   # plain data scientists, each scoring as the staff one on the words typed (and first on ties)
        insert_job(db, f"d{i}", "Data Scientist", description="Model churn for a marketplace. " * 30)
    staff = insert_job(db, "s", "Staff Data Scientist", description="Model churn for a marketplace. " * 30)
    db.commit()
    found = [r.job_id for r in search(db, "lead or principal data scientist", mode="keyword", top_k=3).results]
    assert found[0] == staff
