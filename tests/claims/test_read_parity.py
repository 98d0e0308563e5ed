"""The libyaml reader reads every claim file as the ruamel one did: same claims, same problems.

`support.ruamel_claims` is the reader as it was (ruamel.yaml, pure Python), frozen: the
oracle. Each test reads the same files with both and compares the results whole: the
`Claim`s, or every `file:line: field: message` problem. Where the two YAML parsers word a
syntax error differently, only its `file:line: invalid YAML near FIELD` must agree. A
rule made since the old reader was frozen (`NEWER`) refuses what it read: only those
problems may stand where it read claims.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import importlib.util
import json
import re
import tomllib
import warnings
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from claimcheck.claims.parse import parse_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.errors import ClaimFileError
from claimcheck.models import Claim
from support import paths, ruamel_claims

TODAY = dt.date(2026, 10, 21)
SYNTAX = re.compile(r"^(.*?:\d+: invalid YAML near [^:]*): ")
HEAD = "page: p\nchecked: 2026-01-01\nclaims:\n  - id: a\n    claim: c\n    cited: x\n"
# A claim whose lines below it give its quote: one with a source (`cited` gives none).
SOURCED = HEAD.replace("cited: x", "source: https://example.org/x")

Result = list[Claim] | list[str]


def ours(files: list[tuple[str, str]], *, today: dt.date) -> list[Claim]:
    """The claims the parser reads from `files`, with the YAML reader every run uses."""
    return parse_claims(files, today=today, read=read_document)


def read(parse: object, files: list[tuple[str, str]]) -> Result:
    """The claims `parse` reads from `files`, or its problems."""
    assert callable(parse)
    with warnings.catch_warnings():  # ruamel warns of `1e3` under `%YAML 1.1`
        warnings.simplefilter("ignore")
        try:
            claims: list[Claim] = parse(files, today=TODAY)
        except ClaimFileError as error:
            return error.problems
    return claims


def comparable(result: Result) -> Result:
    """The result with each syntax error cut to its file, line and field."""
    return [
        (m.group(1) if isinstance(p, str) and (m := SYNTAX.match(p)) else p)  # type: ignore[misc]
        for p in result
    ]


def both(files: list[tuple[str, str]]) -> tuple[Result, Result]:
    return read(ruamel_claims.parse_claims, files), read(ours, files)


# What the parser reports that the old reader never reached: it stopped at a file's first
# kind of problem, where the parser checks every claim of a file whose fields break the
# schema for what the schema leaves to it, and counts every id for duplicates.
FURTHER = re.compile(
    r"^.*?:\d+: claim .*?: (?:id: duplicate id, first defined at .*"
    r"|source: give a source URL, or `cited` when it has none yet"
    r"|quote: a claim with a source needs a quote"
    r"|quote: quote_end, prefix and suffix need a quote"
    r"|quote: the source URL already carries a text fragment; give the quote once"
    r"|source: (?:the text fragment's |text directive |a text fragment|'.*' has ).*)$"
)
# What the parser refuses that the old reader read: rules made since it was frozen. A
# claim with `cited` gives no source and nothing about one; a URL carries no password.
NEWER = re.compile(
    r"^.*?:\d+: claim .*?: (?:cited: `cited` is for a claim without a source; this one has "
    r"`source`"
    r"|\w+: a claim with `cited` names no source, so no `\w+`: .*"
    r"|(?:sources\[\d+\]\.)?(?:source|cited): carries a user name or password "
    r"\(\w+://\*\*\*@[^)]*\): .*)$"
)


def newer_only(problems: Result) -> bool:
    """Whether every one of `problems` is one of a rule the old reader never had."""
    return bool(problems) and all(isinstance(p, str) and NEWER.match(p) for p in problems)


def assert_reads_as_before(files: list[tuple[str, str]]) -> Result:
    """The same claims; or every problem the old reader found, and only further ones more.

    Problems come sorted by file and line now, so they are compared as collections.
    """
    old, new = both(files)
    if not old or isinstance(old[0], Claim):
        if not newer_only(new):
            assert comparable(new) == comparable(old)
        return new
    assert new, "the new reader found no problem where the old one did"
    assert all(isinstance(p, str) for p in new), new
    left = list(comparable(new))
    for problem in comparable(old):
        assert problem in left, (problem, new)
        left.remove(problem)
    assert [p for p in left if not FURTHER.match(str(p)) and not NEWER.match(str(p))] == [], (
        old,
        new,
    )
    return new


def test_the_parser_reports_more_than_the_old_reader_only_of_the_kinds_it_never_reached() -> None:
    text = HEAD.replace("checked: 2026-01-01", "checked: never") + (
        "  - id: a\n    claim: c\n    cited: x\n  - id: b\n    claim: c\n"
    )
    old, _ = both([("p.yaml", text)])

    assert old == ["p.yaml:2: checked: must be a date (YYYY-MM-DD), not 'never'"]
    assert assert_reads_as_before([("p.yaml", text)]) == [
        *old,
        "p.yaml:7: claim 'a': id: duplicate id, first defined at p.yaml:4",
        "p.yaml:10: claim 'b': source: give a source URL, or `cited` when it has none yet",
    ]
    assert not FURTHER.match(old[0])


# -- every claim file the repository carries ---------------------------------------------


def claim_files() -> list[Path]:
    found = [
        *sorted((paths.ROOT / "claims").glob("*.yaml")),
        *sorted(paths.DATA.rglob("*.yaml")),
        *sorted(paths.DATA.rglob("*.yml")),
        paths.ROOT / "src" / "claimcheck" / "nightly" / "templates" / "example.yaml",
    ]
    assert len(found) > 100
    return found


def text_of(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:  # refused before parsing (`not-utf8.yaml`)
        return None
    return text.replace("$today", "2026-10-20")  # the template's placeholder


@pytest.mark.parametrize("path", claim_files(), ids=lambda p: p.relative_to(paths.ROOT).as_posix())
def test_every_claim_file_of_the_repository_reads_as_before(path: Path) -> None:
    text = text_of(path)
    if text is None:  # refused before parsing: neither reader is ever given it
        with pytest.raises(UnicodeDecodeError):
            path.read_bytes().decode("utf-8")
        return
    name = path.relative_to(paths.ROOT).as_posix()
    assert_reads_as_before([(name, text)])


def test_the_real_claim_files_read_the_same_claims() -> None:
    files = [(p.name, p.read_text(encoding="utf-8")) for p in sorted(paths.ROOT.glob("claims/*"))]
    new = assert_reads_as_before(files)
    assert len(new) > 50
    assert all(isinstance(claim, Claim) for claim in new)


# -- the quotes of the judge's golden cases, written as JSON and as YAML writes them ------


def case_claims(style: str) -> str:
    lines = ["page: cases", "checked: 2026-10-20", "claims:"]
    for number, case in enumerate(sorted((paths.ROOT / "tests" / "cases").glob("*/case.toml"))):
        fields = tomllib.loads(case.read_text(encoding="utf-8"))
        lines += [f"  - id: case-{number}", f"    claim: {json.dumps(fields['description'])}"]
        lines.append("    source: https://example.org/readme")
        for key in ("quote", "quote_end", "prefix", "suffix"):
            if key in fields:
                value = fields[key]
                # JSON escapes what is outside the BMP as a surrogate pair (`"\ud83d\udea7"`)
                quoted = "'" + value.replace("'", "''") + "'"
                written = json.dumps(value) if style == "json" else quoted
                lines.append(f"    {key}: {written}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("style", ["json", "single-quoted"])
def test_the_golden_case_quotes_read_as_before(style: str) -> None:
    new = assert_reads_as_before([("cases.yaml", case_claims(style))])
    assert len(new) >= 50
    assert all(isinstance(claim, Claim) and claim.anchor for claim in new)


# -- the benchmark's claim files ---------------------------------------------------------


def bench_module() -> ModuleType:
    path = paths.ROOT / "bench" / "bench_read_claims.py"
    spec = importlib.util.spec_from_file_location("bench_read_claims", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("seed", [7, 8])
def test_the_benchmark_files_read_as_before(seed: int) -> None:
    files = bench_module().build_files(count=400, per_file=200, seed=seed)
    new = assert_reads_as_before(files)
    assert len(new) == 400


# -- YAML 1.1 and 1.2 traps: the values are ruamel's YAML 1.2 ones -----------------------

TEXT_TRAPS = {
    # YAML 1.1 (PyYAML's constructor) would read these as booleans, octal, sexagesimal
    "claim: yes": "yes",
    "claim: no": "no",
    "claim: on": "on",
    "claim: Off": "Off",
    "claim: y": "y",
    "claim: N": "N",
    "claim: 1:20": "1:20",
    "claim: 190:20:30": "190:20:30",
    "claim: 2026-10-20": "2026-10-20",  # a date is text until pydantic reads a date
    "claim: 0o1_0x": "0o1_0x",
    "claim: .5.": ".5.",
    "claim: '010'": "010",
    'claim: "yes"': "yes",
    "claim: =x": "=x",
    "claim: <<x": "<<x",
}


@pytest.mark.parametrize("line", list(TEXT_TRAPS))
def test_a_yaml_11_value_is_text_as_in_yaml_12(line: str) -> None:
    text = HEAD.replace("claim: c", line)
    new = assert_reads_as_before([("p.yaml", text)])
    assert isinstance(new[0], Claim)
    assert new[0].claim == TEXT_TRAPS[line]


@pytest.mark.parametrize(
    "line",
    [
        "id: no",
        "id: yes",
        "id: off",
        "id: n",
        "id: 1_000",
        "id: 0x1F",
        "id: 0o17",
        "id: 0b101",
        "id: 1:20",
    ],
)
def test_an_id_reads_as_before(line: str) -> None:
    new = assert_reads_as_before([("p.yaml", HEAD.replace("id: a", line))])
    if line in ("id: no", "id: yes", "id: off", "id: n"):
        assert isinstance(new[0], Claim)
        assert new[0].id == line.removeprefix("id: ")


NOT_TEXT = [
    "010",  # ten in YAML 1.2, eight in 1.1
    "0o10",
    "1_000",
    "0x1F",
    "0b11",
    "+12",
    "1e3",
    "1.50",
    ".5",
    "-.inf",
    ".NaN",
    "~",
    "null",
    "",
    "true",
    "FALSE",
    "<<",
    "=",
    "[a]",
    "{a: b}",
    "._",  # ruamel's float() fails: reported with its words
    "0x_",  # ruamel failed with an IndexError; now int()'s words
    "-_",
]


@pytest.mark.parametrize("value", NOT_TEXT)
def test_a_value_that_is_not_text_reads_as_before(value: str) -> None:
    text = HEAD.replace("claim: c", f"claim: {value}")
    if value in ("0x_", "-_"):  # the old reader crashed here: now a problem on file:1
        new = read(ours, [("p.yaml", text)])
        assert len(new) == 1
        assert isinstance(new[0], str)
        assert new[0].startswith("p.yaml:1: file: invalid YAML: ValueError: invalid literal")
        return
    new = assert_reads_as_before([("p.yaml", text)])
    assert all(isinstance(p, str) for p in new), new


DATES = [
    "2026-10-20",
    "2026-1-2",
    "2026-13-45",
    "2026-10-20T10:00:00",
    "2026-10-20 10:00:00 -5",
    "2026-10-20t00:00:00Z",
    "20261020",
    "yes",
    "1",
    "1.5",
    "true",
    ".inf",
    "'2026-10-20'",
    "2999-01-01",
    "[2026-10-20]",
]


@pytest.mark.parametrize("value", DATES)
def test_a_check_date_reads_as_before(value: str) -> None:
    text = HEAD.replace("cited: x\n", f"cited: x\n    checked: {value}\n")
    new = assert_reads_as_before([("p.yaml", text)])
    if value in ("2026-10-20", "'2026-10-20'"):
        assert isinstance(new[0], Claim)
        assert new[0].checked == dt.date(2026, 10, 20)


@pytest.mark.parametrize(
    "version", ["%YAML 1.1\n---\n", "%YAML 1.2\n---\n", "%YAML 1.1\n%TAG !e! tag:e.org:\n---\n"]
)
@pytest.mark.parametrize("value", ["yes", "010", "1:20", "1e3", "0o10", "on", "2026-10-20"])
def test_a_yaml_version_directive_reads_as_before(version: str, value: str) -> None:
    """ruamel read by YAML 1.1 rules under `%YAML 1.1`: `yes` is no text there."""
    assert_reads_as_before([("p.yaml", version + HEAD.replace("claim: c", f"claim: {value}"))])


STRUCTURE = [
    "    quote_end: e\n    quote_end: f\n",  # a duplicate key
    "    1: a\n    true: b\n",  # 1 and True are one key, as in ruamel
    "    .nan: a\n    .NaN: b\n",  # one NaN object: one key
    "    claim: [c]\n",
    "    <<: {quote: q, source: 'https://e.org/x'}\n",
    "    <<: [{quote: q}, {source: 'https://e.org/x', quote: r}]\n",
    "    <<: {cited: y}\n",  # the mapping's own key wins
    "    <<: x\n",
    "    <<: [x]\n",
    "    <<: {}\n    <<: {}\n",
    "    <<: []\n    <<: {}\n",
    "    '<<': x\n",
    "    ? [a, b]\n    : x\n",
    "    ? {a: b}\n    : x\n",
    "    ? [[a]]\n    : x\n",
    "    ~: x\n",
    "    =: x\n",
    "    0x1F: x\n",
    "    1.50: x\n",
    "    colour: red\n",
    "    checked: 2026-02-02\n    checked: 2026-02-03\n",
]


@pytest.mark.parametrize("lines", STRUCTURE)
def test_keys_merges_and_duplicates_read_as_before(lines: str) -> None:
    assert_reads_as_before([("p.yaml", HEAD + lines)])


REFUSED = [
    "    quote: &a x\n",
    "    quote: *a\n",
    "    claim: *Fast* inference\n",  # ruamel's alias names are wider than libyaml's
    "    quote: &a,b\n",
    "    quote: !!binary eA==\n",
    "    quote: !x y\n",
    "    quote: ! y\n",
    "    quote: !<tag:x> y\n",
    "    ? !!str k\n    : v\n",
    "    x: " + "[" * 30 + "]" * 30 + "\n",
    "    x: " + "[" * 3000 + "\n",  # past libyaml's own limit of 1,000 levels
    "    x: &a [*a]\n",
    "    <<: &a {quote: q}\n",
    "    x: {a: &b c}\n    y: *b\n    z: [colour: x, &c y]\n",
]


@pytest.mark.parametrize("lines", REFUSED)
def test_anchors_aliases_tags_and_nesting_are_refused_as_before(lines: str) -> None:
    new = assert_reads_as_before([("p.yaml", HEAD + lines)])
    assert all(isinstance(p, str) and p.startswith("p.yaml:") for p in new)


ESCAPES = [
    '    quote: "\\ud83d\\udda5 x"\n',  # a JSON writer's pair: one character
    '    quote: "\\U0000d83d\\U0000dda5 x"\n',
    '    quote: "\\ud83d x"\n',  # a lone half: reported
    '    quote: "\\udda5\\ud83d"\n',
    '    quote: "\\\\ud83d"\n',  # an escaped backslash, then text
    "    quote: '\\ud83d\\udda5'\n",  # single quotes: text
    "    quote: \\ud83d\\udda5 x\n",  # plain: text
    '    quote: x # "\\ud83d"\n',  # a comment
    '    quote: |\n      "\\ud83d"\n',  # a block scalar: text
    '    quote: "a \\ud83d\\udda5\\n\\t\\x41 \\u00e9\\/ \\"b\\""\n',
    '    "\\ud83d\\udda5": x\n',  # a key
    '    "\\udda5": x\n',
    '    quote: "\\ud83d\\udda5"\n    prefix: \'\\ud83d\'\n    suffix: "\\x01"\n',
    '    quote: "\\ud83d\\udda5 \\x01"\n',
]


@pytest.mark.parametrize("lines", ESCAPES)
def test_surrogate_escapes_read_as_before(lines: str) -> None:
    assert_reads_as_before([("p.yaml", SOURCED + lines)])


SEPARATORS = [
    "    quote: a\u2028b\n",
    "    quote: a \u2028 b\n",
    "    quote: a\u2029b\n",
    "    quote: a\u2028\n",
    "    quote: \u2028a\n",
    "    quote: \u2028!!binary x\n",  # ruamel skipped it as a line break: a tag
    "    quote: a\u2028#b\n",
    "    quote: '\u2028a \u2028 b'\n",
    '    quote: "a\u2028b"\n    colour: red\n',  # the lines after it are not moved
    "    quote: a\u2028b\n    prefix: 3\n",
]


@pytest.mark.parametrize("lines", SEPARATORS)
def test_line_separators_read_as_before(lines: str) -> None:
    """U+2028 and U+2029 are line breaks to libyaml; ruamel read on, counting no line."""
    assert_reads_as_before([("p.yaml", SOURCED + lines)])


def test_a_literal_next_line_character_is_a_control_character() -> None:
    """U+0085 (NEL): ruamel read a newline; it is a C1 control, refused as its escape is."""
    _, new = both([("p.yaml", HEAD + "    quote: a\x85b\n")])
    assert new == [
        "p.yaml:7: claim 'a': quote: character 2 is the control character U+0085: only tab "
        "and newline may appear"
    ]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "# a comment\n",
        "---\n",
        "x\n",
        "- a\n",
        "\ufeff" + HEAD,
        HEAD + "---\npage: q\n",
        HEAD + "...\n",
        HEAD.replace("\n", "\r\n"),
        HEAD + "    quote: x\x07\n",
        HEAD + '    quote: "MIT\n',
        "%YAML 2.0\n---\n" + HEAD,
    ],
)
def test_odd_files_read_as_before(text: str) -> None:
    assert_reads_as_before([("p.yaml", text)])


# -- any damaged claim file ----------------------------------------------------------------

GOOD = """\
page: p
title: "A page"
checked: 2026-01-01
claims:
  - id: a
    claim: a claim
    source: https://example.com/page#:~:text=a-,quote,-here
  - id: b
    claim: "another \\ud83d\\udda5"
    cited: a book
    checked: 2026-02-02
