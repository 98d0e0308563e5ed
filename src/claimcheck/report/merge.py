"""Merge the JSON reports of a run's shards into the report of the whole run.

`verify --shard K/N` judges the claims of one shard of the sources; the N partial
reports merged here make the report one run over all the claims would have made:

- the results of every part, in claim-file order (by claim file, then by line: the
  order of one run over one claims folder), each claim once;
- the counts and the exit code recomputed from those results (`report/build.py`);
- `generated_at` the earliest of the parts' (a run's report carries the time it
  started), `offline` only when every part was offline.

The merged report has no `shard`: it is a whole run's. Every part must name its shard
(`verify --shard K/N` writes `"shard": {"index": K, "count": N}`), all of the same N,
and each K from 1 to N must be there exactly once. A merge that lacked a shard would
be taken for a whole run whose claims of that shard are gone, and `claimcheck issues`
would close their issues; so the parts must prove that they are the whole set.

A part that names no shard is refused. It is either a whole run's report or a shard's
written before reports named their shard, and neither can be checked against the
others: such old parts are not merged, but made again by the current claimcheck (a
sharded run installs one version in every job, so its parts always name their shard).

Parts of different schema versions (or of different claimcheck versions, once a
report names its version) are refused: a field may not mean the same in both. So is
a claim found in two parts, which means the parts are not the shards of one run.
Pure: the parts come in as parsed JSON documents, each with the name to report it by.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from claimcheck.errors import ClaimcheckError
from claimcheck.models import ClaimResult, Report, Shard
from claimcheck.report.build import build_report
from claimcheck.report.load import ReportError, load_report_document

# Document keys that must be equal in every part; a part without one has None.
_SAME = ("schema_version", "claimcheck_version")


class MergeError(ClaimcheckError):
    """The reports are not the parts of one run: they cannot be merged into one."""

    hint = (
        "merge the JSON reports of one run's shards, every one of them once "
        "(`verify --shard K/N --format json` for each K from 1 to N), "
        "written by one claimcheck version"
    )


def merge_documents(parts: Sequence[tuple[str, Any]]) -> Report:
    """The report of the whole run from its parts' `(name, JSON document)` pairs."""
    if not parts:
        raise MergeError("no reports to merge")
    loaded: list[tuple[str, Report]] = []
    for name, document in parts:
        try:
            loaded.append((name, load_report_document(document)))
        except ReportError as exc:
            raise ReportError(f"{name}: {exc}") from exc
    for key in _SAME:
        _require_same(key, parts)
    _require_every_shard(loaded)
    owner: dict[str, int] = {}
    results: list[ClaimResult] = []
    for index, (_, report) in enumerate(loaded):
        for result in report.results:
            claim_id = result.claim.id
            if claim_id in owner:
                raise MergeError(f"claim {claim_id!r} is {_where(loaded, owner[claim_id], index)}")
            owner[claim_id] = index
            results.append(result)
    return build_report(
        sorted(results, key=claim_order),
        now=min(report.generated_at for _, report in loaded),
        offline=all(report.offline for _, report in loaded),
        duration_s=_longest(report.duration_s for _, report in loaded),
    )


def _longest(durations: Iterable[float | None]) -> float | None:
    """Shards run side by side: the merged run took as long as its longest part (None
    when a part does not say)."""
    known = list(durations)
    return None if any(d is None for d in known) else max((d or 0.0 for d in known), default=None)


def claim_order(result: ClaimResult) -> tuple[tuple[str, ...], int, str]:
    """Where a run puts a result: by claim file (as paths sort), then line, then id."""
    claim = result.claim
    return tuple(claim.file.split("/")), claim.line, claim.id


def _require_every_shard(loaded: Sequence[tuple[str, Report]]) -> None:
    """Every part a shard of the same N, and each shard of the N there exactly once."""
    shards: list[tuple[str, Shard]] = []
    for name, report in loaded:
        shard = report.shard
        if shard is None:
            raise MergeError(
                f"{name} names no shard: it is a whole run's report, or a shard's written "
                "before reports named their shard, and cannot be checked against the others"
            )
        shards.append((name, shard))
    first_name, first = shards[0]
    for name, shard in shards[1:]:
        if shard.count != first.count:
            raise MergeError(
                f"{first_name} is shard {first} but {name} is shard {shard}: "
                "the parts of one run are shards of the same N"
            )
    count = first.count
    found: dict[int, list[str]] = {}
    for name, shard in shards:
        found.setdefault(shard.index, []).append(name)
    problems = [
        f"shard {index}/{count} is {_in_parts(names)}"
        for index, names in sorted(found.items())
        if len(names) > 1
    ]
    problems += _missing(found, count)
    if problems:
        raise MergeError("; ".join(problems))


_LISTED = 10
"""The most missing shards named one by one; the rest are counted."""


def _missing(found: Mapping[int, object], count: int) -> list[str]:
    """The shards of `count` that no part is, the first few by name and the rest counted.

    Found by walking up from 1 only until enough are named, so the time and the message
    stay small however large a count a part claims (the loader bounds it too).
    """
    absent = count - sum(1 for index in found if 1 <= index <= count)
    named: list[str] = []
    index = 1
    while len(named) < min(absent, _LISTED):
        if index not in found:
            named.append(f"shard {index}/{count} is missing")
        index += 1
    if absent > len(named):
        named.append(f"and {absent - len(named):,} more shards of the {count:,} are missing")
    return named


def _where(loaded: Sequence[tuple[str, Report]], first: int, again: int) -> str:
    """The two parts a claim is in (the loader refuses a claim twice in one report)."""
    return _in_parts([loaded[first][0], loaded[again][0]])


def _in_parts(names: Sequence[str]) -> str:
    """`in both a.json and b.json`, saying so when a report was given more than once."""
    listed = f"{', '.join(names[:-1])} and {names[-1]}"
    where = f"in both {listed}" if len(names) == 2 else f"in each of {listed}"
    if len(set(names)) < len(names):
        return f"{where} (the same report given twice)"
    return where


def _require_same(key: str, parts: Sequence[tuple[str, Any]]) -> None:
    first_name, first = parts[0]
    expected = _value(first, key)
    for name, document in parts[1:]:
        value = _value(document, key)
        if value != expected:
            raise MergeError(
                f"{first_name} has {key} {expected!r} but {name} has {value!r}: "
                "reports of different versions cannot be merged"
            )


def _value(document: Any, key: str) -> object:
    return document.get(key) if isinstance(document, Mapping) else None
