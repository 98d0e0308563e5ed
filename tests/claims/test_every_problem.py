"""Every problem of every kind in one run: a claim file's author fixes them all at once.

Problems of one kind used to hide the others: a file whose fields broke the schema had
none of its claims checked for a source or a quote, nor its ids counted, so a missing
source and a duplicate id came out only once four other errors were fixed. And the
validation library's words ("Value error, ...", "Datetimes provided to dates should
have zero time") are never what an author reads.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from claimcheck.claims.parse import parse_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.errors import ClaimFileError
from support import paths
from support.claim_files import REPRODUCTION_A, REPRODUCTION_B

TODAY = dt.date(2026, 10, 21)

# The reproduction of the issue: claims/a.yaml and claims/b.yaml.
A_YAML, B_YAML = REPRODUCTION_A, REPRODUCTION_B
REPRODUCTION = [
    "claims/a.yaml:9: claim 'one': id: duplicate id, first defined at claims/a.yaml:4",
    "claims/a.yaml:14: claim 'two': source: give a source URL, or `cited` when it has none yet",
    "claims/a.yaml:20: claim 'three': checked: must be a date (YYYY-MM-DD), not 20240101",
    "claims/b.yaml:5: claim 'four': source: must be an http(s) URL with a host",
    "claims/b.yaml:6: claim 'four': quote: must not be empty or whitespace only",
]
# The validation library's own wording, which no problem may carry.
LIBRARY_WORDS = re.compile(
    r"Value error|Input should|Field required|String should|Extra inputs|Datetimes provided"
    r"|valid dictionary|instance of"
)
PROBLEM = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): ")


def problems_of(*files: tuple[str, str]) -> list[str]:
    with pytest.raises(ClaimFileError) as info:
        parse_claims(list(files), today=TODAY, read=read_document)
    return info.value.problems


def test_the_issue_reproduction_lists_every_problem_sorted() -> None:
    assert problems_of(("claims/a.yaml", A_YAML), ("claims/b.yaml", B_YAML)) == REPRODUCTION


EVERY_KIND = """\
page: every kind
checked: 2026-13-45
colour: red
claims:
  - id: typo
    claim: c
    source: https://example.org/a
    qoute: the quote misspelt
  - id: twice
    claim: c
    cited: a talk
  - id: twice
    claim: 3
    cited: a talk
  - id: nothing
    claim: c
  - id: no-quote
    claim: c
    source: https://example.org/a
  - id: prefix-alone
    claim: c
    source: https://example.org/a
    prefix: before
  - just text
  - id: fragment
    claim: c
    source: https://example.org/a#:~:text=one&text=two
  - id: ahead
    claim: c
    cited: a talk
    checked: 2999-01-01
  - claim: no id at all
    cited: a talk
