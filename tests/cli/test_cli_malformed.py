"""Hostile and malformed claim and config files, one file per case, through the real CLI.

Each file in `tests/data/malformed/` starts with `# expect: LINE FIELD`: the line and the
field its error must name. Every case, through `verify` (online), `lint`, `list` and
`show`, must exit 2 with `file:LINE:` and the field on one line of stderr (lint: of its
findings on stdout), within five
seconds, without a traceback, without a request and without writing anything. Adding a
case means adding a file.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from claimcheck.claims.parse import MAX_FILE_BYTES
from claimcheck.cli.app import app
from support import paths
from support.claim_files import REPRODUCTION_A, REPRODUCTION_B

CASES = paths.ROOT / "tests" / "data" / "malformed"
CLAIM_CASES = sorted((CASES / "claims").glob("*.yaml"))
CONFIG_CASES = sorted((CASES / "config").glob("*.toml"))
COMMANDS = ["verify", "lint", "list", "show"]
SECONDS = 5.0
# A valid claim with a real source: a run that got past the input would fetch it.
GOOD = """\
page: good
checked: 2026-01-01
claims:
  - id: a
    claim: a claim
    source: https://example.com/page
    quote: a quote of some words
"""
CLAIMCHECK = Path(sys.executable).parent / "claimcheck"

runner = CliRunner()


def expectation(case: Path) -> tuple[int, str]:
    """The `# expect: LINE FIELD` of a case file."""
    first = case.read_bytes().split(b"\n", 1)[0].decode("utf-8")
    assert first.startswith("# expect: "), f"{case.name}: no expect line"
    line, _, field = first.removeprefix("# expect: ").partition(" ")
    return int(line), field.strip()


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path under root with its bytes (None for a folder): what a run may not change."""
    return {
        p.relative_to(root).as_posix(): (None if p.is_dir() else p.read_bytes())
        for p in sorted(root.rglob("*"))
    }


