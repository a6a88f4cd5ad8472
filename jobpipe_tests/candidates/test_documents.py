"""Every supported format is read; every unreadable file gets a reason that quotes none of its content."""

import json

import pytest

from jobpipe.candidates.documents import MAX_FILE_BYTES, UnreadableResume, read_bytes
from jobpipe_tests.candidates.files import encrypt_pdf, make_docx, make_pdf


def test_text_markdown_and_json():
    assert read_bytes("Anna Berg\nPython developer\n".encode("utf-8-sig"), ".txt").text == "Anna Berg\nPython developer"
    assert read_bytes("林子涵\n算法工程师".encode("gb18030"), ".txt").text == "林子涵\n算法工程师"
    assert read_bytes("Anna\n\tPython".encode("utf-16"), ".txt").text == "Anna\n   Python"
    md = read_bytes(b"# Anna Berg\n\n**Python** developer, see [my site](https://anna.example.com)\n- Go\n", ".md")
    assert "https://" not in md.text and "Python developer" in md.text and "#" not in md.text
    doc = read_bytes(json.dumps({"id": "c-7", "name": "Anna Berg", "text": "Python developer",
                                 "preferences": {"remote": True}}).encode(), ".json")
    assert (doc.candidate_id, doc.names, doc.text, doc.preferences) == ("c-7", ("Anna Berg",), "Python developer",
                                                                       {"remote": True})


def test_mojibake_and_invisible_characters_are_repaired():
    assert read_bytes("NaÃ¯ve Bayes, donâ€™t\u200b stop".encode(), ".txt").text == "Naïve Bayes, don’t stop"


def test_pdf_with_author_metadata():
    doc = read_bytes(make_pdf(["Anna Berg", "Senior Python Developer", "anna@example.com"], author="Anna Berg"), ".pdf")
    assert doc.text.splitlines() == ["Anna Berg", "Senior Python Developer", "anna@example.com"]
    assert doc.names == ("Anna Berg",)


def test_docx_reads_header_body_table_and_text_box_in_order():
    data = make_docx(["Senior Python Developer", "Skills: Python, Go"], header=["Anna Berg | +1 415 555 0199"],
                     table=[["Email", "anna@example.com"], ["City", "Berlin"]], author="Anna Berg",
                     textbox="LinkedIn: linkedin.com/in/anna")
    doc = read_bytes(data, ".docx")
    lines = [line for line in doc.text.splitlines() if line]
    assert lines == ["Anna Berg | +1 415 555 0199", "Senior Python Developer", "Skills: Python, Go",
                     "Email | anna@example.com", "City | Berlin", "LinkedIn: linkedin.com/in/anna"]
    assert "Anna Berg" in doc.names


@pytest.mark.parametrize(("data", "suffix", "reason"), [
    (b"", ".txt", "empty file"),
    (b"   \n\t", ".txt", "empty file"),
    (b"\x00\x00", ".txt", "no text in the file"),
    (b"\xff\xfeA\x00n\x00n", ".txt", "starts as UTF-16 but is not valid UTF-16 text"),   # cut mid-character
    (b"%PDF-1.4 not really", ".pdf", "not a readable PDF"),
    (make_pdf(["x"], text_layer=False), ".pdf", "PDF without a text layer"),
    (encrypt_pdf(make_pdf(["Anna Berg secret text"])), ".pdf", "encrypted PDF"),
    (b"PK\x03\x04 not a zip", ".docx", "not a readable .docx"),
    (b"plain text named docx", ".docx", "not a readable .docx"),
    (b"{broken", ".json", "not valid JSON (line 1"),
    (b'["a"]', ".json", "expected a JSON object"),
    (b'{"txt": "x"}', ".json", "unknown field(s) ['txt']"),
    (b'{"name": "x"}', ".json", '"text" is missing'),
    (b'{"text": "x", "preferences": []}', ".json", '"preferences" must be an object'),
    (b"\xd0\xcf\x11\xe0 legacy", ".doc", "legacy Word .doc is not supported"),
    (b"data", ".rtf", "unsupported format .rtf"),
])
def test_unreadable_files_say_why(data, suffix, reason):
    with pytest.raises(UnreadableResume) as info:
        read_bytes(data, suffix)
    assert str(info.value).startswith(reason)
    assert "Anna" not in str(info.value) and "secret" not in str(info.value)


def test_oversized_files_are_refused():
    with pytest.raises(UnreadableResume, match="larger than 10 MB"):
        read_bytes(b"x" * (MAX_FILE_BYTES + 1), ".txt")


def test_long_text_is_cut_and_flagged():
    doc = read_bytes(("Python developer. " * 5000).encode(), ".txt")
    assert doc.truncated and len(doc.text) == 60_000
