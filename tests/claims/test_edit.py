"""Round-trip edits of claim files: only the intended characters change, in the file's style."""

from __future__ import annotations

import difflib
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimcheck.claims.edit import (
    EditError,
    derive_id,
    insert_claim,
    new_claim_file,
    set_anchor,
    set_reviewed,
    update_claim,
    with_modeline,
)
from claimcheck.claims.parse import parse_claims
from claimcheck.claims.schema import MODELINE
from claimcheck.claims.yaml_read import read_document
from claimcheck.errors import ClaimFileError
from claimcheck.judge.normalize import normalize_text
from claimcheck.models import Anchor

NAME = "claims/page.yaml"
HEAD = "page: p\nchecked: 2026-10-20\nclaims:\n"

# Comments everywhere, odd key order, every scalar style, blank lines between claims.
STYLED = """\
# The page's claims.   (a comment before everything)
page: page   # the slug
title: 'A page: with a colon'
checked: 2026-10-20
claims:
  # ---- first section
  - quote: >-
      folded quote
      over two lines
    id: folded   # the id after the quote
    source: https://example.org/a
    claim: |
      A literal
      claim.

  - id: 'single'
    claim: "double: quoted"   # a trailing comment
    source: https://example.org/b
    quote: 'it''s single'
    # a comment inside the claim
    checked: '2026-10-21'

  - id: plain
    claim: plain claim
    source: https://example.org/c
    quote: plain quote here
# a comment after everything
"""


