"""A run refused for its input (exit 2) writes nothing: no snapshots folder, no `.cache`,
no lock, no state.

Each kind of bad input, through the real CLI, in a project whose snapshots folder is not
there yet and in one where it is (empty, as a fresh checkout has it): every file and
folder under the project, with its bytes and mode, is the same after the run.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from claimcheck.cli.app import app

runner = CliRunner()
GOOD = """\
page: good
checked: 2026-01-01
claims:
  - id: good-one
    claim: The page says hello
    source: http://127.0.0.1:9/hello
    quote: hello world, said the page
"""
# Each kind of bad input: the files that make it, and the place and words of the error
# it must give (lint says it as a finding, on stdout, with `error:` between them).
BAD: dict[str, tuple[dict[str, str], tuple[str, str]]] = {
    "malformed-yaml": (
        {"claims/bad.yaml": "page: bad\nchecked: 2026-01-01\nclaims:\n  - id: b\n    claim: [x\n"},
        ("claims/bad.yaml:", "invalid YAML"),
    ),
    "claim-without-source": (
        {"claims/bad.yaml": "page: bad\nchecked: 2026-01-01\nclaims:\n  - id: b\n    claim: B\n"},
        ("claims/bad.yaml:4:", "claim 'b': source:"),
    ),
    "bad-config-value": (
        {"claimcheck.toml": '[verdict]\nmax_age_days = "soon"\n'},
        ("claimcheck.toml:2:", "verdict.max_age_days:"),
    ),
    "snapshots-folder-is-the-project": (
        {"claimcheck.toml": 'snapshots = "."\n'},
        ("claimcheck.toml:1:", "snapshots: '.' is the project's folder"),
    ),
    # An article's problem is found after the claim files have been read without one.
    "bad-article-link": (
        {
            "claimcheck.toml": 'claims = ["claims", "article.md"]\n',
            "article.md": "# A\n\nIt says [hello](http://127.0.0.1:9/hello#:~:text=) here.\n",
        },
        ("article.md:3:", "source: text directive"),
    ),
    "id-in-a-claim-file-and-an-article": (
        {
            "claimcheck.toml": 'claims = ["claims", "article.md"]\n',
            "article.md": "---\nchecked: 2026-01-01\n---\n# A\n\n"
            "It says [hello](http://127.0.0.1:9/hello#:~:text=hello%20world)"
            "<!-- claim: good-one --> here.\n",
        },
        ("article.md:6:", "claim 'good-one': id: duplicate id"),
    ),
}
COMMANDS = [["verify"], ["verify", "--offline"], ["snapshot"], ["lint"], ["list"]]


def everything(root: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every file and folder below `root`: its mode and, for a file, its bytes."""
    return {
        p.relative_to(root).as_posix(): (
            p.lstat().st_mode,
            p.read_bytes() if stat.S_ISREG(p.lstat().st_mode) else None,
        )
        for p in sorted(root.rglob("*"))
    }


def run(*args: str) -> Result:
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.mark.parametrize("store", ["no-snapshots-folder", "empty-snapshots-folder"])
@pytest.mark.parametrize("kind", list(BAD))
def test_a_run_refused_for_its_input_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, store: str
) -> None:
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "good.yaml").write_text(GOOD, encoding="utf-8")
    files, said = BAD[kind]
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    if store == "empty-snapshots-folder":
        (tmp_path / "snapshots").mkdir()
    monkeypatch.chdir(tmp_path)
    before = everything(tmp_path)

    for command in COMMANDS:
        result = run(*command)

        shown = f"{command}: exit {result.exit_code}\n{result.output}"
        assert result.exit_code == 2, shown
        assert all(words in result.output for words in said), shown
        assert "Traceback" not in result.output, shown
        assert everything(tmp_path) == before, shown


def test_the_same_project_once_fixed_keeps_its_claims(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The counterpart: with the input good, an offline run in an existing store keeps
    what the claim files gave in the store's `.cache` (so the refusals above are what
    wrote nothing)."""
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "good.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "snapshots").mkdir()
    monkeypatch.chdir(tmp_path)

    result = run("list")

    assert result.exit_code == 0, result.output
    assert (tmp_path / "snapshots" / ".cache" / "claims.json").is_file()


def test_a_gate_refused_for_having_no_claims_leaves_the_store_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store a good run filled, then every claim file gone: `verify` refuses to pass
    with nothing to check, and forgets nothing from the store's `.cache` either."""
    (tmp_path / "claims").mkdir()
    files = [tmp_path / "claims" / f"good-{n}.yaml" for n in range(3)]
    for n, path in enumerate(files):  # more files than a run that read none keeps
        path.write_text(GOOD.replace("good-one", f"good-{n}"), encoding="utf-8")
    (tmp_path / "snapshots").mkdir()
    monkeypatch.chdir(tmp_path)
    assert run("list").exit_code == 0
    for path in files:
        path.unlink()
    before = everything(tmp_path)

    for command in (["verify"], ["verify", "--offline"]):
        result = run(*command)

        assert result.exit_code == 2, result.output
        assert "no claims found in" in result.stderr
        assert everything(tmp_path) == before, command


@pytest.mark.parametrize("command", ["show", "explain", "diff", "blame", "cite", "accept"])
def test_an_unknown_id_is_refused_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """Good claim files, a store there, and an id that is in none of them: exit 2, and
    the claims the files gave are not kept either (the run was refused)."""
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "good.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "snapshots").mkdir()
    monkeypatch.chdir(tmp_path)
    before = everything(tmp_path)

    result = run(command, "no-such-claim")

    assert result.exit_code == 2, result.output
    assert "no claim with id 'no-such-claim'" in result.stderr
    assert everything(tmp_path) == before
