"""For scripts and editors, end to end through the real CLI: `list`, `show` and `lint` with
`--format json`, "did you mean" for an unknown claim id or claim-file key, the shell's
completion of claim ids, all offline on real claim files, a stored snapshot and a
remembered state."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

from claimcheck.cli.selection import did_you_mean
from claimcheck.models import Verdict
from claimcheck.store.state import ClaimState, RunState, save_state
from support import stored_readme
from support.cli_runs import run, show

QUOTE = "Supports 2-bit, 4-bit and 8-bit integer quantization out of the box"
README = f"# r\n\n{QUOTE}.\n\nRuns on CUDA and Metal GPUs.\n\nRuns on CUDA and Metal GPUs.\n"
WHEN = dt.datetime(2026, 11, 1, 3, tzinfo=dt.UTC)
SNAPSHOT = "github.com/o/r/README/2026-10-20T120000Z-"
"""How the stored README's file starts, from the snapshots folder (key, fetch time)."""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two pages of claims (one claim on two sources), a stored README and two verdicts."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    stored_readme.store_readme(tmp_path / "snapshots", README)
    claims = tmp_path / "claims"
    claims.mkdir()
    (claims / "a.yaml").write_text(
        "page: guide-a\nchecked: 2026-10-20\nclaims:\n"
        "  - id: quant\n    claim: It quantizes to 2, 4 or 8 bits.\n"
        "    source: https://github.com/o/r\n"
        f"    quote: {QUOTE}\n    prefix: r\n"
        "  - id: cited\n    claim: Caf\u00e9 talk said so.\n    cited: a talk\n"
        "    checked: 2026-09-01\n",
        encoding="utf-8",
    )
    (claims / "b.yaml").write_text(
        "page: b\nchecked: 2026-10-20\nclaims:\n"
        "  - id: both\n    claim: Two say it.\n    sources:\n"
        "      - source: https://github.com/o/r\n        quote: Runs on CUDA and Metal GPUs\n"
        "      - source: https://example.org/x\n        absent: [Windows]\n",
        encoding="utf-8",
    )
    save_state(
        tmp_path / "snapshots",
        RunState(
            last_run=WHEN,
            claims={
                "quant": ClaimState(
                    verdict=Verdict.DRIFTED, reason="the quote changed", since=WHEN
                ),
                "cited": ClaimState(
                    verdict=Verdict.UNVERIFIED, reason="citation \x1b[31mneeded", since=WHEN
                ),
            },
        ),
    )
    return tmp_path


def json_of(result: Result) -> Any:
    """stdout as the one JSON document it must be, after checking the run worked."""
    assert "Traceback" not in result.stderr, show(result)
    return json.loads(result.stdout)


# -- list --format json -------------------------------------------------------------------


def test_list_json_gives_each_claim_with_its_last_verdict_field_by_field(project: Path) -> None:
    result = run("list", "--format", "json")

    assert result.exit_code == 0, show(result)
    assert json_of(result) == {
        "schema_version": 1,
        "claims": [
            {
                "id": "quant",
                "page": "guide-a",
                "file": "claims/a.yaml",
                "line": 4,
                "claim": "It quantizes to 2, 4 or 8 bits.",
                "checked": "2026-10-20",
                "source": "https://github.com/o/r",
                "sources": ["https://github.com/o/r"],
                "cited": None,
                "verdict": "drifted",
                "stale": True,
                "acknowledged": False,
                "since": "2026-11-01T03:00:00+00:00",
                "reason": "the quote changed",
            },
            {
                "id": "cited",
                "page": "guide-a",
                "file": "claims/a.yaml",
                "line": 9,
                "claim": "Caf\u00e9 talk said so.",
                "checked": "2026-09-01",
                "source": None,
                "sources": [],
                "cited": "a talk",
                "verdict": "unverified",
                "stale": False,
                "acknowledged": False,
                "since": "2026-11-01T03:00:00+00:00",
                "reason": "citation \x1b[31mneeded",
            },
            {
                "id": "both",
                "page": "b",
                "file": "claims/b.yaml",
                "line": 4,
                "claim": "Two say it.",
                "checked": "2026-10-20",
                "source": None,  # a claim on several sources: each is in `sources`
                "sources": ["https://github.com/o/r", "https://example.org/x"],
                "cited": None,
                "verdict": None,
                "stale": False,
                "acknowledged": False,
                "since": None,
                "reason": None,
            },
        ],
    }
    assert "3 of 3 claims" in result.stderr