"""
BITS = st.sampled_from(
    [
        "&a ", "*a", "!!binary ", "!x ", "<<: ", "? ", "- ", ": ", "[", "]", "{", "}", ",",
        "\n", "\n  ", "\n    ", '"', "'", "\\", "\\ud800", "\\ud83d\\udda5", "#", "|", ">",
        "---", "...", "%", "@", "`", "\x00", "\u200b", "\ufeff", "yes", "no", "010", "0o10",
        "1:20", "1_000", ".nan", "~", "=", "%YAML 1.1\n---\n", "2026-01-01", "é", "한",
        "\U0001f5a5", " ", "quote", "checked",
    ]
)  # fmt: skip
# Tabs, NEL and the line separators aside: libyaml and ruamel place them differently.
PLAIN = st.characters(blacklist_characters="\t\r\x85\u2028\u2029", blacklist_categories=("Cs",))
NOISE = st.lists(st.one_of(BITS, st.text(PLAIN, max_size=3)), max_size=10).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position=st.integers(0, len(GOOD)), cut=st.integers(0, 8), noise=NOISE)
@example(position=0, cut=0, noise="")
def test_a_damaged_claim_file_reads_as_before(position: int, cut: int, noise: str) -> None:
    """What the old reader read, the new one reads the same; what it refused, is refused.

    The two parsers may name a different line for a syntax error, and the old one
    crashed on a few numbers (`0x_`): only that both refuse is asserted then.
    """
    text = GOOD[:position] + noise + GOOD[position + cut :]
    files = [("p.yaml", text)]
    new = read(ours, files)
    try:
        old = read(ruamel_claims.parse_claims, files)
    except IndexError:  # ruamel's int constructor on `0x_`, `-_`
        assert all(isinstance(p, str) for p in new)
        return
    old_ok = all(isinstance(c, Claim) for c in old) if old else True
    new_ok = all(isinstance(c, Claim) for c in new) if new else True
    if old_ok and newer_only(new):  # `@` in a URL's host, `quote` beside `cited`, ...
        return
    assert old_ok == new_ok, (old, new)
    if old_ok:
        assert new == old
    else:
        assert all(isinstance(p, str) and p.startswith("p.yaml:") for p in new)


# -- the reader is pure, and leaves the collector as it found it ----------------------------


def test_the_yaml_reader_is_held_to_the_house_rule() -> None:
    from test_house_rules import violations

    path = paths.ROOT / "src" / "claimcheck" / "claims" / "yaml_read.py"
    assert list(violations(path.read_text(encoding="utf-8"), "claims/yaml_read.py")) == []


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("text", [HEAD, HEAD + "    colour: red\n"])
def test_reading_leaves_the_garbage_collector_as_it_was(enabled: bool, text: str) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        with contextlib.suppress(ClaimFileError):
            parse_claims([("p.yaml", text)], today=TODAY, read=read_document)
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_many_problems_of_one_file_read_as_before() -> None:
    keys = "".join(f"    k{n}: v\n    {n}: w\n" for n in range(100))
    new = assert_reads_as_before([("p.yaml", HEAD + keys + "    '1': x\n")])
    assert len(new) == 200  # `1:` and `'1':` are one key to pydantic
