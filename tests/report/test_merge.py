"""report/merge.py: the shards' JSON reports make the report of one run, or a clear refusal."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from claimcheck.errors import ClaimcheckError
from claimcheck.models import ClaimResult, Report, Shard, Verdict
from claimcheck.report.build import (
    build_report,
    report_document,
    with_shard,
)
from claimcheck.report.document import SCHEMA_VERSION
from claimcheck.report.load import ReportError
from claimcheck.report.merge import MergeError, claim_order, merge_documents
from support.sample_reports import RICH, evidence

T0 = dt.datetime(2026, 11, 30, 3, 17, tzinfo=dt.UTC)


def placed(result: ClaimResult, claim_id: str, file: str, line: int) -> ClaimResult:
    claim = result.claim.model_copy(update={"id": claim_id, "file": file, "line": line})
    return result.model_copy(update={"claim": claim})


# One run's results in claim-file order: two files, claims at their lines.
WHOLE = [
    placed(evidence(Verdict.VERIFIED), "a-1", "claims/a.yaml", 5),
    placed(evidence(Verdict.DRIFTED), "a-2", "claims/a.yaml", 12),
    placed(evidence(Verdict.MISSING), "a-3", "claims/a.yaml", 30),
    placed(evidence(Verdict.CONTEXT_CHANGED), "b-1", "claims/b.yaml", 5),
    placed(evidence(Verdict.UNREACHABLE), "b-2", "claims/b.yaml", 9),
    placed(evidence(Verdict.MOVED), "b-3", "claims/b.yaml", 21),
]


def document(
    results: list[ClaimResult], *, at: dt.datetime = T0, offline: bool = False, **extra: Any
) -> dict[str, Any]:
    """A whole run's report document."""
    return {**report_document(build_report(results, now=at, offline=offline)), **extra}


def part(
    results: list[ClaimResult],
    index: int,
    count: int,
    *,
    at: dt.datetime = T0,
    offline: bool = False,
    **extra: Any,
) -> dict[str, Any]:
    """The report document of shard `index` of `count`, as `verify --shard` writes it."""
    report = with_shard(
        build_report(results, now=at, offline=offline), Shard(index=index, count=count)
    )
    return {**report_document(report), **extra}


def shard_documents() -> list[tuple[str, dict[str, Any]]]:
    """Three parts that split the run, each in its own claim-file order."""
    return [
        ("part-1.json", part([WHOLE[1], WHOLE[4]], 1, 3, at=T0 + dt.timedelta(seconds=40))),
        ("part-2.json", part([WHOLE[0], WHOLE[3], WHOLE[5]], 2, 3, at=T0)),
        ("part-3.json", part([WHOLE[2]], 3, 3, at=T0 + dt.timedelta(seconds=3))),
    ]


def test_the_parts_merge_into_the_report_of_one_run() -> None:
    merged = merge_documents(shard_documents())

    assert report_document(merged) == document(WHOLE)


def test_counts_and_exit_code_are_recomputed_from_the_results() -> None:
    parts = shard_documents()
    parts[2] = ("part-3.json", {**parts[2][1], "counts": {"verified": 99}, "exit_code": 0})

    merged = report_document(merge_documents(parts))

    assert merged["counts"]["missing"] == 1
    assert merged["counts"]["verified"] == 1
    assert merged["exit_code"] == 1  # drifted and missing are stale


def test_the_merged_run_starts_at_the_earliest_part_and_is_offline_only_if_all_were() -> None:
    online = merge_documents(
        [
            ("a.json", part(WHOLE[:2], 1, 2, at=T0 + dt.timedelta(minutes=2), offline=True)),
            ("b.json", part(WHOLE[2:], 2, 2, at=T0, offline=False)),
        ]
    )
    offline = merge_documents(
        [
            ("a.json", part(WHOLE[:2], 1, 2, offline=True)),
            ("b.json", part(WHOLE[2:], 2, 2, offline=True)),
        ]
    )

    assert online.generated_at == T0
    assert online.offline is False
    assert offline.offline is True


def test_an_empty_shard_is_a_part_like_any_other() -> None:
    merged = merge_documents([("a.json", part(WHOLE, 1, 2)), ("empty.json", part([], 2, 2))])
    assert report_document(merged) == document(WHOLE)


