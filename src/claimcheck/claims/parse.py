"""Parse claim files (YAML, one per published page) into `Claim` models.

Every problem is reported with file, line, claim id and field, and all problems of
all files are collected before anything fails, so one run shows the author every fix
to make: a file whose fields break the schema still has each claim checked for what
the schema leaves to the parser (a source or `cited`, a quote) and each id counted
for duplicates, and the problems come out sorted by file and line, each in words of
its own (`problems.error_message`), never the validation library's. Parsing is pure: it
takes file names and texts, never opens a file. The schema is `claims.schema`, the
checks it leaves to the parser `claims.claim_checks`.

Text is cleaned here, at the one door claims come in by: JSON writers escape a
character outside the BMP as a surrogate pair (`"\\ud83d\\udda5"`), which YAML reads as
two lone halves that no later stage can encode, so pairs are joined into the character
they spell, and what still cannot be text (a lone half, a control character) is a
claim-file error rather than a traceback in a report writer.

YAML is read by PyYAML's libyaml loader (`yaml_read.read_document`, which the caller
gives as `read`), into values built by the rules the files were always read by
(ruamel.yaml's YAML 1.2): `no` is text, `010` is ten.

Claim files come from pull requests, so the parser is also the first line against a
hostile one. Each limit is a mechanism, checked before the work it bounds: a file over
`MAX_FILE_BYTES` is refused before YAML reads it; anchors and aliases are refused before
any value is built from the nodes, so an alias is never expanded (a 1 KB "billion
laughs" file would otherwise grow to gigabytes), and so are tags (`!!binary` would
smuggle bytes past the text checks) and nesting deeper than `yaml_values.MAX_DEPTH`; every field has
a range (a URL's port, a check date no later than tomorrow, a text a reader can see, a
URL without a user name or password, which every report would publish).
"""

from __future__ import annotations

import datetime as dt
import gc
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol

from pydantic import (
    TypeAdapter,
    ValidationError,
)

from claimcheck.claims.claim_checks import (
    CLAIM_KEYS,
    absent_held,
    add_claim_problems,
    add_part_problems,
    anchor_checks,
    parts_checks,
    several_checks,
)
from claimcheck.claims.field_checks import join_surrogates
from claimcheck.claims.problems import (
    Problems,
    bad_text,
    describe,
    field_at,
    unreadable_character,
    where,
)
from claimcheck.claims.schema import ClaimEntry, ClaimFileModel
from claimcheck.claims.yaml_values import (
    Document,
    InvalidError,
    Map,
    ReadDocument,
    RefusedError,
    Seq,
    UnmarkedError,
    UnreadableError,
)
from claimcheck.errors import ClaimFileError
from claimcheck.models import Claim

MAX_FILE_BYTES = 128 * 1024
"""The largest claim file read: 7 times the largest real one (17 KB)."""
# The most a check date may lie ahead of today (UTC): a person in UTC+14 checking today.
_DATE_SLACK = dt.timedelta(days=1)


_CLAIMS = TypeAdapter(list[Claim])
"""Validates the claims of a parse in one call: 10,000 `Claim(...)` calls take a fifth longer."""
_Read = tuple[object, int, dict[str, Any] | None]
"""One claim as read: its id as written, its line, and its `Claim`'s fields when it is valid."""


class KeptClaims(Protocol):
    """Where the claims of a file read without a problem are kept for the next read
    (`cache.kept.Kept`): reading is pure, keeping is the caller's."""

    def key(self, *terms: str) -> str: ...

    def get(self, key: str) -> Any | None: ...

    def put(self, key: str, answer: Any) -> None: ...


def parse_claims(
    files: Iterable[tuple[str, str]],
    *,
    read: ReadDocument,
    today: dt.date | None = None,
    kept: KeptClaims | None = None,
) -> list[Claim]:
    """Parse (file name, text) pairs into claims; raise ClaimFileError listing every problem.

    `read` reads a file's YAML (`yaml_read.read_document`), given by the caller: a run
    whose claim files are all kept reads none, and so need not import a YAML library.
    The problems are every one of every file, in the files' order and by line within
    each. `today` (default: today in UTC) bounds the check dates: none may be after
    tomorrow.

    With `kept`, a file whose name and text are those of a file an earlier read found
    no problem in gives the claims it gave then, unread (most nights no claim file
    changed, and reading is the YAML and the schema of every claim); ids are still
    checked across all files, and a kept check date after tomorrow reads the file
    again. Only files without a problem are kept, so every problem is found by reading.
    """
    problems: list[str] = []
    fields: list[dict[str, Any]] = []
    seen: dict[str, str] = {}
    latest = (today or dt.datetime.now(dt.UTC).date()) + _DATE_SLACK
    context = {"latest": latest, "urls": {}}
    fresh: dict[str, str] = {}  # a file read now, without a problem: its key
    with _no_cycle_collection():
        for name, text in files:
            found: Problems = []
            key = kept.key(name, text) if kept is not None else ""
            taken = _kept_reads(kept.get(key), latest) if kept is not None else None
            reads = taken if taken is not None else _parse_file(name, text, read, found, context)
            for claim_id, line, claim in reads:
                if not isinstance(claim_id, str):
                    continue  # no id to count: pydantic said what is wrong with it
                first = seen.get(claim_id)
                if first is not None:
                    found.append(
                        (
                            line,
                            f"{name}:{line}: claim {claim_id!r}: id: duplicate id, first "
                            f"defined at {first}",
                        )
                    )
                    continue
                seen[claim_id] = f"{name}:{line}"
                if claim is not None:
                    fields.append(claim)
            if found:
                found.sort(key=_line_of)  # stable: a line's problems keep their order
                problems.extend(problem for _, problem in found)
            elif taken is None and kept is not None:
                fresh[name] = key
        if problems:
            raise ClaimFileError(problems)
        claims: list[Claim] = _CLAIMS.validate_python(fields)
        if kept is not None and fresh:
            _keep(kept, fresh, fields)
        del fields  # freed now, not walked by the collector once it is back on
    return claims


