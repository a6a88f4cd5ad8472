"""Cities, country and remote mode from location text in Chinese and English."""

from __future__ import annotations

import pytest

from jobpipe.normalize.location import city_aliases, city_country, known_cities, resolve_city, resolve_locations


@pytest.mark.parametrize("name,expected", [
    ("北京", "Beijing"), ("Beijing", "Beijing"), ("Peking", "Beijing"), ("北京市", "Beijing"),
    ("上海", "Shanghai"), ("沪", "Shanghai"), ("shanghai", "Shanghai"),
    ("深圳", "Shenzhen"), ("广州", "Guangzhou"), ("杭州", "Hangzhou"), ("成都", "Chengdu"), ("南京", "Nanjing"),
    ("武汉", "Wuhan"), ("西安", "Xi'an"), ("苏州", "Suzhou"), ("兰州", "Lanzhou"), ("厦门", "Xiamen"),
    ("新加坡", "Singapore"), ("Singapore", "Singapore"), ("SG", "Singapore"),
    ("香港", "Hong Kong"), ("HK", "Hong Kong"), ("Hong Kong", "Hong Kong"),
    ("台北", "Taipei"), ("東京", "Tokyo"), ("东京", "Tokyo"), ("吉隆坡", "Kuala Lumpur"), ("迪拜", "Dubai"),
    ("旧金山", "San Francisco"), ("SF", "San Francisco"), ("Bay Area", "San Francisco"),
    ("纽约", "New York City"), ("NYC", "New York City"), ("New York", "New York City"),
    ("伦敦", "London"), ("London", "London"), ("München", "Munich"), ("Zürich", "Zurich"),
    ("Mountain View", "Mountain View"), ("Sunnyvale", "Sunnyvale"), ("Seattle", "Seattle"),
    ("Mountain View, CA, United States", "Mountain View"), ("深圳-南山区", "Shenzhen"),
    ("Narnia", None), ("", None), (None, None), ("远程", None),
])
def test_resolve_city(name, expected):
    assert resolve_city(name) == expected


def test_both_languages_give_the_same_canonical_name():
    for zh, en in [("北京", "beijing"), ("上海", "SHANGHAI"), ("新加坡", "Singapore"), ("旧金山", "San Francisco")]:
        assert resolve_city(zh) == resolve_city(en)


def test_every_resolved_city_is_in_the_table():
    cities = known_cities()
    for name in ["北京", "HK", "Mountain View", "Cambridge, MA", "Hoopeston, IL"]:
        assert resolve_city(name) in cities


def test_city_aliases_lists_both_languages():
    aliases = city_aliases("Beijing")
    assert aliases[0] == "Beijing" and "北京" in aliases and "Peking" in aliases
    assert city_aliases("Nowhere") == []
    assert city_country("Shenzhen") == "CN" and city_country("Singapore") == "SG"


@pytest.mark.parametrize("text,cities,country,remote", [
    ("Mountain View, CA, United States", ["Mountain View"], "US", None),
    ("New York, NY", ["New York City"], "US", None),
    ("Cambridge, MA", ["Cambridge"], "US", None),
    ("Dublin, Ireland", ["Dublin"], "IE", None),
    ("Dublin, CA", ["Dublin"], "US", None),
    ("London, United Kingdom", ["London"], "GB", None),
    ("Remote - US", [], "US", "remote"),
    ("北京/上海/远程", ["Beijing", "Shanghai"], "CN", "remote"),
    ("北京、上海", ["Beijing", "Shanghai"], "CN", None),
    ("北京 上海 杭州 深圳", ["Beijing", "Shanghai", "Hangzhou", "Shenzhen"], "CN", None),
    ("深圳-南山区", ["Shenzhen"], "CN", None),
    ("上海-浦东新区", ["Shanghai"], "CN", None),
    ("北京市朝阳区望京SOHO", ["Beijing"], "CN", None),
    ("上海南京西路", ["Shanghai"], "CN", None),
    ("上海中山公园附近，暂不支持远程", ["Shanghai"], "CN", "onsite"),
    ("马来西亚 · 吉隆坡（坐班）", ["Kuala Lumpur"], "MY", "onsite"),
    ("远程", [], None, "remote"),
    ("居家办公", [], None, "remote"),
    ("分布式办公", [], None, "remote"),
    ("Work from home", [], None, "remote"),
    ("telecommute", [], None, "remote"),
    ("Hybrid - London", ["London"], "GB", "hybrid"),
    ("混合办公（上海）", ["Shanghai"], "CN", "hybrid"),
    ("不限", [], None, "remote"),
    ("HK/ remote", ["Hong Kong"], "HK", "remote"),
    ("Onsite（Hangzhou/Shenzhen）", ["Hangzhou", "Shenzhen"], "CN", "onsite"),
    ("Xinyi District, Taiwan", ["Taipei"], "TW", None),
    ("Singapore", ["Singapore"], "SG", None),
    ("Beijing or USA San Jose", ["Beijing", "San Jose"], "CN", None),
    ("美国洛杉矶", ["Los Angeles"], "US", None),
    ("MG, Brazil", [], "BR", None),
    ("日本", [], "JP", None),
])
def test_resolve_locations(text, cities, country, remote):
    assert resolve_locations(text, [], None) == (cities, country, remote)


