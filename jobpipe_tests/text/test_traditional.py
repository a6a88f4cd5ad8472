"""The traditional -> simplified map derived from CC-CEDICT entries."""

from __future__ import annotations

from jobpipe.text.traditional import build_map, fold_table

_ENTRIES = [
    "乾 乾 [qian2] /surname Qian/",
    "乾 干 [gan1] /dry/",
    "乾淨 干净 [gan1 jing4] /clean/",
    "餅乾 饼干 [bing3 gan1] /biscuit/",
    "乾隆 乾隆 [Qian2 long2] /Qianlong/",
    "鍾 钟 [zhong1] /cup/",
    "鍾 锺 [zhong1] /variant/",
    "寧 宁 [ning2] /peaceful/",
    "宁 㝉 [zhu4] /space between door and screen/",
    "# a comment",
]


def test_the_most_frequent_form_in_the_dictionary_wins_ties_to_the_lowest_code_point():
    table = build_map(_ENTRIES)
    assert table[ord("乾")] == "干"           # 3 votes (an entry, two words) against 2
    assert table[ord("鍾")] == min("钟", "锺")  # one vote each
    assert table[ord("寧")] == "宁"


def test_a_character_that_is_the_simplified_form_of_another_is_kept():
    assert ord("宁") not in build_map(_ENTRIES)


def test_the_shipped_dictionary_gives_the_common_characters():
    table = fold_table()
    assert "智能合約工程師".translate(table) == "智能合约工程师"
    assert ord("么") not in table and ord("宁") not in table
