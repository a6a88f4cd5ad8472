from hypothesis import given, settings
from hypothesis import strategies as st

from jobpipe.service.context import safe_url
from jobpipe.text.sanitize import clean_text, clean_value

_INVISIBLE = "\x00\x07\x1b\x7f\u0085\u200b\u200c\u200d\u2060\ufeff\u202e\u2066"


def test_control_zero_width_and_bidi_characters_are_removed():
    assert clean_text("Py\u200bthon\x07 Dev\u202eeloper\x00") == "Python Developer"
    assert clean_text("a\tb\r\nc") == "a b c"


def test_multiline_keeps_line_breaks_but_not_controls():
    text = "line one\x1b[31m\r\n\r\n\r\n\r\nline\u200b two\u2028three"
    assert clean_text(text, multiline=True) == "line one[31m\n\nline two\nthree"


def test_lone_surrogates_are_dropped_so_output_encodes():
    assert clean_text("ok\ud800!") == "ok!"


def test_clean_value_walks_nested_structures():
    data = {"title\u200b": "a\x00b", "cities": ["Bei\u200bjing"], "n": 3, "description_text": "x\ny\x07"}
    assert clean_value(data, multiline_keys=frozenset({"description_text"})) == {
        "title": "ab", "cities": ["Beijing"], "n": 3, "description_text": "x\ny"}


def test_only_http_links_survive():
    assert safe_url("https://example.com/a") == "https://example.com/a"
    assert safe_url("javascript:alert(1)") is None
    assert safe_url("file:///etc/passwd") is None
    assert safe_url("   ") is None


@settings(max_examples=300)
@given(st.text())
def test_no_invisible_character_survives(text):
    for multiline in (False, True):
        out = clean_text(text, multiline=multiline)
        assert not any(ch in out for ch in _INVISIBLE)
        out.encode("utf-8")  # never raises: no surrogates left
        if not multiline:
            assert "\n" not in out and "\r" not in out
