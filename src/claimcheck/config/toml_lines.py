"""Where a key is written in a TOML text: tomllib gives values without their lines, and
every problem of a config file names the line of its key."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

_TABLE = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_TOML_KEY = re.compile(r"^\s*([A-Za-z0-9_.\-\"' ]+?)\s*=")


def toml_line(text: str, keys: Sequence[str]) -> int:
    """The line of the deepest of `keys` found in the TOML text (tomllib gives none), or 1.

    A key is looked up as written in its table (`[fetch]` then `timeout =`) or dotted
    at the top (`fetch.timeout =`); an inline table's entry is found at its table's key,
    an unknown table at its header.
    """
    for depth in range(len(keys), 0, -1):
        wanted = ".".join(keys[:depth])
        for number, key, _ in _toml_rows(text):
            if key == wanted:
                return number
    return 1


def toml_key_at(text: str) -> str | None:
    """The key whose line `text` ends in (`fetch.user_agent`), if that line is a key's:
    where a byte that is not UTF-8 is, `text` being the file up to it."""
    line = text.count("\n") + 1
    return next((k for n, k, header in _toml_rows(text) if n == line and not header), None)


def _toml_rows(text: str) -> Iterator[tuple[int, str, bool]]:
    """Each table header and `key =` line of the TOML text, as written: its line, its
    full key (`fetch.timeout`; a header's: its table's) and whether it is a header."""
    current = ""
    for number, row in enumerate(text.split("\n"), 1):
        header = _TABLE.match(row)
        if header:
            current = header.group(1).replace('"', "").replace(" ", "")
            yield number, current, True
            continue
        found = _TOML_KEY.match(row)
        if found is not None:
            written = found.group(1).replace('"', "").replace("'", "").replace(" ", "")
            yield number, f"{current}.{written}" if current else written, False
