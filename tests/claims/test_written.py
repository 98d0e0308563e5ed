"""An edit written back the way the file is written: `written_like` and the edits that use it.

Files are generated with every mix of line ends (CRLF, LF, a lone CR), a BOM or none, a
final line end or none; the expected bytes are the original's with only the edited
span replaced, computed from the original here.
"""

from __future__ import annotations

import datetime as dt
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claimcheck.claims.article import parse_article
from claimcheck.claims.article_edit import set_link_anchor
from claimcheck.claims.edit import update_claim
from claimcheck.claims.written import written_like
from claimcheck.claims.yaml_read import read_document
from claimcheck.models import Anchor, MediaType
from claimcheck.utf8 import decode_utf8

TODAY = dt.date(2026, 10, 21)
ENDS = st.sampled_from(["\r\n", "\n", "\r"])
# Line text without line-end characters; `#`, `[` and `(` are kept out so that a
# generated line never makes a heading, a link or a second claim of its own.
LINE = st.text(
    st.characters(
        codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters="#[]()<>`*_\\"
    ),
    max_size=30,
)
OLD = "old%20words"
NEW = "new%20words%20here"
LINK = f"See [a](https://a.example/docs#:~:text={OLD}) here."


def join(lines: list[str], ends: list[str], final: bool) -> str:
    """`lines` each ended with the next of `ends` (cycled), the last one only if `final`."""
    out = [line + ends[i % len(ends)] for i, line in enumerate(lines)]
    if not final:
        out[-1] = lines[-1]
    return "".join(out)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # parsers, on a busy CPU
@given(
    before=st.lists(LINE, max_size=6),
    after=st.lists(LINE, max_size=6),
    ends=st.lists(ENDS, min_size=1, max_size=5),
    final=st.booleans(),
    bom=st.booleans(),
)
def test_accept_in_an_article_changes_only_the_links_span(
    before: list[str], after: list[str], ends: list[str], final: bool, bom: bool
) -> None:
    head = ["---", "checked: 2026-10-20", "---", ""]
    # A blank line around the link keeps generated text out of its paragraph.
    raw = ("\ufeff" if bom else "") + join([*head, *before, "", LINK, "", *after], ends, final)
    original = raw.encode("utf-8")
    text = decode_utf8(original)
    (claim,) = parse_article("a.md", text, MediaType.MARKDOWN, today=TODAY, read=read_document)

    edited, _ = set_link_anchor(
        "a.md", text, MediaType.MARKDOWN, claim, Anchor(quote="new words here"), TODAY
    )

    assert raw.count(OLD) == 1
    assert written_like(original, edited) == raw.replace(OLD, NEW).encode("utf-8")


CLAIM_FILE = [
    "page: p",
    "checked: 2026-10-20",
    "claims:",
    "  - id: a",
    "    claim: A claim",
    "    source: https://a.example/",
    "    quote: old words",
]


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # parsers, on a busy CPU
@given(ends=st.lists(ENDS, min_size=1, max_size=5), final=st.booleans(), bom=st.booleans())
def test_an_edit_of_a_claim_file_changes_only_its_lines(
    ends: list[str], final: bool, bom: bool
) -> None:
    raw = ("\ufeff" if bom else "") + join(CLAIM_FILE, ends, final)
    original = raw.encode("utf-8")

    edited = update_claim(
        "c.yaml", decode_utf8(original), "a", {"quote": "new words", "prefix": "the"}
    )

    # The quote line is the last: it changes in place, and the prefix line added after
    # it ends as the quote line does (without a final line end, as the line before it).
    last_end = ends[(len(CLAIM_FILE) - 1) % len(ends)]
    end_before = ends[(len(CLAIM_FILE) - 2) % len(ends)]
    kept = raw[: raw.rindex("    quote: old words")]
    end = last_end if final else end_before
    expected = kept + "    quote: new words" + end + '    prefix: "the"' + end
    assert decode_utf8(written_like(original, edited)) == edited
    assert written_like(original, edited) == expected.encode("utf-8")


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # parsers, on a busy CPU
@given(
    lines=st.lists(LINE, min_size=1, max_size=12),
    ends=st.lists(ENDS, min_size=1, max_size=5),
    final=st.booleans(),
    data=st.data(),
)
def test_any_edit_reads_back_as_edited_and_keeps_the_lines_it_did_not_touch(
    lines: list[str], ends: list[str], final: bool, data: st.DataObject
) -> None:
    raw = join(lines, ends, final)
    original = raw.encode("utf-8")
    text = decode_utf8(original)
    split = re.findall(r"[^\n]*\n|[^\n]+$", text)  # each line with its end
    at = data.draw(st.integers(0, max(0, len(split) - 1)))
    new_lines = data.draw(st.lists(LINE, max_size=3))
    edited = "".join([*split[:at], *(line + "\n" for line in new_lines), *split[at + 1 :]])

    written = written_like(original, edited)

    assert decode_utf8(written) == edited
    kept = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)", raw)[:at]  # the lines before the edit
    assert written.decode("utf-8").startswith("".join(kept))
    assert written_like(original, text) == original


def test_a_lone_cr_before_an_empty_lf_line_the_edit_makes_stays_two_line_ends() -> None:
    """`0\\r` then `0\\n` whose `0` the edit removes: `\\r` + `\\n` would read as one CRLF."""
    original = b"a\r\n\r0\n\r\n\r0\n"
    edited = "a\n\n0\n\n\n\n"  # the last line's `0` removed, its line end kept

    written = written_like(original, edited)

    assert written == b"a\r\n\r0\n\r\n\r\n\n"
    assert decode_utf8(written) == edited