def changed(before: str, after: str) -> list[str]:
    """The lines removed (-) and added (+), in order, without diff headers."""
    diff = difflib.unified_diff(before.splitlines(True), after.splitlines(True), n=0)
    return [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")]


def quote_of(text: str, claim_id: str) -> Anchor | None:
    claims = {c.id: c for c in parse_claims([(NAME, text)], read=read_document)}
    return claims[claim_id].anchor


CHANGES = {
    "folded-stays-folded": (
        "folded",
        "new words",
        ["-      folded quote\n", "-      over two lines\n", "+      new words\n"],
    ),
    "single-stays-single": (
        "single",
        "that's new",
        ["-    quote: 'it''s single'\n", "+    quote: 'that''s new'\n"],
    ),
    "plain-stays-plain": (
        "plain",
        "new plain",
        ["-    quote: plain quote here\n", "+    quote: new plain\n"],
    ),
    "plain-quoted-when-needed": (
        "plain",
        "key: value # not a comment",
        ["-    quote: plain quote here\n", '+    quote: "key: value # not a comment"\n'],
    ),
    "plain-number-quoted": (
        "plain",
        "1234",
        ["-    quote: plain quote here\n", '+    quote: "1234"\n'],
    ),
    "single-with-newline-double": (
        "single",
        "two\nlines",
        ["-    quote: 'it''s single'\n", '+    quote: "two\\nlines"\n'],
    ),
}


@pytest.mark.parametrize(("claim_id", "value", "diff"), CHANGES.values(), ids=CHANGES.keys())
def test_update_keeps_the_scalar_style_and_every_other_line(
    claim_id: str, value: str, diff: list[str]
) -> None:
    after = update_claim(NAME, STYLED, claim_id, {"quote": value})

    assert changed(STYLED, after) == diff
    anchor = quote_of(after, claim_id)
    assert anchor is not None
    assert anchor.quote == value


def test_update_of_a_literal_block_keeps_it_literal() -> None:
    after = update_claim(NAME, STYLED, "folded", {"claim": "A new\nliteral claim.\n"})
    assert changed(STYLED, after) == [
        "-      A literal\n",
        "-      claim.\n",
        "+      A new\n",
        "+      literal claim.\n",
    ]
    # Without a final line break the header says so; the value reads back exactly.
    stripped = update_claim(NAME, STYLED, "folded", {"claim": "A new claim."})
    assert "    claim: |-\n      A new claim.\n" in stripped


def test_an_unchanged_value_changes_nothing() -> None:
    assert update_claim(NAME, STYLED, "single", {"quote": "it's single", "prefix": None}) == STYLED


def test_new_keys_go_after_the_quote_or_at_the_end_of_the_claim() -> None:
    after = update_claim(
        NAME, STYLED, "folded", {"suffix": "after", "prefix": "before", "checked": "2026-11-30"}
    )
    lines = after.splitlines()
    assert changed(STYLED, after) == [
        '+    prefix: "before"\n',
        '+    suffix: "after"\n',
        "+    checked: '2026-11-30'\n",  # the file writes its claims' dates quoted
    ]
    assert lines.index('    prefix: "before"') == lines.index("      over two lines") + 1
    assert lines.index("    checked: '2026-11-30'") == lines.index("      claim.") + 1


def test_a_new_key_goes_before_a_comment_that_follows_the_claim() -> None:
    after = update_claim(NAME, STYLED, "plain", {"checked": "2026-11-30"})
    assert after.endswith(
        "    quote: plain quote here\n    checked: '2026-11-30'\n# a comment after everything\n"
    )


def test_removing_a_key_removes_its_line_only() -> None:
    with_prefix = update_claim(NAME, STYLED, "single", {"prefix": "before"})
    after = update_claim(NAME, with_prefix, "single", {"prefix": None})
    assert after == STYLED


def test_removing_the_first_key_pulls_the_next_onto_the_dash_line() -> None:
    text = HEAD + "  - prefix: x\n    id: a\n    claim: c\n    cited: d\n"
    after = update_claim(NAME, text, "a", {"prefix": None})
    assert after == HEAD + "  - id: a\n    claim: c\n    cited: d\n"


def test_an_empty_value_is_filled_in() -> None:
    text = HEAD + "  - id: a\n    claim: c\n    cited:\n    checked: 2026-01-01\n"
    after = update_claim(NAME, text, "a", {"cited": "a talk"})
    assert changed(text, after) == ["-    cited:\n", '+    cited: "a talk"\n']


ENTRY = {
    "id": "new",
    "claim": "A claim: with a colon",
    "source": "https://example.org/d",
    "quote": "a new quote",
    "checked": "2026-11-30",
}


def test_insert_follows_the_last_sourced_claim_in_order_style_and_spacing() -> None:
    after = insert_claim(NAME, STYLED, ENTRY)

    assert changed(STYLED, after) == [
        "+\n",
        "+  - id: new\n",
        '+    claim: "A claim: with a colon"\n',  # plain in the file, but it needs quotes
        "+    source: https://example.org/d\n",
        "+    quote: a new quote\n",
        "+    checked: '2026-11-30'\n",
    ]
    assert after.endswith("'2026-11-30'\n# a comment after everything\n")
    assert [c.id for c in parse_claims([(NAME, after)], read=read_document)] == [
        "folded",
        "single",
        "plain",
        "new",
    ]


def test_insert_into_a_list_at_column_zero_without_a_final_newline() -> None:
    text = HEAD + "- id: a\n  claim: c\n  source: https://e.org\n  quote: q w e"
    after = insert_claim(NAME, text, ENTRY)
    assert after == text + (
        '\n- id: new\n  claim: "A claim: with a colon"\n  source: https://example.org/d\n'
        "  quote: a new quote\n  checked: 2026-11-30\n"
    )


def test_insert_into_an_empty_flow_list() -> None:
    text = "page: p  # c\nchecked: 2026-10-20\nclaims: []  # none yet\n"
    after = insert_claim(NAME, text, ENTRY)
    assert after.startswith("page: p  # c\nchecked: 2026-10-20\nclaims:\n  - id: new\n")
    assert after.endswith("    checked: 2026-11-30  # none yet\n")
    assert [c.id for c in parse_claims([(NAME, after)], read=read_document)] == ["new"]


def test_insert_into_a_full_flow_list_is_refused() -> None:
    text = "page: p\nchecked: 2026-10-20\nclaims: [{id: a, claim: c, cited: d}]\n"
    with pytest.raises(EditError, match="flow list"):
        insert_claim(NAME, text, ENTRY)


def test_crlf_files_stay_crlf() -> None:
    text = STYLED.replace("\n", "\r\n")
    after = insert_claim(NAME, update_claim(NAME, text, "plain", {"prefix": "p"}), ENTRY)
    assert "\n" not in after.replace("\r\n", "")
    assert after.startswith(text[: text.index("    quote: plain quote here")])


def test_new_claim_file_is_laid_out_as_the_readme_shows() -> None:
    text = new_claim_file(
        NAME,
        "page",
        "2026-11-30",
        {"quote": "q w e", "id": "a", "claim": "c", "source": "https://e.org"},
    )
    assert text == (
        f"{MODELINE}\n"
        'page: page\nchecked: 2026-11-30\nclaims:\n  - id: a\n    claim: "c"\n'
        '    source: https://e.org\n    quote: "q w e"\n'
    )
    (claim,) = parse_claims([(NAME, text)], read=read_document)
    assert claim.line == 5


# -- the schema's modeline ----------------------------------------------------------------

WITH_MODELINE = f"{MODELINE}\n{STYLED}"


def modelines(text: str) -> list[int]:
    """The lines (1-based) that are a YAML language server's modeline."""
    return [
        number
        for number, line in enumerate(text.splitlines(), 1)
        if line.startswith("# yaml-language-server:")
    ]


def test_a_new_claim_file_starts_with_the_modeline_once() -> None:
    entry = {"id": "a", "claim": "c", "cited": "a talk"}
    text = new_claim_file(NAME, "page", "2026-11-30", entry)
    assert text.splitlines()[0] == MODELINE
    assert MODELINE.startswith("# yaml-language-server: $schema=https://")
    assert modelines(text) == [1]


EDITS = {
    "insert": lambda text: insert_claim(
        NAME, text, {"id": "new", "claim": "c", "cited": "t", "checked": "2026-11-30"}
    ),
    "update": lambda text: update_claim(NAME, text, "plain", {"quote": "another quote"}),
    "remove": lambda text: update_claim(NAME, text, "single", {"checked": None}),
    "set-anchor": lambda text: set_anchor(
        NAME, text, "plain", Anchor(quote="new words here", prefix="p"), "2026-11-30"
    ),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edit_keeps_the_modeline_as_it_is_and_adds_none(edit: str) -> None:
    after = EDITS[edit](WITH_MODELINE)
    assert after.splitlines()[0] == MODELINE
    assert modelines(after) == [1]
    assert after != WITH_MODELINE
    assert changed(WITH_MODELINE, after) == changed(STYLED, EDITS[edit](STYLED))


@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edit_gives_a_file_without_a_modeline_none(edit: str) -> None:
    assert modelines(EDITS[edit](STYLED)) == []


@pytest.mark.parametrize(
    "existing",
    [
        MODELINE,
        "# yaml-language-server: $schema=../claims.schema.json",
        "#yaml-language-server: $schema=https://example.org/other.json",
    ],
    ids=["ours", "relative", "another"],
)
def test_with_modeline_never_adds_a_second_one(existing: str) -> None:
    text = f"# a comment first\n{existing}\n{HEAD}"
    assert with_modeline(text) == text
    assert with_modeline(HEAD.replace("\n", "\r\n")) == f"{MODELINE}\r\n" + HEAD.replace(
        "\n", "\r\n"
    )


def test_set_anchor_rewrites_a_text_fragment_source() -> None:
    text = (
        "page: p\nchecked: 2026-10-20\nclaims:\n  - id: a\n    claim: c\n"
        "    source: https://e.org/x#:~:text=old%20words\n"
    )
    after = set_anchor(NAME, text, "a", Anchor(quote="new, words", suffix="after"), "2026-11-30")
    assert changed(text, after) == [
        "-    source: https://e.org/x#:~:text=old%20words\n",
        "+    source: https://e.org/x#:~:text=new%2C%20words,-after\n",
        "+    checked: 2026-11-30\n",
    ]
    assert quote_of(after, "a") == Anchor(quote="new, words", suffix="after")


def test_set_anchor_moves_prefix_and_suffix_with_the_quote() -> None:
    with_context = update_claim(NAME, STYLED, "plain", {"prefix": "old", "suffix": "old"})
    after = set_anchor(
        NAME, with_context, "plain", Anchor(quote="new", suffix="next"), "2026-11-30"
    )
    assert changed(STYLED, after) == [
        "-    quote: plain quote here\n",
        "+    quote: new\n",
        '+    suffix: "next"\n',
        "+    checked: '2026-11-30'\n",
    ]


def test_a_range_fragment_is_not_rewritten() -> None:
    text = (
        "page: p\nchecked: 2026-10-20\nclaims:\n  - id: a\n    claim: c\n"
        "    source: https://e.org/x#:~:text=one,two\n"
    )
    with pytest.raises(EditError, match="range"):
        set_anchor(NAME, text, "a", Anchor(quote="three", quote_end="four"), "2026-11-30")


def test_an_unknown_id_is_an_edit_error() -> None:
    with pytest.raises(EditError, match="no claim with id 'nope'"):
        update_claim(NAME, STYLED, "nope", {"quote": "x"})


def test_an_edit_that_breaks_the_claim_file_is_refused() -> None:
    with pytest.raises(ClaimFileError, match="unknown key"):
        update_claim(NAME, STYLED, "plain", {"qoute": "typo"})


# Text a claim file cannot hold: a command line's undecodable byte (argv's surrogateescape
# makes b"\xff" the lone surrogate U+DCFF), a lone half of a pair, control characters.
UNWRITABLE = {
    "argv-byte": ("caf\udcff", "lone surrogate U+DCFF"),
    "lone-half": ("\ud83d Supports CUDA", "lone surrogate U+D83D"),
    "bell": ("ring\x07", "control character U+0007"),
    "escape-sequence": ("\x1b[31mred", "control character U+001B"),
    "carriage-return": ("a\rb", "control character U+000D"),
}


@pytest.mark.parametrize(("value", "problem"), UNWRITABLE.values(), ids=UNWRITABLE.keys())
def test_text_a_claim_file_cannot_hold_is_refused_before_writing(value: str, problem: str) -> None:
    """The parser judges the edit, in its words: the problem names the claim and the key
    that would hold the text, for `add` to say it as the option that gave it."""
    entry = {"id": "new", "claim": "c", "source": "https://e.org/x", "quote": value}
    edits = [
        ("plain", "quote", lambda: update_claim(NAME, STYLED, "plain", {"quote": value})),
        ("plain", "prefix", lambda: update_claim(NAME, STYLED, "plain", {"prefix": value})),
        ("new", "quote", lambda: insert_claim(NAME, STYLED, entry)),
        ("new", "quote", lambda: new_claim_file(NAME, "page", "2026-11-30", entry)),
        (
            "plain",
            "quote",
            lambda: set_anchor(NAME, STYLED, "plain", Anchor(quote=value), "2026-11-30"),
        ),
    ]
    for claim_id, key, edit in edits:
        with pytest.raises(ClaimFileError) as info:
            edit()
        [found] = info.value.problems
        assert re.match(rf"{re.escape(NAME)}:\d+: claim '{claim_id}': {key}: character ", found)
        assert problem in found
        str(info.value).encode("utf-8")  # the message itself prints on any terminal


def test_a_surrogate_pair_is_written_as_escapes_that_read_back_as_its_character() -> None:
    after = update_claim(NAME, STYLED, "plain", {"quote": "\ud83d\udda5 Supports CUDA"})
    after.encode("utf-8")
    assert 'quote: "\\ud83d\\udda5 Supports CUDA"' in after
    assert quote_of(after, "plain") == Anchor(quote="\U0001f5a5 Supports CUDA")


def test_an_id_for_an_undecodable_claim_is_derived_without_crashing() -> None:
    assert derive_id("p", "\udcff\udcfe", set()).startswith("p-")


# Any text a claim may hold: no surrogates, no control characters but tab and newline,
# and something a reader can see (not only whitespace, zero-width or soft hyphens).
TEXT = st.characters(exclude_categories=("Cs", "Cc"), include_characters="\t\n")
QUOTES = st.text(TEXT, min_size=1).filter(normalize_text)


@settings(deadline=None)
@given(QUOTES)
def test_any_quote_reads_back_exactly_and_only_its_line_changes(value: str) -> None:
    after = update_claim(NAME, STYLED, "single", {"quote": value})

    anchor = quote_of(after, "single")
    assert anchor is not None
    assert anchor.quote == value
    removed = [line for line in changed(STYLED, after) if line.startswith("-")]
    assert removed == ["-    quote: 'it''s single'\n"]


# -- set_reviewed: a person's acknowledgement, as a block mapping --------------------------

REVIEWED_FILE = """\
page: p
checked: 2026-01-10
claims:
  - id: a
    claim: c
    sources:
      - source: https://a.org/
        quote: "x"
      - source: https://b.org/
        quote: |
          multi
          line
  # about b
  - id: b
    claim: d
    source: https://c.org/
    quote: y
"""
REVIEWED_ENTRY = {
    "date": "2026-02-01",
    "verdict": "moved",
    "version": "0123456789abcdef",
    "note": "n",
}
BLOCK = (
    "    reviewed:\n      date: 2026-02-01\n      verdict: moved\n"
    '      version: 0123456789abcdef\n      note: "n"\n'
)


def test_set_reviewed_adds_the_entry_after_a_claims_last_key_even_a_nested_list() -> None:
    edited = set_reviewed("f.yaml", REVIEWED_FILE, "a", REVIEWED_ENTRY)
    assert edited == REVIEWED_FILE.replace("  # about b\n", BLOCK + "  # about b\n")


def test_set_reviewed_replaces_an_entry_where_it_stands_keeping_the_comment_after_it() -> None:
    first = set_reviewed("f.yaml", REVIEWED_FILE, "a", REVIEWED_ENTRY)
    again = set_reviewed(
        "f.yaml",
        first,
        "a",
        {**REVIEWED_ENTRY, "note": "again: # not a comment", "until": "2027-01-01"},
    )
    block = BLOCK.replace('"n"', '"again: # not a comment"') + "      until: 2027-01-01\n"
    assert again == REVIEWED_FILE.replace("  # about b\n", block + "  # about b\n")


def test_set_reviewed_quotes_a_version_yaml_would_read_as_a_number() -> None:
    edited = set_reviewed(
        "f.yaml", REVIEWED_FILE, "b", {**REVIEWED_ENTRY, "version": "1234567890123456"}
    )
    assert edited.endswith('      version: "1234567890123456"\n      note: "n"\n')