def test_the_one_shard_of_one_is_the_whole_run() -> None:
    assert report_document(merge_documents([("all.json", part(WHOLE, 1, 1))])) == document(WHOLE)


def test_results_follow_claim_file_order_as_paths_sort() -> None:
    """As `Path`s sort (a run sorts a folder's files so): part by part, not as strings,
    so `claims/z.yaml` comes before `claims-extra/a.yaml` ('/' > '-' as characters)."""
    nested = [
        placed(evidence(Verdict.VERIFIED), "x", "claims/z.yaml", 3),
        placed(evidence(Verdict.VERIFIED), "y", "claims/a.yaml", 40),
        placed(evidence(Verdict.VERIFIED), "z", "claims/a.yaml", 4),
        placed(evidence(Verdict.VERIFIED), "w", "claims/a-b.yaml", 9),
        placed(evidence(Verdict.VERIFIED), "v", "claims/sub/a.yaml", 2),
        placed(evidence(Verdict.VERIFIED), "u", "claims-extra/a.yaml", 2),
    ]
    parts = [(f"{r.claim.id}.json", part([r], k, len(nested))) for k, r in enumerate(nested, 1)]
    merged = merge_documents(parts)

    assert [r.claim.id for r in merged.results] == ["w", "z", "y", "v", "x", "u"]
    assert [r.claim.id for r in sorted(nested, key=claim_order)] == ["w", "z", "y", "v", "x", "u"]


def test_every_piece_of_evidence_survives_the_merge() -> None:
    rich = [placed(r, r.claim.id, r.claim.file, line) for line, r in enumerate(RICH.results, 1)]
    assert report_document(merge_documents([("rich.json", part(rich, 1, 1))])) == document(rich)


# -- refusals ----------------------------------------------------------------------------


def test_a_claim_in_two_parts_is_refused_naming_both() -> None:
    """Every shard there once, yet a claim in two: the shards of two different runs."""
    parts = [("part-1.json", part(WHOLE[:4], 1, 2)), ("again.json", part(WHOLE[3:], 2, 2))]

    with pytest.raises(MergeError, match=r"claim 'b-1' is in both part-1\.json and again\.json"):
        merge_documents(parts)


def test_a_part_given_twice_is_refused_as_such() -> None:
    first = part(WHOLE[:2], 1, 2)
    with pytest.raises(
        MergeError, match=r"^shard 1/2 is in both p\.json and p\.json \(the same report given"
    ):
        merge_documents([("p.json", first), ("q.json", part(WHOLE[2:], 2, 2)), ("p.json", first)])


def test_a_claim_twice_in_one_part_is_refused() -> None:
    """The loader refuses it, naming the second result: one report judges a claim once."""
    expected = r"^p\.json: results\[1\]\.id: 'a-1' is the id of results\[0\] too"
    with pytest.raises(ReportError, match=expected):
        merge_documents([("p.json", part([WHOLE[0], WHOLE[0]], 1, 1))])


# -- the parts must be every shard of one run, each once ---------------------------------


def test_a_missing_shard_is_refused_naming_it() -> None:
    parts = shard_documents()
    del parts[1]

    with pytest.raises(MergeError, match=r"^shard 2/3 is missing$"):
        merge_documents(parts)


def test_a_shard_given_by_two_parts_is_refused_naming_both() -> None:
    parts = [
        ("a.json", part(WHOLE[:2], 1, 3)),
        ("b.json", part(WHOLE[2:4], 1, 3)),
        ("c.json", part(WHOLE[4:], 3, 3)),
    ]

    with pytest.raises(
        MergeError, match=r"^shard 1/3 is in both a\.json and b\.json; shard 2/3 is missing$"
    ):
        merge_documents(parts)


def test_shards_of_different_counts_are_refused() -> None:
    parts = [("two.json", part(WHOLE[:3], 1, 2)), ("three.json", part(WHOLE[3:], 2, 3))]

    with pytest.raises(MergeError, match=r"two\.json is shard 1/2 but three\.json is shard 2/3"):
        merge_documents(parts)