def test_list_json_is_utf8_with_control_characters_escaped_and_keeps_the_filters(
    project: Path,
) -> None:
    result = run("list", "-f", "json", "--verdict", "unverified", "--verdict", "never-judged")

    assert result.exit_code == 0, show(result)
    assert "Caf\u00e9" in result.stdout  # UTF-8 text as it is, not \u escapes
    assert "\x1b" not in result.stdout
    assert "\\u001b" in result.stdout
    assert [c["id"] for c in json_of(result)["claims"]] == ["cited", "both"]
    assert json_of(run("list", "-f", "json", "--page", "nope")) == {
        "schema_version": 1,
        "claims": [],
    }


def test_list_table_stays_the_default(project: Path) -> None:
    result = run("list")

    assert result.exit_code == 0, show(result)
    assert result.stdout.splitlines()[0].split() == [
        "id",
        "page",
        "verdict",
        "since",
        "checked",
        "source",
    ]


def test_a_bad_format_is_a_usage_error(project: Path) -> None:
    for command in (["list"], ["show", "quant"], ["lint"]):
        result = run(*command, "--format", "yaml")
        assert result.exit_code == 2, show(result)
        assert "'yaml' is not one of 'table', 'json'" in result.stderr


# -- show --format json -------------------------------------------------------------------


def test_show_json_gives_every_field_of_a_claim_of_one_source(project: Path) -> None:
    result = run("show", "quant", "-f", "json")

    assert result.exit_code == 0, show(result)
    document = json_of(result)
    snapshot_file = document.pop("snapshot_file")
    baseline_file = document.pop("baseline_file")
    assert document == {
        "schema_version": 1,
        "id": "quant",
        "page": "guide-a",
        "file": "claims/a.yaml",
        "line": 4,
        "claim": "It quantizes to 2, 4 or 8 bits.",
        "checked": "2026-10-20",
        "cited": None,
        "render": None,
        "owner": None,
        "source": "https://github.com/o/r",
        "quote": QUOTE,
        "quote_end": None,
        "prefix": "r",
        "suffix": None,
        "absent": [],
        "scope": None,
        "snapshot": "2026-10-20",
        "snapshot_fetched_at": "2026-10-20T12:00:00+00:00",
        "baseline": "2026-10-20",
        "baseline_origin": "fetch",
        "verdict": "drifted",
        "stale": True,
        "acknowledged": False,
        "since": "2026-11-01T03:00:00+00:00",
        "reason": "the quote changed",
        "parts": [],
        "reviewed": None,
    }
    assert snapshot_file.startswith(SNAPSHOT)
    assert baseline_file == snapshot_file
    assert (project / "snapshots" / snapshot_file).is_file()


def test_show_json_gives_each_part_of_a_claim_on_several_sources(project: Path) -> None:
    document = json_of(run("show", "both", "--format", "json"))

    assert document["source"] is None
    assert document["quote"] is None
    assert document["snapshot"] is None
    assert document["verdict"] is None
    assert document["since"] is None
    first, second = document["parts"]
    assert first["snapshot_file"].startswith(SNAPSHOT)
    assert {k: v for k, v in first.items() if k not in ("snapshot_file", "baseline_file")} == {
        "source": "https://github.com/o/r",
        "quote": "Runs on CUDA and Metal GPUs",
        "quote_end": None,
        "prefix": None,
        "suffix": None,
        "absent": [],
        "scope": None,
        "snapshot": "2026-10-20",
        "snapshot_fetched_at": "2026-10-20T12:00:00+00:00",
        "baseline": "2026-10-20",
        "baseline_origin": "fetch",
    }
    assert second == {
        "source": "https://example.org/x",
        "quote": None,
        "quote_end": None,
        "prefix": None,
        "suffix": None,
        "absent": ["Windows"],
        "scope": None,
        "snapshot": None,
        "snapshot_fetched_at": None,
        "snapshot_file": None,
        "baseline": None,
        "baseline_origin": None,
        "baseline_file": None,
    }


def test_show_json_joins_the_list_json_on_id(project: Path) -> None:
    listed = {c["id"]: c for c in json_of(run("list", "-f", "json"))["claims"]}
    for claim_id, row in listed.items():
        shown = json_of(run("show", claim_id, "-f", "json"))
        for key in ("page", "file", "line", "claim", "checked", "cited", "verdict", "reason"):
            assert shown[key] == row[key], (claim_id, key)


