"""A report's result read back, brought into the form this claimcheck writes.

Reports of older versions and of other hands are read by the same document models
(`document.py`) once `as_read` has made each result (or part) of theirs look as a
result is written now.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError
from pydantic_core import PydanticCustomError

from claimcheck.models import ArchivedCopy, Blame, Citation

_TEXTS = (
    "scope",
    "snapshot",
    "snapshot_fetched_at",
    "snapshot_file",
    "baseline_origin",
    "baseline_file",
    "block_before",
    "block_after",
    "block_diff",
)
"""Fields a report read back may give as anything: what is not text reads as null."""


def as_read(entry: Any, what: str) -> Any:
    """A result (or a part) of a report read back, in the form this claimcheck writes.

    Reports of older versions and of other hands load as they always have: fields they
    lack take their defaults, `absent` keeps its texts, a field of evidence that is not
    text reads as null, `occurrences` left empty as 0, a `blame` or `citation` that is
    not one as null (its unknown keys ignored), a `stale` that is not true or false is
    not read (the verdict says it), and a `baseline` given as an object (`{"file",
    "fetched_at"}`) or beside a `baseline_file` is read as the date and file it gives.
    Without a quote (an empty one included), `quote_end`, `prefix` and `suffix` are not
    read. What a claim needs (its id, page, file, line, text, check date, verdict and
    reason) must be there and right: the model refuses it otherwise.
    """
    if not isinstance(entry, Mapping):
        raise PydanticCustomError(
            "not_an_object",
            "a {what} must be an object, not {kind}",
            {"what": what, "kind": type(entry).__name__},
        )
    read = dict(entry)
    if not isinstance(read.get("stale"), bool):
        read.pop("stale", None)
    if not read.get("quote"):
        read.update(quote=None, quote_end=None, prefix=None, suffix=None)
    baseline = read.get("baseline")
    if isinstance(baseline, Mapping):
        read["baseline"] = baseline.get("fetched_at") or baseline.get("date")
        read["baseline_file"] = baseline.get("file")
        read["baseline_origin"] = None
    for key in _TEXTS:
        if key in read and not isinstance(read[key], str):
            read[key] = None
    if not isinstance(read.get("baseline"), str):
        read["baseline"] = None
    absent = read.get("absent")
    read["absent"] = [t for t in absent if isinstance(t, str)] if isinstance(absent, list) else []
    read["occurrences"] = read.get("occurrences") or 0
    read["blame"] = _known(Blame, read.get("blame"))
    read["citation"] = _known(Citation, read.get("citation"))
    read["archived"] = _known(ArchivedCopy, read.get("archived"))
    if what == "result":
        read["parts"] = read.get("parts") or []
    return read


def _known(model: type[Blame | Citation | ArchivedCopy], value: object) -> dict[str, Any] | None:
    """`value`'s fields of `model` as a report writes them, when it is one; else None
    (an older report's, or not one)."""
    if not isinstance(value, Mapping):
        return None
    known = {k: v for k, v in value.items() if k in model.model_fields}
    try:
        return model.model_validate(known).model_dump(mode="json")
    except ValidationError:
        return None