def test_extra_locations_and_remote_hint():
    cities, country, remote = resolve_locations("Shanghai", ["Beijing, China", "Shanghai"], "TELECOMMUTE")
    assert cities == ["Shanghai", "Beijing"] and country == "CN" and remote == "remote"
    assert resolve_locations(None, [], "hybrid")[2] == "hybrid"
    assert resolve_locations("Berlin, Germany", [], None)[2] is None   # unstated stays None


def test_free_text_does_not_invent_cities():
    # lower-case words, English phrases and small towns without a state are not cities
    assert resolve_locations("remote work available, flexible", [], None)[0] == []
    assert resolve_locations("Trade Centre - DIFC - Dubai", [], None)[0] == ["Dubai"]
    assert resolve_locations("Hoopeston", [], None)[0] == ["Hoopeston"]        # whole segment: accepted
    assert resolve_locations("based near Hoopeston maybe", [], None)[0] == []  # small town in prose: not


@pytest.mark.parametrize("text,hint,remote", [
    ("上海", "是否远程：否", "onsite"), ("北京", "否（非远程）", "onsite"), ("深圳", "不行（不支持远程）", "onsite"),
    (None, "是否远程：是", "remote"), (None, "可远程", "remote"), (None, "TELECOMMUTE", "remote"), (None, "false", "onsite"),
    ("上海/远程", "否", "remote"),                 # the text wins over the hint
    ("Berlin", None, None), ("Hong Kong", "Onsite", "onsite"), (None, "Hybrid (3 days in office)", "hybrid"),
])
def test_remote_hint_with_negations(text, hint, remote):
    assert resolve_locations(text, [], hint)[2] == remote


def test_cached_resolution_returns_a_fresh_list_each_time():
    first, country, _ = resolve_locations("北京/上海")
    assert first == ["Beijing", "Shanghai"] and country == "CN"
    first.append("Mutated")   # a caller changing its list must not change the next posting's cities
    again, _, _ = resolve_locations("北京/上海")
    assert again == ["Beijing", "Shanghai"] and again is not first
    # the uncached path (extra locations) agrees with the cached one
    assert resolve_locations("北京", ["上海"]) == (["Beijing", "Shanghai"], "CN", None)


@pytest.mark.parametrize("name,expected", [
    ("苏州", "Suzhou"), ("宿州", "Suzhou (Anhui)"), ("安徽宿州", "Suzhou (Anhui)"), ("Suzhou (Anhui)", "Suzhou (Anhui)"),
    ("福州", "Fuzhou"), ("抚州市", "Fuzhou (Jiangxi)"), ("台州", "Taizhou"), ("泰州", "Taizhou (Jiangsu)"),
    ("宜春", "Yichun"), ("伊春", "Yichun (Heilongjiang)"),
])
def test_chinese_cities_sharing_a_romanised_name_stay_apart(name, expected):
    """A filter on 苏州 must not return 宿州 postings: each prefecture city has its own canonical name."""
    assert resolve_city(name) == expected
    assert resolve_locations(name)[0] == [expected] or "(" in name
    assert city_country(expected) == "CN"


@pytest.mark.parametrize("text,cities,country", [
    ("Toronto, CA", ["Toronto"], "CA"), ("Vancouver, CA", ["Vancouver"], "CA"), ("Vancouver, WA", ["Vancouver"], "US"),
    ("San Jose, CA", ["San Jose"], "US"), ("Pasadena, CA", ["Pasadena"], "US"),
    ("Berlin, DE", ["Berlin"], "DE"), ("Hamburg, DE", ["Hamburg"], "DE"), ("Wilmington, DE", ["Wilmington"], "US"),
    ("Bangalore, IN", ["Bengaluru"], "IN"), ("Indianapolis, IN", ["Indianapolis"], "US"),
])
def test_a_state_code_that_is_also_a_country_code(text, cities, country):
    """CA, DE, IN are US states and countries: the bigger city of the two readings wins."""
    found, got_country, _ = resolve_locations(text)
    assert (found, got_country) == (cities, country)


@pytest.mark.parametrize("text,cities", [
    ("California - San Jose", ["San Jose"]), ("San Jose, California", ["San Jose"]), ("Seattle, Washington", ["Seattle"]),
    ("California", []), ("Virginia", []),                              # the state, not a small town of that name
    ("New York", ["New York City"]), ("Washington, DC", ["Washington"]),  # alone, a big city of that name
    ("New York/Shanghai", ["New York City", "Shanghai"]),               # listed alternatives: both cities
    ("Austin, Texas or New York", ["Austin", "New York City"]),
])
def test_a_state_name_next_to_a_city_is_its_state(text, cities):
    found, country, _ = resolve_locations(text)
    assert found == cities
    assert country is not None


def test_a_state_is_not_resolved_to_a_small_town_of_its_name():
    """A search filter city="California" then matches the location text instead of one small town."""
    assert resolve_city("California") is None and resolve_city("Virginia") is None
    assert resolve_city("New York") == "New York City" and resolve_city("Washington") == "Washington"
