"""The JSON report as one pydantic model tree: what is written, what is read back and
its JSON Schema come from these classes.

The documents hold the report as its JSON says it: dates and times are the text the
report writes (`2026-11-30T03:17:00+00:00`, Python's `isoformat`), so a document dumps to
exactly the JSON that `verify --format json` has always written, key for key in the
order of the fields below. Each bounded field states its bound here (`Field(ge=, le=,
max_length=)`, and `Unit` for how a refusal names it): the published schema states them
and `bounds.py` checks a report read back against them. `schema.py` turns the tree into
the published `report.schema.json`. A claim on a field's document is `field_document`'s.

A report read back (`load.py`) is validated by the same models once `as_read` (`read_back.py`)
has brought what older reports write into today's form; the loader makes them results.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic_core import PydanticCustomError

from claimcheck.models import Acknowledged, ArchivedCopy, Citation, ClaimResult, Report, Snapshot
from claimcheck.report.field_document import FIELD, FieldDocument, field_fields
from claimcheck.report.read_back import as_read
from claimcheck.untrusted import shorten

SCHEMA_VERSION = 1
"""The version of the report document; it changes only when a field is removed or
changes meaning (fields may be added within a version)."""

MAX_REPORT_BYTES = 64 * 1024 * 1024
"""The largest report file read (64 MiB): thousands of claims with their diffs fit."""
MAX_DEPTH = 16
"""The deepest nesting of arrays and objects (a report's own is 7 levels deep)."""
MAX_TEXT = 1_000_000
"""The longest string, in characters (a quote, a diff, a changed paragraph)."""
MAX_KEY = 200
"""The longest key of an object."""
MAX_INTEGER = 2**53
"""The largest magnitude of any number without a range of its own: beyond it JSON
readers lose digits."""
MAX_RESULTS = 100_000
"""The most results one report holds."""
MAX_ITEMS = 1_000
"""The most items of any other list, and the most keys of any object."""
MAX_SHARDS = 999_999
"""The highest shard count: what `verify --shard K/N` accepts (N of up to six digits)."""
MAX_LINE = 10_000_000
"""The highest line number (of a claim in its claim file, of a quote in a source)."""
MAX_OCCURRENCES = 10_000_000
"""The most occurrences of a quote on a source."""
MAX_DURATION_S = 366 * 24 * 3600.0
"""The longest run a report may state, in seconds (a year)."""


@dataclass(frozen=True)
class Unit:
    """What a bounded number counts, as a refusal names its range (`1 to 100 lines`)."""

    name: str


DateTime = Annotated[str, Field(json_schema_extra={"format": "date-time"})]
Date = Annotated[str, Field(json_schema_extra={"format": "date"})]
Line = Annotated[int, Field(ge=1, le=MAX_LINE), Unit("lines")]
ShardNumber = Annotated[int, Field(ge=1, le=MAX_SHARDS), Unit("shards")]
Score = Annotated[float | None, Field(ge=0, le=100), Unit("points")]
Occurrences = Annotated[int, Field(ge=0, le=MAX_OCCURRENCES), Unit("occurrences")]
Duration = Annotated[float | None, Field(ge=0, le=MAX_DURATION_S), Unit("seconds")]
Count = Annotated[int, Field(ge=0)]
_NOT_IN_OLDER = ("absent", "scope", "citation", "archived", "field", "parts", "acknowledged")
VerdictName = Literal[
    "verified",
    "context-changed",
    "expired",
    "drifted",
    "changed",
    "missing",
    "contradicted",
    "source-gone",
    "moved",
    "unreachable",
    "unverified",
]
"""A verdict's name (`models.Verdict`'s values, in its order: a test holds them equal)."""

CLAIM_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
"""A claim's id, as a claim file gives it."""


def _claim_id(value: str) -> str:
    if re.match(CLAIM_ID, value) is None:
        raise PydanticCustomError(
            "claim_id", "{value} is not a claim id", {"value": shorten(repr(value), 60)}
        )
    return value


def _check_date(value: str) -> str:
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        raise PydanticCustomError(
            "check_date", "{value} is not a date (YYYY-MM-DD)", {"value": shorten(repr(value), 40)}
        ) from None
    return value


ClaimId = Annotated[str, AfterValidator(_claim_id), Field(json_schema_extra={"pattern": CLAIM_ID})]
CheckDate = Annotated[str, AfterValidator(_check_date), Field(json_schema_extra={"format": "date"})]
Absent = Annotated[
    list[str],
    Field(
        max_length=MAX_ITEMS,
        description="An absence claim's texts, which the source must not say (empty: none).",
    ),
]
Scope = Annotated[
    str | None,
    Field(
        description="The CSS selector of the part of the page the claim is judged on "
        "(null: the main content)."
    ),
]
CITATION = (
    "How to cite the claim, for one whose quote holds now (verified, moved, "
    "context-changed, expired; null otherwise): `live` opens the live page at the quote "
    "(a text fragment); `permalink` is the version that was checked, when known without a "
    "request (the file at its commit with the quote's lines selected, or a Wayback "
    "capture), else null; `lines` the quote's first and last line in that file; "
    "`version` which version it is (`commit SHA` or `wayback URL`)."
)


def _not_required(*names: str) -> Any:
    """A model's `json_schema_extra` that leaves `names` out of its schema's `required`:
    fields every report of this claimcheck writes, which older reports lack."""

    def edit(schema: dict[str, Any]) -> None:
        schema["required"] = [name for name in schema.get("required", ()) if name not in names]

    return edit


class Document(BaseModel):
    """Base of the report's documents: every field is written, defaults included, so
    the schema of what is written requires each field but those an older report lacks."""

    model_config = ConfigDict(frozen=True, json_schema_serialization_defaults_required=True)


class BlameDocument(Document):
    """The upstream commit that changed or removed a claim's quote (`models.Blame`)."""

    model_config = ConfigDict(extra="forbid")

    sha: str
    date: DateTime
    author: str
    title: str
    url: str


ARCHIVED = (
    "A `source-gone` result's suggestion: the Wayback Machine's last capture of the source "
    "from before it went (`url`, the archived page; `captured`, when); null when none is "
    "known. A suggestion only: it never changes the verdict."
)


class ArchivedDocument(Document):
    """The last archived copy of a gone source (`models.ArchivedCopy`)."""

    model_config = ConfigDict(extra="forbid")

    url: str
    captured: DateTime


ACKNOWLEDGED = (
    "A person's acknowledgement of the claim's review verdict (`reviewed:` in its claim file, "
    "by `claimcheck ack`), for a claim with one whose verdict is neither verified nor unknown; "
    "else null. `holds`: the same verdict, of the same source version, `until` not passed, so "
    "the claim fails no gate and files no issue; else `lapsed` says why not."
)


class AcknowledgedDocument(Document):
    """An acknowledgement and whether it holds (`models.Acknowledged`)."""

    model_config = ConfigDict(extra="forbid")

    date: Date
    note: str
    verdict: VerdictName
    version: str
    until: Date | None = None
    by: str | None = None
    holds: bool
    lapsed: str | None = None


def acknowledged_fields(acknowledged: Acknowledged) -> dict[str, Any]:
    """An acknowledgement as `AcknowledgedDocument` writes it, in its order."""
    review = acknowledged.review
    return {
        "date": review.date.isoformat(),
        "note": review.note,
        "verdict": review.verdict.value,
        "version": review.version,
        "until": review.until.isoformat() if review.until else None,
        "by": review.by,
        "holds": acknowledged.holds,
        "lapsed": acknowledged.lapsed,
    }


_CITED_MAYBE = ("version_date", "dated", "archived", "page")  # absent from older reports


class CitationDocument(Document):
    """How to cite a claim whose quote holds (`models.Citation`)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_not_required(*_CITED_MAYBE))

    live: str
    permalink: str | None = None
    lines: Annotated[list[Line], Field(min_length=2, max_length=2)] | None = Field(
        default=None, description="The quote's first and last line in the version's file."
    )
    version: str | None = None
    version_date: Date | None = Field(
        default=None,
        description="The date the checked version is labelled by: its own (the commit's, "
        "the capture's) when `dated`, else the day the store first held its body; absent "
        "in reports of an older claimcheck.",
    )
    dated: bool = Field(
        default=False, description="Whether `version_date` is the version's own date."
    )
    archived: ArchivedDocument | None = Field(
        default=None,
        description="The source's capture in the Wayback Machine made by `claimcheck "
        "archive` (`url`, `captured`), cited beside the live link; absent when none.",
    )
    page: Annotated[int | None, Field(ge=1, description="For a PDF: the quote's page.")] = None


class PartDocument(Document):
    """One source of a claim on several: its verdict and evidence, the fields of a
    result but the claim's own (id, page, file, line, text, check date and citation),
    which every part shares and its result gives once."""

    model_config = ConfigDict(
        json_schema_extra=_not_required("absent", "scope", "citation", "archived")
    )

    verdict: VerdictName
    stale: bool = False
    reason: str
    source: str | None = None
    quote: str | None = None
    quote_end: str | None = None
    prefix: str | None = None
    suffix: str | None = None
    absent: Absent = Field(default_factory=list)
    scope: Scope = None
    score: Score = None
    found: str | None = None
    diff: str | None = None
    occurrences: Occurrences = 0
    moved_to: str | None = None
    snapshot: Date | None = None
    snapshot_fetched_at: DateTime | None = None
    snapshot_file: str | None = None
    baseline: Date | None = None
    baseline_origin: str | None = None
    baseline_file: str | None = Field(default=None, exclude=True)
    """Read only: where an older report put the baseline's file (never written)."""
    block_before: str | None = None
    block_after: str | None = None
    block_diff: str | None = None
    blame: BlameDocument | None = None
    citation: CitationDocument | None = Field(default=None, description=CITATION)
    archived: ArchivedDocument | None = Field(default=None, description=ARCHIVED)

    @model_validator(mode="before")
    @classmethod
    def _read(cls, entry: Any, info: ValidationInfo) -> Any:
        return entry if info.context is _WRITING else as_read(entry, "part")


class ResultDocument(Document):
    """One claim's result: the claim, its verdict and the evidence; a claim on several
    sources gives its worst part's fields, and each part's in `parts`."""

    model_config = ConfigDict(json_schema_extra=_not_required(*_NOT_IN_OLDER))

    id: ClaimId
    page: str
    file: str
    line: Line
    claim: str
    checked: CheckDate
    verdict: VerdictName
    stale: bool = False
    reason: str
    source: str | None = None
    cited: str | None = None
    quote: str | None = None
    quote_end: str | None = None
    prefix: str | None = None
    suffix: str | None = None
    absent: Absent = Field(default_factory=list)
    scope: Scope = None
    score: Score = None
    found: str | None = None
    diff: str | None = None
    occurrences: Occurrences = 0
    moved_to: str | None = None
    snapshot: Date | None = None
    snapshot_fetched_at: DateTime | None = None
    snapshot_file: str | None = None
    baseline: Date | None = None
    baseline_origin: str | None = None
    baseline_file: str | None = Field(default=None, exclude=True)
    """Read only: where an older report put the baseline's file (never written)."""
    block_before: str | None = None
    block_after: str | None = None
    block_diff: str | None = None
    blame: BlameDocument | None = None
    citation: CitationDocument | None = Field(default=None, description=CITATION)
    archived: ArchivedDocument | None = Field(default=None, description=ARCHIVED)
    field: FieldDocument | None = Field(default=None, description=FIELD)
    parts: list[PartDocument] = Field(
        default_factory=list,
        max_length=MAX_ITEMS,
        description="A claim that rests on several sources: each part's verdict and "
        "evidence, in the claim file's order (empty for a claim of one source). The "
        "result's own verdict, reason, source, quote and evidence are its worst part's.",
    )
    acknowledged: AcknowledgedDocument | None = Field(default=None, description=ACKNOWLEDGED)

    @model_validator(mode="before")
    @classmethod
    def _read(cls, entry: Any, info: ValidationInfo) -> Any:
        return entry if info.context is _WRITING else as_read(entry, "result")

    @classmethod
    def of(cls, result: ClaimResult) -> ResultDocument:
        """The document of one result, its parts' included."""
        return _made(cls, result_fields(result))


def result_fields(result: ClaimResult) -> dict[str, Any]:
    """The JSON of one result as `ResultDocument` writes it, made straight from the
    result: what `ResultDocument.of(result).model_dump()` gives (a test holds the two
    equal, key for key in order), without checking again what the result's own models
    checked. A report of many results is written by one `ResultWriter`."""
    return ResultWriter().fields(result)


class ResultWriter:
    """Writes results as `result_fields` does, one report's at a time: a snapshot's
    written forms (its date, time and file) are made once for all the results that
    name it (a desk has ten claims a source), where the result's models would make
    them again for each."""

    def __init__(self) -> None:
        # id of a snapshot -> (the snapshot, held so the id is not another's while
        # kept; its date, its time, its file as a report writes them)
        self._snapshots: dict[int, tuple[Snapshot, str, str, str]] = {}

    def fields(self, result: ClaimResult) -> dict[str, Any]:
        """`result_fields(result)`: the result's document, in `ResultDocument`'s order."""
        claim, verdict = result.claim, result.verdict
        document = {
            "id": claim.id,
            "page": claim.page,
            "file": claim.file,
            "line": claim.line,
            "claim": claim.claim,
            "checked": claim.checked.isoformat(),
            "verdict": verdict.value,
            "stale": verdict.is_stale,
            "reason": result.reason,
            "source": claim.source,
            "cited": claim.cited,
        }
        self._evidence(result, document)
        document["field"] = field_fields(result)
        document["parts"] = [self._part(part) for part in result.parts]
        acknowledged = result.acknowledged
        document["acknowledged"] = acknowledged_fields(acknowledged) if acknowledged else None
        return document

    def _part(self, part: ClaimResult) -> dict[str, Any]:
        """A part's document, in `PartDocument`'s order."""
        verdict = part.verdict
        document = {
            "verdict": verdict.value,
            "stale": verdict.is_stale,
            "reason": part.reason,
            "source": part.claim.source,
        }
        self._evidence(part, document)
        return document

    def _evidence(self, result: ClaimResult, document: dict[str, Any]) -> None:
        """Add a result's evidence, from `quote` on, in the documents' order."""
        claim, anchor, baseline = result.claim, result.claim.anchor, result.baseline
        snapshot = self._snapshot(result.snapshot) if result.snapshot is not None else None
        document["quote"] = anchor.quote if anchor else None
        document["quote_end"] = anchor.quote_end if anchor else None
        document["prefix"] = anchor.prefix if anchor else None
        document["suffix"] = anchor.suffix if anchor else None
        document["absent"] = list(claim.absent)
        document["scope"] = claim.scope
        document["score"] = result.score
        document["found"] = result.found
        document["diff"] = result.diff
        document["occurrences"] = result.occurrences
        document["moved_to"] = result.moved_to
        document["snapshot"] = snapshot[1] if snapshot else None
        document["snapshot_fetched_at"] = snapshot[2] if snapshot else None
        document["snapshot_file"] = snapshot[3] if snapshot else None
        document["baseline"] = self._snapshot(baseline)[1] if baseline else None
        document["baseline_origin"] = baseline.origin if baseline else None
        document["block_before"] = result.block_before
        document["block_after"] = result.block_after
        document["block_diff"] = result.block_diff
        document["blame"] = (
            written(BlameDocument, result.blame.model_dump(mode="json")) if result.blame else None
        )
        document["citation"] = _citation(result.citation) if result.citation else None
        document["archived"] = _archived(result.archived)

    def _snapshot(self, snapshot: Snapshot) -> tuple[Snapshot, str, str, str]:
        found = self._snapshots.get(id(snapshot))
        if found is None or found[0] is not snapshot:
            fetched_at = snapshot.fetched_at
            found = (
                snapshot,
                fetched_at.date().isoformat(),
                fetched_at.isoformat(),
                f"{snapshot.key}/{snapshot.file}",
            )
            self._snapshots[id(snapshot)] = found
        return found


def _citation(citation: Citation) -> dict[str, Any]:
    """A citation as `CitationDocument` writes it (its `model_dump`, in its order)."""
    lines, day = citation.lines, citation.version_date
    return {
        "live": citation.live,
        "permalink": citation.permalink,
        "lines": list(lines) if lines is not None else None,
        "version": citation.version,
        "version_date": day.isoformat() if day is not None else None,
        "dated": citation.dated,
        "archived": _archived(citation.archived),
        "page": citation.page,
    }


def _archived(copy: ArchivedCopy | None) -> dict[str, str] | None:
    """An archived copy as `ArchivedDocument` writes it."""
    return {"url": copy.url, "captured": copy.captured.isoformat()} if copy else None


@functools.cache
def _written_names(model: type[Document]) -> tuple[str, ...]:
    return tuple(name for name, field in model.model_fields.items() if not field.exclude)


def written(model: type[Document], fields: dict[str, Any]) -> dict[str, Any]:
    """`fields`, already in their written form, in the order `model` writes its fields
    (those it never writes left out)."""
    return {name: fields[name] for name in _written_names(model)}


_D = TypeVar("_D", bound="Document")

_WRITING = {"writing": True}
"""The validation context of a document made from results (`_made`): what it holds is
already in the written form, so `as_read` has nothing to do."""


def _made(model: type[_D], fields: dict[str, Any]) -> _D:
    """The document of `fields` made from results, checked against the model.

    A value beyond the bounds a reader accepts (a line past `MAX_LINE`, say) is written
    all the same, as the result has it: the run that judged it does not fail for it,
    and reading the report back refuses it, naming the field.
    """
    try:
        return model.model_validate(fields, context=_WRITING)
    except ValidationError:
        return model.model_construct(**fields)


class ShardDocument(Document):
    """Which shard of a run a report is (`models.Shard`)."""

    model_config = ConfigDict(extra="forbid")

    index: ShardNumber
    count: ShardNumber


class CountsDocument(Document):
    """Claims per verdict, every verdict present (zero included), in verdict order."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    verified: Count
    context_changed: Count = Field(alias="context-changed")
    expired: Count
    drifted: Count
    changed: Count
    missing: Count
    contradicted: Count
    source_gone: Count = Field(alias="source-gone")
    moved: Count
    unreachable: Count
    unverified: Count


class ReportDocument(Document):
    """The JSON report of `claimcheck verify --format json`."""

    model_config = ConfigDict(
        title="claimcheck report",
        json_schema_extra=_not_required("duration_s", "shard", "acknowledged"),
    )

    schema_version: Literal[1]
    generated_at: DateTime
    offline: bool
    duration_s: Duration = Field(
        default=None,
        description="How long the run took, in seconds (null: not known; a merged "
        "report: its longest part's).",
    )
    shard: ShardDocument | None = Field(
        default=None,
        description="Set only on the report of one shard of a run (`verify --shard "
        "K/N`): shard `index` of `count`, from 1. Absent (or null) on a whole run's "
        "report, a merged one included. `report merge` takes every shard of one run "
        "once; `issues --report` refuses a shard's report.",
    )
    exit_code: Literal[0, 1, 3]
    counts: CountsDocument
    acknowledged: Count = Field(
        default=0,
        description="How many results are review verdicts a person acknowledged and whose "
        "acknowledgement holds (each counted in `counts` under its verdict too).",
    )
    results: list[ResultDocument] = Field(max_length=MAX_RESULTS)

    @classmethod
    def head(
        cls, report: Report, exit_code: int, counts: dict[str, int], acknowledged: int = 0
    ) -> ReportDocument:
        """The document of a report but its results (`results` empty: they are written
        one at a time, last); `counts` by verdict name, and how many are `acknowledged`."""
        shard = report.shard
        return _made(
            cls,
            {
                "schema_version": SCHEMA_VERSION,
                "generated_at": report.generated_at.isoformat(),
                "offline": report.offline,
                "duration_s": report.duration_s,
                "shard": None if shard is None else shard.model_dump(),
                "exit_code": exit_code,
                "counts": _made(CountsDocument, counts),
                "acknowledged": acknowledged,
                "results": [],
            },
        )

    def dump(self) -> dict[str, Any]:
        """The document as its JSON says it; `shard` only when there is one, so a whole
        run's report has none."""
        return self.model_dump(by_alias=True, exclude={"shard"} if self.shard is None else None)