# -- lint --format json -------------------------------------------------------------------


AMBIGUOUS = (
    "the quote occurs 2 times in the latest snapshot (2026-10-20); give a prefix/suffix to "
    "pick one (the first: prefix: 'box.', suffix: '.')"
)


def lint_json(project: Path, text: str) -> tuple[Result, Any]:
    (project / "claims" / "c.yaml").write_text(text, encoding="utf-8")
    result = run("lint", "--format", "json")
    return result, json_of(result)


def test_lint_json_lists_findings_with_file_line_field_severity_and_keeps_exit_1(
    project: Path,
) -> None:
    result, document = lint_json(
        project,
        "page: c\nchecked: 2026-10-20\nclaims:\n"
        "  - id: gone\n    claim: c\n    source: https://github.com/o/r\n"
        "    quote: this sentence is nowhere in the readme at all\n"
        "  - id: gpus\n    claim: c\n    source: https://github.com/o/r\n"
        "    quote: Runs on CUDA and Metal GPUs\n",
    )

    assert result.exit_code == 1, show(result)
    assert document == {
        "schema_version": 1,
        "exit_code": 1,
        "errors": 2,
        "warnings": 2,
        "claims": 5,
        "files": 3,
        "findings": [
            {
                "file": "claims/b.yaml",
                "line": 4,
                "id": "both",
                "field": "quote",
                "rule": "ambiguous-quote",
                "severity": "warning",
                "message": AMBIGUOUS,
            },
            {
                "file": "claims/b.yaml",
                "line": 4,
                "id": "both",
                "field": "source",
                "rule": "no-snapshot",
                "severity": "error",
                "message": "no snapshot of the source is stored: run `claimcheck snapshot` "
                "(or `verify`) once with a network",
            },
            {
                "file": "claims/c.yaml",
                "line": 4,
                "id": "gone",
                "field": "quote",
                "rule": "quote-not-found",
                "severity": "error",
                "message": "the quote is not in the latest snapshot (2026-10-20), nor "
                "anything close to it",
            },
            {
                "file": "claims/c.yaml",
                "line": 8,
                "id": "gpus",
                "field": "quote",
                "rule": "ambiguous-quote",
                "severity": "warning",
                "message": AMBIGUOUS,
            },
        ],
    }
    assert "lint: 2 errors, 2 warnings (5 claims in 3 files)" in result.stderr


def test_lint_json_names_the_field_of_a_schema_problem_and_keeps_exit_2(project: Path) -> None:
    result, document = lint_json(
        project,
        "page: c\nchecked: 2026-10-20\nclaims:\n"
        "  - id: typo\n    claim: c\n    cited: a talk\n    chekced: 2026-10-21\n",
    )

    assert result.exit_code == 2, show(result)
    assert document["exit_code"] == 2
    schema = [f for f in document["findings"] if f["rule"] == "schema"]
    assert schema == [
        {
            "file": "claims/c.yaml",
            "line": 7,
            "id": "typo",
            "field": "chekced",
            "rule": "schema",
            "severity": "error",
            "message": "unknown key; did you mean 'checked'?",
        }
    ]


def test_lint_json_of_a_clean_project_is_an_empty_list(project: Path) -> None:
    (project / "claims" / "b.yaml").unlink()
    result = run("lint", "-f", "json")

    assert result.exit_code == 0, show(result)
    assert json_of(result) == {
        "schema_version": 1,
        "exit_code": 0,
        "errors": 0,
        "warnings": 0,
        "claims": 2,
        "files": 1,
        "findings": [],
    }


# -- did you mean -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["show"],
        ["explain"],
        ["diff"],
        ["blame"],
        ["accept"],
        ["cite", "--offline"],
    ],
    ids=lambda command: command[0],
)
def test_an_unknown_id_names_the_closest_ids(project: Path, command: list[str]) -> None:
    result = run(command[0], "qaunt", *command[1:])

    assert result.exit_code == 2, show(result)
    assert "no claim with id 'qaunt'; did you mean 'quant'?" in result.stderr
    assert "`claimcheck list` shows the claims' ids" in result.stderr