@pytest.fixture
def requests(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every HTTP request the run tries to send (refused)."""
    sent: list[str] = []

    async def refuse_async(self: Any, request: httpx.Request, **_: Any) -> httpx.Response:
        sent.append(str(request.url))
        raise httpx.ConnectError("no request may be sent for a malformed input")

    def refuse(self: Any, request: httpx.Request, **_: Any) -> httpx.Response:
        sent.append(str(request.url))
        raise httpx.ConnectError("no request may be sent for a malformed input")

    monkeypatch.setattr(httpx.AsyncClient, "send", refuse_async)
    monkeypatch.setattr(httpx.Client, "send", refuse)
    return sent


def arguments(command: str, files: list[str]) -> list[str]:
    options = ["--config", "claimcheck.toml"]
    if command != "list":
        options += ["--snapshots", "snapshots"]
    if command == "verify":
        options.append("--no-progress")
    head = [command, "a"] if command == "show" else [command]
    return [*head, *files, *options]


def run_case(command: str, files: list[str]) -> tuple[int, str, float]:
    start = time.perf_counter()
    result = runner.invoke(app, arguments(command, files))
    took = time.perf_counter() - start
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{type(result.exception).__name__}: {result.exception}"
    )
    assert "Traceback" not in result.stdout + result.stderr
    # lint reports a claim file's problems as findings, one a line on stdout
    shown = result.stdout + result.stderr if command == "lint" else result.stderr
    return result.exit_code, shown, took


def assert_names(stderr: str, name: str, line: int, field: str) -> None:
    where = f"{name}:{line}:"
    hits = [row for row in stderr.splitlines() if where in row]
    assert hits, f"no {where!r} in stderr:\n{stderr}"
    assert any(field in row.split(where, 1)[1] for row in hits), f"no {field!r} in {hits}"


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", CLAIM_CASES, ids=lambda p: p.stem)
def test_a_malformed_claim_file_is_bad_input(
    case: Path,
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    requests: list[str],
) -> None:
    line, field = expectation(case)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claimcheck.toml").write_text("")
    (tmp_path / case.name).write_bytes(case.read_bytes())
    before = tree(tmp_path)

    code, stderr, took = run_case(command, [case.name])

    assert code == 2, stderr
    assert_names(stderr, case.name, line, field)
    assert requests == []
    assert tree(tmp_path) == before
    assert took < SECONDS


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", CONFIG_CASES, ids=lambda p: p.stem)
def test_a_malformed_config_file_is_bad_input(
    case: Path,
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    requests: list[str],
) -> None:
    line, field = expectation(case)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "good.yaml").write_text(GOOD)
    (tmp_path / "claimcheck.toml").write_bytes(case.read_bytes())
    before = tree(tmp_path)

    code, stderr, took = run_case(command, [])

    assert code == 2, stderr
    assert_names(stderr, "claimcheck.toml", line, field)
    assert requests == []
    assert tree(tmp_path) == before
    assert took < SECONDS


def test_there_are_enough_cases() -> None:
    assert len(CLAIM_CASES) + len(CONFIG_CASES) >= 60


def big_claim_file(size: int) -> str:
    """A valid-looking claim file of about `size` bytes, broken at its very end."""
    item = (
        "  - id: c{0}\n    claim: claim {0}\n    source: https://example.com/{0}\n"
        "    quote: q {0}\n"
    )
    parts, total, number = ["page: p\nchecked: 2026-01-01\nclaims:\n"], 0, 0
    while total < size:
        parts.append(item.format(number))
        total += len(parts[-1])
        number += 1
    return "".join(parts) + "broken: [\n"


@pytest.mark.parametrize("command", COMMANDS)
def test_a_claim_file_over_the_size_limit_fails_at_once(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, requests: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claimcheck.toml").write_text("")
    (tmp_path / "big.yaml").write_text(big_claim_file(20_000_000))

    code, stderr, took = run_case(command, ["big.yaml"])

    assert code == 2
    assert_names(stderr, "big.yaml", 1, "file")
    assert f"{MAX_FILE_BYTES:,} bytes" in stderr
    assert requests == []
    assert took < SECONDS


def test_a_claim_file_just_under_the_limit_is_read_and_reported_in_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claimcheck.toml").write_text("")
    text = big_claim_file(MAX_FILE_BYTES - 2_000)
    assert len(text.encode()) <= MAX_FILE_BYTES
    (tmp_path / "near.yaml").write_text(text)

    code, stderr, took = run_case("list", ["near.yaml"])

    assert code == 2
    assert "invalid YAML" in stderr
    assert took < SECONDS


FORGED = "x\n::error file=README.md,line=1::forged\n\x1b[2Kpage.yaml"


@pytest.mark.parametrize("command", COMMANDS)
def test_a_file_name_cannot_forge_a_workflow_command(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claimcheck.toml").write_text("")
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / FORGED).write_text(GOOD.replace("example.com/page", "example.com:0/"))

    result = runner.invoke(app, arguments(command, ["claims"]))

    assert result.exit_code == 2
    for stream in (result.stdout, result.stderr):
        assert not any(row.startswith("::") for row in stream.splitlines()), stream
        assert "\x1b" not in stream
    shown = result.stdout + result.stderr  # lint's findings are on stdout
    assert "::error file=README.md,line=1::forged" in shown  # shown, but not a line of its own


def test_a_bad_environment_url_names_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claimcheck.toml").write_text("")
    (tmp_path / "good.yaml").write_text(GOOD)
    monkeypatch.setenv("GITHUB_API_URL", "http://[::1")

    code, stderr, _ = run_case("list", ["good.yaml"])

    assert code == 2
    assert "GITHUB_API_URL (environment)" in stderr


def limited(megabytes: int) -> Any:
    def limit() -> None:
        size = megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    return limit


@pytest.mark.skipif(not CLAIMCHECK.exists(), reason="the claimcheck script is not installed")
@pytest.mark.parametrize(
    "case",
    ["claims/alias-bomb.yaml", "claims/nested-flow-5000.yaml", "claims/port-99999.yaml"],
)
def test_the_installed_command_refuses_within_500_mb(case: str, tmp_path: Path) -> None:
    source = CASES / case
    (tmp_path / "claimcheck.toml").write_text("")
    (tmp_path / source.name).write_bytes(source.read_bytes())
    line, field = expectation(source)
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_TOKEN"}

    start = time.perf_counter()
    done = subprocess.run(
        [str(CLAIMCHECK), "verify", "--offline", source.name],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limited(500),
        check=False,
    )

    assert done.returncode == 2, done.stderr
    assert_names(done.stderr, source.name, line, field)
    assert "Traceback" not in done.stderr
    assert time.perf_counter() - start < SECONDS * 2  # interpreter start-up included


@pytest.mark.skipif(not CLAIMCHECK.exists(), reason="the claimcheck script is not installed")
def test_the_installed_command_refuses_a_20_mb_file_within_500_mb(tmp_path: Path) -> None:
    (tmp_path / "claimcheck.toml").write_text("")
    (tmp_path / "big.yaml").write_text(big_claim_file(20_000_000))

    start = time.perf_counter()
    done = subprocess.run(
        [str(CLAIMCHECK), "lint", "big.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limited(500),
        check=False,
    )

    assert done.returncode == 2, done.stderr
    assert "big.yaml:1: error: file: 20,0" in done.stdout
    assert time.perf_counter() - start < SECONDS * 2


# -- every problem of every kind, in one run ----------------------------------------------

# The reproduction of the issue: a duplicate id and a claim without source used to stay
# hidden until the other errors were fixed.
# file, line, claim, field and words of each problem, in the order they are listed
ISSUE_PROBLEMS = [
    ("claims/a.yaml", 9, "one", "id", "duplicate id, first defined at claims/a.yaml:4"),
    ("claims/a.yaml", 14, "two", "source", "give a source URL, or `cited` when it has none yet"),
    ("claims/a.yaml", 20, "three", "checked", "must be a date (YYYY-MM-DD), not 20240101"),
    ("claims/b.yaml", 5, "four", "source", "must be an http(s) URL with a host"),
    ("claims/b.yaml", 6, "four", "quote", "must not be empty or whitespace only"),
]


@pytest.fixture
def issue_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "a.yaml").write_text(REPRODUCTION_A)
    (tmp_path / "claims" / "b.yaml").write_text(REPRODUCTION_B)
    return tmp_path


def test_verify_lists_every_problem_of_every_file_at_once(
    issue_project: Path, requests: list[str]
) -> None:
    result = runner.invoke(app, ["verify", "--offline"])

    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.splitlines()
    assert lines[0].startswith("error: ")
    assert [line.removeprefix("error: ") for line in lines[:-1]] == [
        f"{file}:{line}: claim {claim!r}: {field}: {words}"
        for file, line, claim, field, words in ISSUE_PROBLEMS
    ]
    assert lines[-1].startswith("hint: ")
    assert "Value error" not in result.stderr
    assert requests == []


def test_lint_shows_the_same_problems_as_verify(issue_project: Path) -> None:
    result = runner.invoke(app, ["lint"])

    assert result.exit_code == 2
    assert result.stdout.splitlines() == [
        f"{file}:{line}: error: claim {claim!r}: {field}: {words} "
        f"[{'duplicate-id' if field == 'id' else 'schema'}]"
        for file, line, claim, field, words in ISSUE_PROBLEMS
    ]


@pytest.mark.skipif(not CLAIMCHECK.exists(), reason="the claimcheck script is not installed")
def test_the_installed_command_lists_every_problem_without_a_traceback(
    issue_project: Path,
) -> None:
    done = subprocess.run(
        [str(CLAIMCHECK), "verify", "--offline"],
        cwd=issue_project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    for file, line, claim, field, words in ISSUE_PROBLEMS:
        assert f"{file}:{line}: claim {claim!r}: {field}: {words}" in done.stderr


# -- `cited` stands instead of a source ---------------------------------------------------

CITED_WITH_A_SOURCE = """\
page: p
checked: 2026-01-01
claims:
  - id: both
    claim: c
    source: https://example.org/a
    quote: a quote
    cited: a talk
  - id: quoted
    claim: c
    cited: a talk
    quote: a quote the claim would ignore
    quote_end: an end
    prefix: before
    suffix: after
  - id: scoped
    claim: c
    cited: a talk
    scope: main
    render: browser
    absent: multi-tenant
  - id: several
    claim: c
    cited: a talk
    sources:
      - source: https://example.org/a
        quote: a quote
      - source: https://example.org/b
        quote: a quote
  - id: talk
    claim: c
    cited: a talk
    source: ~
"""


def without_cited(key: str) -> str:
    return (
        f"{key}: a claim with `cited` names no source, so no `{key}`: give `source` instead of"
        f" `cited`, or leave `{key}` out"
    )


def refused_lines(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, claim_file: str
) -> tuple[str, list[str]]:
    """Run `command` on one claim file in a project of its own; it must exit 2 and write
    nothing. What it showed, and its problems as `p.yaml:LINE: claim 'ID': KEY: ...`
    whichever command said them (lint writes `p.yaml:8: error: ... [schema]`)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claimcheck.toml").write_text("")
    (tmp_path / "p.yaml").write_text(claim_file)
    before = tree(tmp_path)
    code, shown, _ = run_case(command, ["p.yaml"])
    assert code == 2, shown
    assert tree(tmp_path) == before
    found = [line.removeprefix("error: ") for line in shown.splitlines() if "p.yaml:" in line]
    if command == "lint":
        found = [line.replace(": error: ", ": ").removesuffix(" [schema]") for line in found]
    return shown, found


@pytest.mark.parametrize("command", COMMANDS)
def test_cited_comes_instead_of_a_source_and_of_all_that_is_said_of_one(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, requests: list[str]
) -> None:
    """A quote beside `cited` was ignored without a word, a source beside it took over:
    each key is named at its line, as `source` beside `sources` is; `~` is no value."""
    _, found = refused_lines(command, tmp_path, monkeypatch, CITED_WITH_A_SOURCE)
    cited = "cited: `cited` is for a claim without a source; this one has `source`"
    assert found == [
        f"p.yaml:8: claim 'both': {cited}",
        f"p.yaml:12: claim 'quoted': {without_cited('quote')}",
        f"p.yaml:13: claim 'quoted': {without_cited('quote_end')}",
        f"p.yaml:14: claim 'quoted': {without_cited('prefix')}",
        f"p.yaml:15: claim 'quoted': {without_cited('suffix')}",
        f"p.yaml:19: claim 'scoped': {without_cited('scope')}",
        f"p.yaml:20: claim 'scoped': {without_cited('render')}",
        f"p.yaml:21: claim 'scoped': {without_cited('absent')}",
        "p.yaml:24: claim 'several': cited: `cited` is for a claim without a source; this one "
        "has `sources`",
    ]
    assert requests == []


# -- a URL in a claim file carries no credentials ----------------------------------------

PASSWORD = "s3cret"
WITH_CREDENTIALS = f"""\
page: p
checked: 2026-01-01
claims:
  - id: password
    claim: c
    source: http://alice:{PASSWORD}@127.0.0.1:8801/page/cred
    quote: a quote
  - id: user-name
    claim: c
    source: https://alice@example.org/page#:~:text=a%20quote
  - id: part
    claim: c
    sources:
      - source: https://example.org/a
        quote: a quote
      - source: https://bob:{PASSWORD}@example.org/b
        quote: a quote
  - id: talk
    claim: c
    cited: the slides at https://bob:{PASSWORD}@talks.example.org/deck
  - id: at-in-the-path
    claim: c
    source: https://example.org/@alice/post
    quote: a quote
"""
NEVER_SENT = (
    "claimcheck never sends credentials written in a claim file, as every report and "
    "snapshot would publish them; write the URL without them, and give a forge's token in "
    "the environment (GITHUB_TOKEN, HF_TOKEN, GITLAB_TOKEN, FORGEJO_TOKEN)"
)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_url_with_a_user_name_or_password_is_refused_and_never_shown(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, requests: list[str]
) -> None:
    """The password went into the table, every report, the state, the cache and the
    snapshot's index (committed): now the claim file is refused, the URL shown without it."""
    shown, found = refused_lines(command, tmp_path, monkeypatch, WITH_CREDENTIALS)
    assert PASSWORD not in shown
    carries = "carries a user name or password"
    assert found == [
        f"p.yaml:6: claim 'password': source: {carries} (http://***@127.0.0.1:8801): {NEVER_SENT}",
        f"p.yaml:10: claim 'user-name': source: {carries} (https://***@example.org): {NEVER_SENT}",
        f"p.yaml:16: claim 'part': sources[2].source: {carries} (https://***@example.org): "
        f"{NEVER_SENT}",
        f"p.yaml:20: claim 'talk': cited: {carries} (https://***@talks.example.org): {NEVER_SENT}",
    ]
    assert requests == []


# -- a byte that is not UTF-8, where an editor shows it -----------------------------------

# CRLF line ends and characters of several bytes before the byte: the line and column an
# editor shows are 7 and 22, however the file's bytes count.
NOT_UTF8_CLAIMS = (
    "page: p\r\nchecked: 2026-01-01\r\nclaims:\r\n  - id: a\r\n    claim: a café claim\r\n"
    "    source: https://example.com/page\r\n    quote: «café» caf"
).encode() + b"\xe9 au lait\r\n"
NOT_UTF8 = "column 22 is byte 0xE9, which is not UTF-8: save the file as UTF-8"


@pytest.mark.parametrize("command", COMMANDS)
def test_a_byte_that_is_not_utf8_is_named_at_its_line_and_column(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, requests: list[str]
) -> None:
    """It was reported at line 1 with its offset in bytes (`position 129`)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claimcheck.toml").write_text("")
    (tmp_path / "p.yaml").write_bytes(NOT_UTF8_CLAIMS)

    code, shown, _ = run_case(command, ["p.yaml"])

    assert code == 2, shown
    found = [line for line in shown.splitlines() if "p.yaml:" in line]
    assert [line.replace(": error: ", ": ").removesuffix(" [schema]") for line in found] == [
        f"{'' if command == 'lint' else 'error: '}p.yaml:7: quote: {NOT_UTF8}"
    ]
    assert requests == []


def test_a_byte_that_is_not_utf8_in_an_article_is_named_at_its_line_and_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claimcheck.toml").write_text("")
    (tmp_path / "post.md").write_bytes("# Post\n\nÀ «café» caf".encode() + b"\xe9\n")

    code, shown, _ = run_case("list", ["post.md"])

    assert code == 2, shown
    assert shown.splitlines()[0] == (
        "error: post.md:3: file: column 13 is byte 0xE9, which is not UTF-8: save the file as UTF-8"
    )


def test_a_byte_that_is_not_utf8_in_the_config_is_named_at_its_line_column_and_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "good.yaml").write_text(GOOD)
    (tmp_path / "claimcheck.toml").write_bytes(
        '# «settings»\r\nclaims = ["claims"]\r\n\r\n[fetch]\r\nuser_agent = "«x» caf'.encode()
        + b'\xe9"\r\n'
    )

    code, shown, _ = run_case("list", [])

    assert code == 2, shown
    assert shown.splitlines()[0] == (
        "error: claimcheck.toml:5: fetch.user_agent: column 22 is byte 0xE9, which is not "
        "UTF-8: save the file as UTF-8"
    )
