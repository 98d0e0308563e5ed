"""Forged or huge report fields: refused with the file and the field's JSON path, exit 2,
fast, never a traceback; through the real `report merge` and `issues --report`.

The bounds asserted here are the documented ones (docs/reports.md),
written out by hand: a shard count of at most 999,999, lines up to 10,000,000, scores
0 to 100, any other number within ±2^53, strings up to 1,000,000 characters, lists up
to 1,000 items (results up to 100,000), nesting up to 16 levels, files up to 64 MiB.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claimcheck.claims.shard import parse_shard
from claimcheck.errors import UsageError
from claimcheck.models import Shard, Verdict
from claimcheck.report.bounds import RANGES, parse_report_text
from claimcheck.report.build import build_report, report_document, with_shard
from claimcheck.report.document import MAX_SHARDS
from claimcheck.report.load import ReportError, load_report_document
from claimcheck.report.schema import report_schema
from support.cli_runs import run, show
from support.sample_reports import evidence

T0 = dt.datetime(2026, 11, 30, 3, 17, tzinfo=dt.UTC)
FAST = 2.0
"""Seconds a refusal may take in-process: the forged run took 11 to 27 s to crash; a
bounded one takes milliseconds, with room for a loaded machine."""


def shard_document(index: int, count: int, verdicts: list[Verdict]) -> dict[str, Any]:
    """The report of shard `index` of `count` as `verify --shard` writes it."""
    results = []
    for n, verdict in enumerate(verdicts):
        result = evidence(verdict)
        claim = result.claim.model_copy(
            update={"id": f"c-{index}-{n}", "file": f"claims/p{index}.yaml", "line": 5 + n}
        )
        results.append(result.model_copy(update={"claim": claim}))
    report = build_report(results, now=T0, offline=False)
    return report_document(with_shard(report, Shard(index=index, count=count)))


PARTS = {
    "a.json": shard_document(1, 2, [Verdict.DRIFTED, Verdict.VERIFIED, Verdict.CONTEXT_CHANGED]),
    "b.json": shard_document(2, 2, [Verdict.MISSING, Verdict.MOVED]),
}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write_parts(folder: Path, texts: dict[str, str]) -> list[str]:
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    return list(texts)


def merge(*names: str) -> tuple[Any, float]:
    started = time.monotonic()
    outcome = run("report", "merge", *names)
    return outcome, time.monotonic() - started


# -- the forged counts of the finding, through the real CLI ------------------------------


@pytest.mark.parametrize(
    ("count", "said"),
    [
        ("1000000000000", "1,000,000,000,000 is out of range (1 to 999,999 shards)"),
        ("1" + "0" * 400, "a number of 401 digits is out of range (1 to 999,999 shards)"),
    ],
    ids=["10^12", "10^400"],
)
def test_a_forged_shard_count_is_refused_at_once(folder: Path, count: str, said: str) -> None:
    """It was a MemoryError traceback after 11 to 27 s, exit 1."""
    good = json.dumps(PARTS["b.json"])
    forged = json.dumps(PARTS["a.json"]).replace('"count": 2', f'"count": {count}')
    names = write_parts(folder, {"a.json": forged, "b.json": good})

    outcome, seconds = merge(*names)

    assert outcome.exit_code == 2, show(outcome)
    assert outcome.stderr.startswith(f"error: a.json: shard.count: {said}\n"), show(outcome)
    assert "Traceback" not in outcome.stderr
    assert seconds < FAST


def test_the_shard_bound_is_what_verify_shard_accepts(folder: Path) -> None:
    """A run of the most shards `--shard` takes can be merged; the message stays short."""
    assert parse_shard(f"{MAX_SHARDS}/{MAX_SHARDS}") == (999_999, 999_999)
    with pytest.raises(UsageError):
        parse_shard("1/1000000")
    lone = shard_document(3, 999_999, [Verdict.VERIFIED])
    names = write_parts(folder, {"lone.json": json.dumps(lone)})

    outcome, seconds = merge(*names)

    assert outcome.exit_code == 2, show(outcome)
    assert "shard 1/999999 is missing; shard 2/999999 is missing; shard 4/999999" in outcome.stderr
    assert "and 999,988 more shards of the 999,999 are missing" in outcome.stderr
    assert len(outcome.stderr) < 1000
    assert seconds < FAST


def test_issues_refuses_a_forged_report_naming_the_field(folder: Path) -> None:
    whole = report_document(build_report([evidence(Verdict.DRIFTED)], now=T0, offline=False))
    whole["results"][0]["line"] = 10**15
    Path("report.json").write_text(json.dumps(whole), encoding="utf-8")

    outcome = run("issues", "--report", "report.json", "--repo", "desk/site", "--dry-run")

    assert outcome.exit_code == 2, show(outcome)
    assert outcome.stderr.startswith(
        "error: report.json: results[0].line: 1,000,000,000,000,000 is out of range "
        "(1 to 10,000,000 lines)"
    ), show(outcome)


def test_a_report_file_too_large_is_refused_before_it_is_read(folder: Path) -> None:
    big = folder / "big.json"
    with big.open("wb") as handle:  # sparse: no 64 MiB written
        handle.truncate(64 * 1024 * 1024 + 1)

    outcome, seconds = merge("big.json")

    assert outcome.exit_code == 2, show(outcome)
    assert "big.json: 67,108,865 bytes, more than the 64 MiB a report may hold" in outcome.stderr
    assert seconds < FAST


# -- each bound, named by its path -------------------------------------------------------


def result_with(**fields: Any) -> dict[str, Any]:
    document = report_document(build_report([evidence(Verdict.DRIFTED)], now=T0, offline=False))
    document["results"][0].update(fields)
    return document


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"results": [], "schema_version": 1, "duration_s": 1e400}', "duration_s: 1e400 is out"),
        ('{"results": [], "schema_version": 1, "x": NaN}', "x: NaN is not a number JSON allows"),
        ('{"results": [], "schema_version": 1, "x": -Infinity}', "x: -Infinity is not a number"),
        ('{"results": [], "counts": {"drifted": 1' + "0" * 30 + "}}", "counts.drifted: a number"),
        ('{"results": [], "x": 9007199254740993}', "x: 9,007,199,254,740,993 is out of range"),
        ('{"results": [], "x": ' + "[" * 17 + "]" * 17 + "}", "x[0][0]"),
        ('{"results": [], "x": [' + ",".join(["0"] * 1001) + "]}", "x: 1,001 items, more"),
        ('{"results": [], "x": "' + "y" * 1_000_001 + '"}', "x: 1,000,001 characters, more"),
        ('{"results": [], "' + "k" * 201 + '": 1}', "the document: a key longer than 200"),
    ],
    ids=["inf", "nan", "infinity", "digits", "past-2^53", "deep", "long-list", "long", "key"],
)
def test_each_bound_names_the_field(text: str, said: str) -> None:
    with pytest.raises(ReportError) as refused:
        load_report_document(parse_report_text(text))
    assert str(refused.value).startswith(said), refused.value


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"line": 0}, "results[0].line: 0 is out of range (1 to 10,000,000 lines)"),
        ({"line": 10_000_001}, "results[0].line: 10,000,001 is out of range"),
        ({"score": 100.5}, "results[0].score: 100.5 is out of range (0 to 100 points)"),
        ({"occurrences": -1}, "results[0].occurrences: -1 is out of range (0 to 10,000,000"),
        ({"parts": [{"score": 101}]}, "results[0].parts[0].score: 101 is out of range"),
        (
            {"citation": {"live": "x", "permalink": None, "lines": [1, 10**8], "version": None}},
            "results[0].citation.lines[1]: 100,000,000 is out of range (1 to 10,000,000 lines)",
        ),
        ({"absent": ["x"] * 1001}, "results[0].absent: 1,001 items, more than 1,000"),
    ],
    ids=["line-0", "line-huge", "score", "occurrences", "part-score", "citation-line", "absent"],
)
def test_each_field_range_is_named(fields: dict[str, Any], said: str) -> None:
    with pytest.raises(ReportError) as refused:
        load_report_document(result_with(**fields))
    assert str(refused.value).startswith(said), refused.value


def test_a_claim_judged_twice_in_one_report_is_refused() -> None:
    """One report judges a claim once; twice, `issues` would act on it twice."""
    document = result_with()
    document["results"].append(document["results"][0])
    with pytest.raises(ReportError, match=r"^results\[1\]\.id: '.*' is the id of results\[0\]"):
        load_report_document(document)


def test_the_published_schema_states_the_bounds() -> None:
    schema = report_schema()
    shard = schema["properties"]["shard"]["properties"]
    assert shard["count"]["maximum"] == shard["index"]["maximum"] == 999_999
    result = schema["properties"]["results"]["items"]["properties"]
    assert result["line"]["maximum"] == 10_000_000
    assert schema["properties"]["results"]["maxItems"] == 100_000


# -- any field forged: loads or is refused with its path, never a traceback ------------


def leaves(value: Any, path: str = "") -> Iterator[str]:
    """The JSON path of every value in a document, containers included."""
    if path:
        yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, f"{path}[{index}]")


PATHS = sorted(leaves(PARTS["a.json"]))
RAW = "\u0000RAW\u0000"
RANGED = {
    "shard.index",
    "shard.count",
    "duration_s",
    "results[].line",
    "results[].score",
    "results[].occurrences",
    "results[].citation.lines[]",
    "results[].parts[].score",
    "results[].parts[].occurrences",
    "results[].parts[].citation.lines[]",
}
"""The fields with a range of their own, which 10^12 is beyond."""


def replaced(document: Any, path: str, value: Any) -> Any:
    """A deep copy of `document` with the value at `path` replaced."""
    copy = json.loads(json.dumps(document))
    steps: list[str | int] = []
    for piece in path.replace("[", ".[").split("."):
        steps.append(int(piece[1:-1]) if piece.startswith("[") else piece)
    target = copy
    for step in steps[:-1]:
        target = target[step]
    target[steps[-1]] = value
    return copy


# A forged value: (its JSON text, whether it breaks a bound whatever field it is put in).
numbers = st.one_of(
    st.integers(min_value=-(2**53), max_value=2**53).map(lambda n: (str(n), False)),
    st.sampled_from([10**400, -(10**400), 2**53 + 1, 10**30]).map(lambda n: (str(n), True)),
    st.just((str(10**12), None)),  # out of bounds in a field with a range (RANGED) only
    st.floats(allow_nan=False, allow_infinity=False).map(lambda f: (json.dumps(f), False)),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-1e400"]).map(lambda t: (t, True)),
)
strings = st.one_of(
    st.text(max_size=30).map(lambda s: (json.dumps(s), False)),
    st.just((json.dumps("z" * 1_000_001), True)),
)
lists = st.one_of(
    st.integers(min_value=0, max_value=5).map(lambda n: (json.dumps(list(range(n))), False)),
    st.just(("[" + ",".join(["1"] * 1001) + "]", True)),
    st.just(("[" * 40 + "]" * 40, True)),
)
forged_values = st.one_of(numbers, strings, lists, st.just(("null", False)))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(PATHS), forged=forged_values)
def test_any_forged_field_loads_or_is_refused_with_its_path(
    path: str, forged: tuple[str, bool | None]
) -> None:
    text, out_of_bounds = forged
    if out_of_bounds is None:
        out_of_bounds = re.sub(r"\[\d+\]", "[]", path) in RANGED
    if path == "results" and text.startswith("[1,"):
        out_of_bounds = False  # results may hold 100,000 items
    document = replaced(PARTS["a.json"], path, RAW)
    forged_text = json.dumps(document).replace(json.dumps(RAW), text)
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        write_parts(Path(folder), {"a.json": forged_text, "b.json": json.dumps(PARTS["b.json"])})

        outcome, seconds = merge("a.json", "b.json")  # a traceback would raise here

    assert seconds < FAST
    assert outcome.exit_code in (0, 2), show(outcome)
    if outcome.exit_code == 2:  # named: the file, then the field, result or shard
        assert outcome.stderr.startswith("error: a.json"), show(outcome)
    if out_of_bounds:
        assert outcome.exit_code == 2, show(outcome)
        assert outcome.stderr.startswith(f"error: a.json: {path}"), (path, show(outcome))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(PATHS), forged=forged_values)
def test_merge_render_and_issues_refuse_a_forged_report_alike(
    path: str, forged: tuple[str, bool | None]
) -> None:
    """The three commands that read a report back read it with one loader: the same
    document loads for all or is refused by all, with the same first line."""
    text, _ = forged
    forged_text = json.dumps(replaced(PARTS["a.json"], path, RAW)).replace(json.dumps(RAW), text)
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        patch.delenv("GITHUB_TOKEN", raising=False)
        write_parts(Path(folder), {"a.json": forged_text})
        said = [
            run("report", "merge", "a.json"),
            run("report", "render", "a.json", "--format", "json"),
            run("issues", "--report", "a.json", "--repo", "desk/site", "--dry-run"),
        ]

    # The loader's refusals name the file, then a colon: `error: a.json: ...`.
    by_loader = [o.stderr.startswith("error: a.json: ") for o in said]
    assert len(set(by_loader)) == 1, [show(o) for o in said]
    if by_loader[0]:
        assert {o.exit_code for o in said} == {2}
        assert len({o.stderr.partition("\n")[0] for o in said}) == 1, [show(o) for o in said]


@pytest.mark.parametrize("entry", [5, "x", None, [1]], ids=["number", "text", "null", "list"])
def test_a_result_that_is_not_an_object_is_refused(entry: object) -> None:
    """It was an AttributeError traceback (found by the forging property test)."""
    document = result_with()
    document["results"][0] = entry
    with pytest.raises(ReportError, match=r"^report result 1: a result must be an object"):
        load_report_document(document)


def test_the_loader_bounds_the_fields_the_documents_give_a_range() -> None:
    """The ranges are declared once, on the document models; the loader reads them from
    there, with the units its refusals name."""
    assert set(RANGES) == RANGED
    assert RANGES["shard.count"] == (1, 999_999, "shards")
    assert RANGES["results[].line"] == RANGES["results[].citation.lines[]"] == (1, 10**7, "lines")
    assert RANGES["results[].parts[].score"] == (0, 100, "points")
    assert RANGES["duration_s"] == (0, 366 * 24 * 3600, "seconds")
