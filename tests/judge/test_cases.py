"""Golden cases: the judge's verdict on real README excerpts, written by hand.

Each folder under `tests/cases/` is one behaviour of the judge's specification:
`case.toml` holds the anchor and the expected outcome (reasoned from the
specification and the texts, never produced by running the judge), `after.md` is
the source as it reads now and `before.md`, when present, the source as it read on
the claim's check date (the baseline). The excerpts are copied from
`tests/data/corpus/readme-history/` with their markup as it is; a case whose
folder name ends in `-derived` edits a real excerpt as its description says.

case.toml keys:

- `description`: one line, which rule and why the verdict follows;
- `quote`, and optionally `quote_end`, `prefix`, `suffix`: the anchor;
- `expected`: the verdict value;
- `found`: the exact text that replaced a drifted quote (whitespace-normalised);
- `found_contains`: strings that must all be in `found`;
- `reason_contains`: lowercase strings that must all be in the reason;
- `not_verdicts`: verdicts the result must not have.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from claimcheck.models import ClaimResult, Verdict
from support.judging import judge_bodies, make_claim

CASES = Path(__file__).resolve().parents[1] / "cases"

MIN_CASES = 61
"""How many case folders there are: a deleted or misnamed folder fails the count."""

REQUIRED_KEYS = frozenset({"description", "quote", "expected"})
OPTIONAL_KEYS = frozenset(
    {
        "quote_end",
        "prefix",
        "suffix",
        "found",
        "found_contains",
        "reason_contains",
        "not_verdicts",
    }
)
STRING_KEYS = frozenset(
    {"description", "quote", "expected", "quote_end", "prefix", "suffix", "found"}
)
LIST_KEYS = frozenset({"found_contains", "reason_contains", "not_verdicts"})
KNOWN_FILES = frozenset({"case.toml", "before.md", "after.md"})
VERDICTS = frozenset(v.value for v in Verdict)


def case_dirs() -> list[Path]:
    if not CASES.is_dir():
        return []
    return sorted(p for p in CASES.iterdir() if p.is_dir())


def read_body(path: Path) -> str:
    """The file's text byte for byte (no newline translation)."""
    return path.read_bytes().decode("utf-8")


def normalized(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Case:
    name: str
    spec: dict[str, Any]
    after: str
    before: str | None

    @classmethod
    def load(cls, folder: Path) -> Case:
        spec = tomllib.loads(read_body(folder / "case.toml"))
        before = folder / "before.md"
        return cls(
            name=folder.name,
            spec=spec,
            after=read_body(folder / "after.md"),
            before=read_body(before) if before.is_file() else None,
        )

    def judge(self) -> ClaimResult:
        claim = make_claim(
            self.spec["quote"],
            quote_end=self.spec.get("quote_end"),
            prefix=self.spec.get("prefix"),
            suffix=self.spec.get("suffix"),
            claim_id=self.name,
        )
        return judge_bodies(claim, self.after, baseline=self.before)


def describe(case: Case, result: ClaimResult) -> str:
    """What a failing assertion shows: the rule and what the judge said."""
    return (
        f"\n  case:     {case.name}\n  rule:     {case.spec['description']}"
        f"\n  expected: {case.spec['expected']}\n  got:      {result.verdict.value}"
        f"\n  reason:   {result.reason}\n  found:    {result.found!r}"
    )


def test_every_case_folder_is_there() -> None:
    found = case_dirs()
    assert len(found) >= MIN_CASES, (
        f"{len(found)} case folders in {CASES}, expected at least {MIN_CASES}"
    )


@pytest.mark.parametrize("folder", case_dirs(), ids=lambda p: p.name)
def test_case_is_well_formed(folder: Path) -> None:
    files = {p.name for p in folder.iterdir()}
    assert "case.toml" in files, "no case.toml"
    assert "after.md" in files, "no after.md: every case is judged against the source now"
    assert files <= KNOWN_FILES, f"unknown files: {sorted(files - KNOWN_FILES)}"
    spec = tomllib.loads(read_body(folder / "case.toml"))
    keys = set(spec)
    assert keys <= REQUIRED_KEYS | OPTIONAL_KEYS, (
        f"unknown keys: {sorted(keys - REQUIRED_KEYS - OPTIONAL_KEYS)}"
    )
    assert keys >= REQUIRED_KEYS, f"missing keys: {sorted(REQUIRED_KEYS - keys)}"
    for key in keys & STRING_KEYS:
        assert isinstance(spec[key], str), f"{key} must be a string"
        assert spec[key].strip(), f"{key} is blank"
    for key in keys & LIST_KEYS:
        assert isinstance(spec[key], list), f"{key} must be a list"
        assert spec[key], f"{key} is empty"
        assert all(isinstance(x, str) and x.strip() for x in spec[key]), f"{key}: strings only"
    assert "\n" not in spec["description"], "description must be one line"
    assert spec["expected"] in VERDICTS, f"unknown verdict {spec['expected']!r}"
    for verdict in spec.get("not_verdicts", []):
        assert verdict in VERDICTS, f"unknown verdict {verdict!r} in not_verdicts"
        assert verdict != spec["expected"], "a verdict cannot be both expected and excluded"
    if "found" in spec or "found_contains" in spec:
        assert spec["expected"] == Verdict.DRIFTED.value, "found is only checked when drifted"
    for text in spec.get("reason_contains", []):
        assert text == text.lower(), f"reason_contains must be lowercase: {text!r}"


@pytest.mark.parametrize("folder", case_dirs(), ids=lambda p: p.name)
def test_golden_case(folder: Path) -> None:
    case = Case.load(folder)
    result = case.judge()
    spec = case.spec
    assert result.verdict.value == spec["expected"], describe(case, result)
    assert result.verdict.value not in spec.get("not_verdicts", []), describe(case, result)
    if "found" in spec:
        assert result.found is not None, describe(case, result)
        assert normalized(result.found) == normalized(spec["found"]), describe(case, result)
    for text in spec.get("found_contains", []):
        assert result.found is not None, describe(case, result)
        assert normalized(text) in normalized(result.found), describe(case, result)
    for text in spec.get("reason_contains", []):
        assert text in result.reason.lower(), describe(case, result)