@pytest.mark.parametrize(
    ("given", "known", "said"),
    [
        ("qaunt", ["quant", "cited"], "; did you mean 'quant'?"),
        ("quant", ["quant-a", "quant-b", "x"], "; did you mean 'quant-a' or 'quant-b'?"),
        (
            "page-1",
            ["page-2", "page-3", "page-4", "page-5"],
            "; did you mean 'page-2', 'page-3' or 'page-4'?",
        ),
        ("zzzz", ["quant", "cited"], ""),
        ("", [], ""),
    ],
    ids=["one", "two", "at-most-three", "none-close", "no-claims"],
)
def test_did_you_mean_names_up_to_three_close_ids(given: str, known: list[str], said: str) -> None:
    assert did_you_mean(given, known) == said


def test_an_unknown_id_far_from_every_id_names_none(project: Path) -> None:
    result = run("show", "zzzzzz")

    assert result.exit_code == 2
    assert "no claim with id 'zzzzzz'\n" in result.stderr
    assert "did you mean" not in result.stderr


def test_an_unknown_id_is_shown_escaped(project: Path) -> None:
    result = run("show", "quan\x1b[2Jt")

    assert result.exit_code == 2
    assert "\x1b" not in result.stderr
    assert "'quan\\x1b[2Jt'" in result.stderr
    assert "did you mean 'quant'?" in result.stderr


def test_an_unknown_key_of_a_claim_file_names_the_close_key_on_every_load(project: Path) -> None:
    (project / "claims" / "c.yaml").write_text(
        "page: c\nchecked: 2026-10-20\ntitel: T\nclaims:\n"
        "  - id: typo\n    claim: c\n    source: https://github.com/o/r\n    qoute: x y z\n"
        "  - id: parts\n    claim: c\n    sources:\n"
        "      - source: https://github.com/o/r\n        quote: Runs on CUDA\n"
        "        quote-end: GPUs\n"
        "      - source: https://example.org/x\n        quote: x\n        zzz: 1\n",
        encoding="utf-8",
    )

    for command in (["lint"], ["verify", "--offline"], ["list"]):
        result = run(*command)
        assert result.exit_code == 2, show(result)
        said = result.stdout + result.stderr
        assert "c.yaml:3: " in said
        assert "titel: unknown key; did you mean 'title'?" in said
        assert "claim 'typo': qoute: unknown key; did you mean 'quote'?" in said
        assert "sources[1].quote-end: unknown key; did you mean 'quote_end'?" in said
        assert "sources[2].zzz: unknown key" in said
        assert "zzz: unknown key;" not in said


# -- shell completion ---------------------------------------------------------------------


SCRIPT = [
    sys.executable,
    "-c",
    "import sys; sys.argv[0] = 'claimcheck'\nfrom claimcheck.cli.quick import main\nmain()\n",
]
"""The installed entry point (`claimcheck = claimcheck.cli.quick:main`) under its own
name, which names the variable a shell sets to ask for completions."""


def complete(words: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Ask the installed command line for completions the way bash does: the words so
    far in COMP_WORDS, the index of the one completed in COMP_CWORD."""
    env = {
        **os.environ,
        "_CLAIMCHECK_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1)),
    }
    return subprocess.run(
        SCRIPT,
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def completions(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout.split()


def test_claim_ids_complete_in_the_shell_for_every_command_taking_one(project: Path) -> None:
    assert completions(complete("claimcheck show ", project)) == ["quant", "cited", "both"]
    for command in ("show", "explain", "diff", "blame", "accept", "cite"):
        assert completions(complete(f"claimcheck {command} qu", project)) == ["quant"], command
    assert completions(complete("claimcheck show x", project)) == []


def test_completion_reads_the_config_given_before_the_id(project: Path) -> None:
    (project / "more").mkdir()
    (project / "more" / "m.yaml").write_text(
        "page: m\nchecked: 2026-10-20\nclaims:\n  - id: quick\n    claim: c\n    cited: x\n"
    )
    (project / "other.toml").write_text('claims = ["more"]\n')

    assert completions(complete("claimcheck show q", project)) == ["quant"]
    assert completions(complete("claimcheck show --config other.toml q", project)) == ["quick"]


def test_completion_is_silent_without_a_project_or_with_a_broken_file(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    empty = tmp_path_factory.mktemp("empty")
    assert completions(complete("claimcheck show q", empty)) == []
    (project / "claims" / "bad.yaml").write_text("page: [\n")
    assert completions(complete("claimcheck diff q", project)) == []