def _kept_reads(answer: Any, latest: dt.date) -> list[_Read] | None:
    """A kept file's claims as read, or None when there are none to take."""
    if not isinstance(answer, list):
        return None
    bound = latest.isoformat()
    reads: list[_Read] = []
    for claim in answer:
        if not isinstance(claim, dict):
            return None
        claim_id, line, checked = claim.get("id"), claim.get("line"), claim.get("checked")
        if not isinstance(claim_id, str) or not isinstance(line, int):
            return None
        if not isinstance(checked, str) or checked > bound:
            return None  # read again: the date is refused there, with its line
        reads.append((claim_id, line, claim))
    return reads


def _keep(kept: KeptClaims, fresh: dict[str, str], fields: list[dict[str, Any]]) -> None:
    """Keep each freshly read file's claims, as JSON, for the next read.

    What is kept is each claim's fields as read, which the claims were just validated
    from: plain values but the check date, kept as its ISO text (`_kept_reads` reads it
    so), not the claims dumped again.
    """
    by_file: dict[str, list[dict[str, Any]]] = {name: [] for name in fresh}
    for claim in fields:
        mine = by_file.get(claim["file"])
        if mine is not None:
            mine.append({**claim, "checked": claim["checked"].isoformat()})
    for name, key in fresh.items():
        kept.put(key, by_file[name])


def _line_of(problem: tuple[int, str]) -> int:
    return problem[0]


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Reading without the cyclic garbage collector, which is on again after.

    Reading builds some thirty objects a claim (nodes, marks, dicts, models), none of
    them in a reference cycle, so reference counting frees every one; but each few
    hundred of them the collector walks everything still alive, and the more claims are
    read the more that is: a large part of the time of reading a large desk.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def file_too_large(name: str, size: int) -> str | None:
    """The problem of a claim file of `size` bytes, when it is over the limit."""
    if size <= MAX_FILE_BYTES:
        return None
    return (
        f"{name}:1: file: {size:,} bytes, more than the {MAX_FILE_BYTES:,} bytes"
        f" ({MAX_FILE_BYTES // 1024} KiB) a claim file may hold; split the page's claims"
        " into several files"
    )


def _parse_file(
    name: str, text: str, read_yaml: ReadDocument, problems: Problems, context: dict[str, Any]
) -> list[_Read]:
    """Each claim of one file as read (`_Read`), its problems added to `problems`.

    A file that is no YAML mapping, or holds text that is not text, is reported alone:
    nothing of it can be checked further, or what follows could quote the bad text.
    """
    too_large = file_too_large(name, len(text.encode("utf-8", "replace")))
    if too_large is not None:  # milliseconds, even for 20 MB
        problems.append((1, too_large))
        return []
    try:
        document = read_yaml(text)
    except RefusedError as exc:
        field = field_at(text, exc.line)
        problems.append((exc.line, where(name, exc.line, None, field, exc.message)))
        return []
    except UnreadableError as exc:
        problems.append(unreadable_character(name, text, exc))
        return []
    except InvalidError as exc:
        problems.append(
            (
                exc.line,
                f"{name}:{exc.line}: invalid YAML near {field_at(text, exc.line)}: {exc.message}",
            )
        )
        return []
    except UnmarkedError as exc:
        problems.append((1, f"{name}:1: file: invalid YAML: {exc}"))
        return []
    doc = document.value
    if not isinstance(doc, Map):
        problems.append((1, f"{name}:1: a claim file must be a mapping with page, checked, claims"))
        return []
    if document.bad_text:  # only then can a string hold what `bad_character` reports
        text_problems = list(bad_text(name, document, doc))
        if text_problems:  # reported alone: later messages could quote the bad text
            problems.extend(text_problems)
            return []
    data = _plain(doc, document.converted) if document.converted else doc
    try:
        model = ClaimFileModel.model_validate(data, context=context)
    except ValidationError as exc:
        return _invalid_file(name, document, data, exc, problems)
    read: list[_Read] = []
    items = doc["claims"]
    for index, entry in enumerate(model.claims):
        item = items[index]
        line = item.line
        if entry.sources is not None:
            values = entry.model_dump(include=set(CLAIM_KEYS))
            wrong = several_checks(values, len(entry.sources))
            parts = [part.model_dump() for part in entry.sources]
            found_parts, part_wrong = parts_checks(parts, {})
            add_claim_problems(name, document, item, entry.id, wrong, problems)
            add_part_problems(name, document, item, entry.id, part_wrong, problems)
            if wrong or part_wrong:
                read.append((entry.id, line, None))
                continue
            first = found_parts[0]
            claim = {
                "id": entry.id,
                "page": model.page,
                "claim": entry.claim.strip(),
                **first,
                "checked": entry.checked or model.checked,
                "owner": entry.owner or model.owner,
                "file": name,
                "line": line,
                "parts": found_parts,
                "reviewed": _reviewed(entry),
            }
            read.append((entry.id, line, claim))
            continue
        source, anchor, wrong = anchor_checks({key: getattr(entry, key) for key in CLAIM_KEYS})
        if wrong:
            add_claim_problems(name, document, item, entry.id, wrong, problems)
            read.append((entry.id, line, None))
            continue
        claim = {
            "id": entry.id,
            "page": model.page,
            "claim": entry.claim.strip(),
            "source": source,
            "anchor": anchor,
            "checked": entry.checked or model.checked,
            "cited": entry.cited,
            "scope": entry.scope,
            "absent": absent_held(entry.absent),
            "render": entry.render,
            "owner": entry.owner or model.owner,
            "file": name,
            "line": line,
            "reviewed": _reviewed(entry),
        }
        read.append((entry.id, line, claim))
    return read