@pytest.mark.parametrize(
    "parts",
    [
        [("s1.json", part(WHOLE[:3], 1, 2)), ("whole.json", document(WHOLE))],
        [("whole.json", document(WHOLE)), ("s1.json", part(WHOLE[:3], 1, 2))],
        [("whole.json", document(WHOLE))],
        [("whole.json", {**document(WHOLE), "shard": None})],
        # Shards' reports from before reports named their shard: they cannot be checked.
        [("old-1.json", document(WHOLE[:3])), ("old-2.json", document(WHOLE[3:]))],
    ],
    ids=["after-a-shard", "before-a-shard", "alone", "null-shard", "unmarked-parts"],
)
def test_a_part_that_names_no_shard_is_refused(parts: list[tuple[str, dict[str, Any]]]) -> None:
    with pytest.raises(MergeError, match=r"^(whole|old-1)\.json names no shard: it is a whole run"):
        merge_documents(parts)


def test_the_merged_report_is_a_whole_runs() -> None:
    merged = merge_documents(shard_documents())

    assert merged.shard is None
    assert "shard" not in report_document(merged)


def test_parts_of_different_schema_versions_are_refused() -> None:
    older = {**document(WHOLE[:1]), "schema_version": SCHEMA_VERSION - 1}

    with pytest.raises(MergeError, match=r"new\.json has schema_version 1 but old\.json has 0"):
        merge_documents([("new.json", document(WHOLE[1:])), ("old.json", older)])


def test_parts_of_different_claimcheck_versions_are_refused() -> None:
    """Once a report names its claimcheck version; a part without one is another version."""
    a = part(WHOLE[:2], 1, 2, claimcheck_version="0.2.0")
    b = part(WHOLE[2:4], 2, 2, claimcheck_version="0.3.0")
    c = part(WHOLE[4:], 2, 2)

    with pytest.raises(MergeError, match=r"claimcheck_version '0\.2\.0' but b\.json has '0\.3\.0'"):
        merge_documents([("a.json", a), ("b.json", b)])
    with pytest.raises(MergeError, match=r"claimcheck_version '0\.2\.0' but c\.json has None"):
        merge_documents([("a.json", a), ("c.json", c)])
    same = merge_documents([("a.json", a), ("b.json", {**b, "claimcheck_version": "0.2.0"})])
    assert len(same.results) == 4


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ([1, 2], "no `results` list"),
        ({"schema_version": 1}, "no `results` list"),
        ({"schema_version": 99, "results": []}, "schema_version 99"),
        ({"schema_version": 1, "results": [{"id": "x"}]}, "report result 1"),
        ({"schema_version": 1, "results": [{"id": "../x", "page": "p"}]}, "is not a claim id"),
    ],
)
def test_a_part_that_is_not_a_report_is_refused_by_name(bad: object, message: str) -> None:
    with pytest.raises(ReportError, match=r"bad\.json: ") as raised:
        merge_documents([("good.json", document(WHOLE)), ("bad.json", bad)])
    assert message in str(raised.value)


def test_nothing_to_merge_is_refused() -> None:
    with pytest.raises(MergeError, match="no reports"):
        merge_documents([])


def test_refusals_are_run_level_errors_with_a_hint() -> None:
    """The CLI turns them into exit 2 with the hint (`cli.guard.guard`)."""
    assert issubclass(MergeError, ClaimcheckError)
    assert "verify --shard" in MergeError.hint


def test_merge_returns_a_report() -> None:
    assert isinstance(merge_documents(shard_documents()), Report)


def test_the_merged_run_took_as_long_as_its_longest_part() -> None:
    """Shards run side by side; a part from before durations were recorded says nothing."""
    timed = [
        ("a.json", part(WHOLE[:2], 1, 2, duration_s=12.5)),
        ("b.json", part(WHOLE[2:], 2, 2, duration_s=40.25)),
    ]
    untimed = [timed[0], ("b.json", part(WHOLE[2:], 2, 2, duration_s=None))]

    assert merge_documents(timed).duration_s == 40.25
    assert merge_documents(untimed).duration_s is None
    assert merge_documents([("a.json", part(WHOLE, 1, 1, duration_s="slow"))]).duration_s is None