"""
EVERY_KIND_PROBLEMS = [
    "p.yaml:1: page: must be letters, digits, '.', '_' and '-', starting with a letter or digit",
    "p.yaml:2: checked: must be a date (YYYY-MM-DD), not '2026-13-45' (month value is outside "
    "expected range of 1-12)",
    "p.yaml:3: colour: unknown key",
    "p.yaml:5: claim 'typo': quote: a claim with a source needs a quote",
    "p.yaml:8: claim 'typo': qoute: unknown key; did you mean 'quote'?",
    "p.yaml:12: claim 'twice': id: duplicate id, first defined at p.yaml:9",
    "p.yaml:13: claim 'twice': claim: must be text, not a number (3); put it in quotes",
    "p.yaml:15: claim 'nothing': source: give a source URL, or `cited` when it has none yet",
    "p.yaml:17: claim 'no-quote': quote: a claim with a source needs a quote",
    "p.yaml:20: claim 'prefix-alone': quote: quote_end, prefix and suffix need a quote",
    "p.yaml:24: claims: must be a mapping of keys, not text",
    "p.yaml:27: claim 'fragment': source: 'https://example.org/a#:~:text=one&text=two' has 2 "
    "text directives; a claim source needs exactly one anchor",
    "p.yaml:31: claim 'ahead': checked: 2999-01-01 is in the future (after 2026-10-22); write "
    "the day the claim was checked",
    "p.yaml:32: claims.id: required, but missing",
]


def test_every_kind_of_problem_of_one_file_comes_out_together_by_line() -> None:
    assert problems_of(("p.yaml", EVERY_KIND)) == EVERY_KIND_PROBLEMS


def test_duplicate_ids_are_counted_in_files_that_break_the_schema() -> None:
    good = "page: a\nchecked: 2026-10-20\nclaims:\n  - id: x\n    claim: c\n    cited: t\n"
    broken = "page: b\nchecked: never\nclaims:\n  - id: x\n    claim: c\n    cited: t\n"
    assert problems_of(("a.yaml", good), ("b.yaml", broken)) == [
        "b.yaml:2: checked: must be a date (YYYY-MM-DD), not 'never'",
        "b.yaml:4: claim 'x': id: duplicate id, first defined at a.yaml:4",
    ]
    # and the first definition may be the broken one
    assert problems_of(("b.yaml", broken), ("a.yaml", good)) == [
        "b.yaml:2: checked: must be a date (YYYY-MM-DD), not 'never'",
        "a.yaml:4: claim 'x': id: duplicate id, first defined at b.yaml:4",
    ]


def test_a_refused_field_raises_no_second_problem_about_itself() -> None:
    """A bad source is not also "no source"; an empty quote is not also "no quote"."""
    text = (
        "page: p\nchecked: 2026-10-20\nclaims:\n"
        "  - id: a\n    claim: c\n    source: notaurl\n"
        '  - id: b\n    claim: c\n    source: https://example.org/\n    quote: ""\n'
        '  - id: c\n    claim: c\n    cited: ""\n'
    )
    assert problems_of(("p.yaml", text)) == [
        "p.yaml:6: claim 'a': source: must be an http(s) URL with a host",
        "p.yaml:10: claim 'b': quote: must not be empty or whitespace only",
        "p.yaml:13: claim 'c': cited: must not be empty or whitespace only",
    ]


def test_files_come_in_their_order_and_each_by_line() -> None:
    later = EVERY_KIND.replace("page: every kind", "page: z")
    problems = problems_of(("z.yaml", later), ("a.yaml", A_YAML))
    files = [m["file"] for p in problems if (m := PROBLEM.match(p))]
    assert files == sorted(files, key=lambda f: f != "z.yaml")
    for name in ("z.yaml", "a.yaml"):
        lines = [int(m["line"]) for p in problems if (m := PROBLEM.match(p)) and m["file"] == name]
        assert lines == sorted(lines)


def malformed_cases() -> dict[str, str]:
    """The malformed claim files as text (one that is not UTF-8 is refused before parsing)."""
    cases = {}
    for case in sorted((paths.DATA / "malformed" / "claims").glob("*.yaml")):
        try:
            cases[case.name] = case.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
    assert len(cases) > 50
    return cases


MALFORMED = malformed_cases()


@pytest.mark.parametrize("name", list(MALFORMED))
def test_no_problem_speaks_the_validation_library(name: str) -> None:
    problems = problems_of((name, MALFORMED[name]))
    assert problems
    assert [p for p in problems if LIBRARY_WORDS.search(p)] == []
    assert all(PROBLEM.match(p) for p in problems), problems


def test_the_many_kinds_above_speak_no_library_either() -> None:
    problems = problems_of(("p.yaml", EVERY_KIND), ("claims/b.yaml", B_YAML))
    assert [p for p in problems if LIBRARY_WORDS.search(p)] == []


def test_an_unreadable_file_hides_no_other_files_problems(tmp_path: Path) -> None:
    """Files that cannot be read (not UTF-8, too large) are reported among the problems
    of the files that can, each at its file's place."""
    from claimcheck.claims.load import load_claims

    folder = tmp_path / "claims"
    folder.mkdir()
    (folder / "a.yaml").write_text(A_YAML, encoding="utf-8")
    (folder / "b.yaml").write_bytes("page: b\nchecked: 2024-01-01\n# caf\xe9\n".encode("latin-1"))
    (folder / "c.yaml").write_text(B_YAML, encoding="utf-8")
    (folder / "d.yaml").write_text("#" * (129 * 1024), encoding="utf-8")

    with pytest.raises(ClaimFileError) as raised:
        load_claims([folder], read=read_document)

    files = [problem.split(":", 1)[0].rsplit("/", 1)[-1] for problem in raised.value.problems]
    assert set(files) == {"a.yaml", "b.yaml", "c.yaml", "d.yaml"}
    assert files == sorted(files)  # each file's problems at its place
    assert any("duplicate id" in p for p in raised.value.problems)  # a.yaml's, not hidden
    assert any("b.yaml:3: " in p and "is not UTF-8" in p for p in raised.value.problems)