def _reviewed(entry: ClaimEntry) -> dict[str, Any] | None:
    """A claim's `reviewed:` entry as plain JSON values (its dates as text), which the
    claim's `Review` is validated from and a kept read keeps as it is."""
    return None if entry.reviewed is None else entry.reviewed.model_dump(mode="json")


def _invalid_file(
    name: str, document: Document, data: object, error: ValidationError, problems: Problems
) -> list[_Read]:
    """A file whose fields break the schema: each error, then what else each claim lacks.

    pydantic names every field that is wrong; what the schema leaves to the parser (a
    source or `cited`, a quote for a source) is checked on each claim as written, with
    only the fields pydantic refused left out, so one run shows every problem.
    """
    failed: dict[int, set[str]] = {}
    failed_parts: dict[int, dict[int, set[str]]] = {}  # claim → part → keys refused
    for details in error.errors():
        problems.append(describe(name, document, details))
        loc = details["loc"]
        if len(loc) >= 2 and loc[0] == "claims" and isinstance(loc[1], int):
            failed.setdefault(loc[1], set()).add(str(loc[2]) if len(loc) > 2 else "")
            if len(loc) > 3 and loc[2] == "sources" and isinstance(loc[3], int):
                refused = str(loc[4]) if len(loc) > 4 else ""
                failed_parts.setdefault(loc[1], {}).setdefault(loc[3], set()).add(refused)
    items = document.value.get("claims") if isinstance(document.value, Map) else None
    raw_items = data.get("claims") if isinstance(data, Mapping) else None
    if not isinstance(items, Seq) or not isinstance(raw_items, list):
        return []
    read: list[_Read] = []
    for index, (item, raw) in enumerate(zip(items, raw_items, strict=True)):
        wrong = failed.get(index, set())
        if not isinstance(item, Map) or not isinstance(raw, Mapping) or "" in wrong:
            continue  # not a mapping of keys: nothing more to ask of it
        claim_id = raw.get("id")
        several = raw.get("sources")
        if several is not None:
            # Each part as written, with only the keys pydantic refused left out.
            mine = failed_parts.get(index, {})
            count = len(several) if isinstance(several, list) else None
            top = {k: None if k in wrong else raw.get(k) for k in CLAIM_KEYS}
            parts = several if isinstance(several, list) else []
            _, part_wrong = parts_checks(parts, mine)
            add_claim_problems(name, document, item, claim_id, several_checks(top, count), problems)
            add_part_problems(name, document, item, claim_id, part_wrong, problems)
            read.append((claim_id, item.line, None))
            continue
        values = {key: None if key in wrong else raw.get(key) for key in CLAIM_KEYS}
        if isinstance(values["source"], str):
            values["source"] = values["source"].strip()  # as the `source` validator gives it
        _, _, missing = anchor_checks(values, failed=frozenset(wrong))
        if missing:
            add_claim_problems(name, document, item, claim_id, missing, problems)
        read.append((claim_id, item.line, None))
    return read


def _plain(node: object, converted: set[int]) -> object:
    """The read containers as plain dicts/lists/strings (keys text, pairs joined) for pydantic.

    Only the containers the reader marked `converted` hold anything to change; the rest
    are given to pydantic as they are (a `Map` is a dict).
    """
    if isinstance(node, Mapping):
        if id(node) not in converted:
            return node
        return {join_surrogates(str(k)): _plain(v, converted) for k, v in node.items()}
    if isinstance(node, list):
        if id(node) not in converted:
            return node
        return [_plain(v, converted) for v in node]
    if isinstance(node, str):
        return join_surrogates(str(node))
    return node
