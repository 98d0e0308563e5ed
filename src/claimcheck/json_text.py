"""Indented JSON text, as the standard library writes it, at a C encoder's speed; and why
a stored JSON document read back is not valid, in plain words (`invalid_because`).

Reports, `state.json` and every snapshot index are JSON that people read and diff in
version control, so they are indented, and written only when their text changed. The
standard library's indenting encoder is pure Python: for a desk's 1,000 indexes and a
report of 10,000 claims it was a second of every run. orjson writes the same text as
`json.dumps(indent=2, ensure_ascii=False)` for what claimcheck stores (strings, ints,
finite floats in the range JSON prints without an exponent, lists, dicts with string
keys); what it refuses (a lone surrogate, an integer past 64 bits) goes the slow way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import orjson
from pydantic import ValidationError

_OPTION = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
"""Indented by two, the newline from orjson (appending it would copy the whole text)."""


def indented(document: object) -> str:
    """`json.dumps(document, indent=2, ensure_ascii=False) + "\\n"`, fast."""
    try:
        return orjson.dumps(document, option=_OPTION).decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def indented_bytes(document: object) -> bytes:
    """`indented(document)` as UTF-8, for what is written to a file or a stream.

    A report's text never needs to be a `str`: one emoji in 10,000 results makes
    Python store every character of a 17-million-character report in four bytes
    (68 MB at the run's peak), where its UTF-8 is 17 MB. A lone surrogate, which UTF-8
    cannot hold, is written as its JSON escape (`\\ud83d`): the text reads back as
    the same document.
    """
    try:
        return orjson.dumps(document, option=_OPTION)
    except (TypeError, orjson.JSONEncodeError):
        return indented(document).encode("utf-8", "backslashreplace")


def indented_chunks(head: dict[str, Any], key: str, items: Iterable[object]) -> Iterator[bytes]:
    """`indented_bytes({**head, key: list(items)})`, a chunk an item.

    A report of 10,000 results is written as it is encoded: no document of every
    result (some 25 MB of Python objects) and no second copy of its text are held at the
    run's end, its peak. Each item is encoded alone and indented one level in; the
    encoders never write a raw newline inside a string, so every newline of an item's
    text starts one of its lines. `key` is the last of the document's keys.
    """
    if key in head:
        raise ValueError(f"{key!r} is already in the document: its items go last")
    empty = indented_bytes({**head, key: []})
    close = b"[]\n}\n"  # the empty list, the document's brace and its newline
    assert empty.endswith(close), "an indented document ends with its last key's value"
    opened = False
    for item in items:
        text = indented_bytes(item)[:-1].replace(b"\n", b"\n    ")
        yield (b",\n    " if opened else empty[: -len(close)] + b"[\n    ") + text
        opened = True
    yield b"\n  ]\n}\n" if opened else empty


def invalid_because(exc: Exception) -> str:
    """Why a stored JSON document (state, index, report) is not valid, in plain words.

    pydantic's own text opens with the model's class name and ends each error with a
    link to its documentation; a user fixing `snapshots/state.json` needs the field and
    what is wrong with it, as a claim file's errors give them. Other errors (JSON
    syntax, a missing key, a wrong type found by hand) are said as they are.
    """
    if isinstance(exc, ValidationError):
        problems = [
            f"{_where(error['loc'])}: {error['msg']}" if error["loc"] else error["msg"]
            for error in exc.errors(include_url=False, include_context=False)
        ]
        more = len(problems) - 3
        return "; ".join(problems[:3]) + (f"; and {more} more" if more > 0 else "")
    if isinstance(exc, KeyError) and exc.args:
        return f"{exc.args[0]}: missing"
    return str(exc)


def _where(loc: tuple[int | str, ...]) -> str:
    """A field's place as a path: `versions[0].fetched_at`."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text
