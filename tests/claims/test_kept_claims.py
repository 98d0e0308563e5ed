"""Claims kept between reads: an unchanged claim file gives what its last read gave.

The oracle is reading without anything kept (itself held to the old ruamel reader by
`test_read_parity`): every read that takes kept claims must give exactly those claims,
or exactly those problems, file:line and all.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from claimcheck.claims import parse
from claimcheck.claims.load import CLAIMS_FILE
from claimcheck.claims.parse import parse_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.cli.app import app
from claimcheck.errors import ClaimFileError
from claimcheck.models import Claim
from support import paths

TODAY = dt.date(2026, 10, 21)
PAGE = """\
page: p
checked: 2026-10-20
claims:
  - id: quant
    claim: supports 1.5- to 8-bit
    source: https://github.com/o/r
    quote: "1.5-bit, 2-bit and 8-bit"
  - id: several
    claim: both say it
    sources:
      - source: https://github.com/o/r
        quote: "2-bit"
      - source: https://example.org/docs#:~:text=from-,8-bit,-up
  - id: cited
    claim: DeepInfer is Apache-2.0
    cited: DeepInfer README
"""


class Memo:
    """Kept answers in memory, as `cache.kept.Kept` keeps them (JSON values)."""

    def __init__(self) -> None:
        self.answers: dict[str, Any] = {}
        self.taken: list[str] = []

    def key(self, *terms: str) -> str:
        return "\0".join(terms)

    def get(self, key: str) -> Any | None:
        found = self.answers.get(key)
        if found is not None:
            self.taken.append(key)
        return found

    def put(self, key: str, answer: Any) -> None:
        self.answers[key] = orjson.loads(orjson.dumps(answer))  # as a JSON file gives it back


def read(files: list[tuple[str, str]], kept: Memo | None, today: dt.date = TODAY) -> Any:
    try:
        return parse_claims(files, today=today, kept=kept, read=read_document)
    except ClaimFileError as error:
        return error.problems


def no_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make reading a file's YAML fail the test: what follows must be taken kept."""

    def refuse(*args: object) -> None:
        raise AssertionError("a kept file was read again")

    monkeypatch.setattr(parse, "_parse_file", refuse)


def repository_claim_files() -> list[Path]:
    found = [
        *sorted((paths.ROOT / "claims").glob("*.yaml")),
        *sorted(paths.DATA.rglob("*.yaml")),
        *sorted(paths.DATA.rglob("*.yml")),
    ]
    assert len(found) >= 100
    return found


@pytest.mark.parametrize(
    "path", repository_claim_files(), ids=lambda p: p.relative_to(paths.ROOT).as_posix()
)
def test_every_claim_file_reads_the_same_kept_as_read(path: Path) -> None:
    try:
        files = [(path.name, path.read_text(encoding="utf-8"))]
    except UnicodeDecodeError:
        return  # refused before parsing: never given to the reader
    expected = read(files, None)
    memo = Memo()
    assert read(files, memo) == expected
    assert read(files, memo) == expected
    if isinstance(expected, list) and expected and isinstance(expected[0], Claim):
        assert memo.taken, "a file read without a problem is kept"
    else:
        assert memo.answers == {}, "a file with a problem is never kept"


def test_a_kept_file_is_not_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    files = [("p.yaml", PAGE)]
    memo = Memo()
    first = read(files, memo)
    assert [c.id for c in first] == ["quant", "several", "cited"]
    no_reading(monkeypatch)
    again = read(files, memo)
    assert again == first
    assert [part.anchor for part in again[1].parts] == [part.anchor for part in first[1].parts]


def test_a_changed_file_is_read_again() -> None:
    memo = Memo()
    read([("p.yaml", PAGE)], memo)
    changed = [("p.yaml", PAGE.replace("2-bit and 8-bit", "2-bit, 4-bit and 8-bit"))]
    assert read(changed, memo) == read(changed, None)
    assert read(changed, memo)[0].anchor.quote == "1.5-bit, 2-bit, 4-bit and 8-bit"


def test_the_same_text_under_another_name_is_its_own_file() -> None:
    memo = Memo()
    read([("p.yaml", PAGE)], memo)
    moved = read([("q.yaml", PAGE)], memo)
    assert {claim.file for claim in moved} == {"q.yaml"}


def test_a_duplicate_id_beside_a_kept_file_is_found_where_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    memo = Memo()
    read([("p.yaml", PAGE)], memo)
    other = (
        "z.yaml",
        "page: z\nchecked: 2026-10-20\nclaims:\n  - id: quant\n    claim: c\n    cited: x\n",
    )
    expected = read([("p.yaml", PAGE), other], None)
    assert expected == [
        "z.yaml:4: claim 'quant': id: duplicate id, first defined at p.yaml:4",
    ]
    assert read([("p.yaml", PAGE), other], memo) == expected


def test_a_kept_check_date_after_tomorrow_is_read_again_and_refused() -> None:
    memo = Memo()
    read([("p.yaml", PAGE)], memo)
    earlier = dt.date(2026, 9, 1)  # a clock set back: 2026-10-20 is now in the future
    expected = read([("p.yaml", PAGE)], None, today=earlier)
    assert expected
    assert all("checked" in problem for problem in expected)
    assert read([("p.yaml", PAGE)], memo, today=earlier) == expected


@pytest.mark.parametrize(
    "damage",
    [
        lambda answer: "not a list",
        lambda answer: [{"claim": "no id"}],
        lambda answer: [{**answer[0], "line": "4"}],
        lambda answer: [{**answer[0], "checked": None}],
        lambda answer: [7],
    ],
)
def test_a_damaged_kept_answer_reads_the_file_again(damage: Any) -> None:
    memo = Memo()
    read([("p.yaml", PAGE)], memo)
    (key,) = memo.answers
    memo.answers[key] = damage(memo.answers[key])
    assert read([("p.yaml", PAGE)], memo) == read([("p.yaml", PAGE)], None)


# -- the command line keeps them in the snapshots' .cache --------------------------------

runner = CliRunner()


def test_a_run_keeps_the_claims_and_the_next_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "p.yaml").write_text(PAGE)
    (tmp_path / "snapshots").mkdir()
    monkeypatch.chdir(tmp_path)
    first = runner.invoke(app, ["verify", "--offline", "--format", "json"])
    kept = tmp_path / "snapshots" / ".cache" / CLAIMS_FILE
    assert kept.is_file(), first.output
    stamp = kept.stat().st_mtime_ns
    no_reading(monkeypatch)
    again = runner.invoke(app, ["verify", "--offline", "--format", "json"])
    assert again.exit_code == first.exit_code
    assert again.stdout.split('"counts"')[1] == first.stdout.split('"counts"')[1]
    assert kept.stat().st_mtime_ns == stamp


def test_a_folder_without_snapshots_gets_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "p.yaml").write_text(PAGE)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint"])
    assert "3 claims in 1 file" in result.output  # read, and lint says no snapshot is stored
    assert not (tmp_path / "snapshots").exists()
