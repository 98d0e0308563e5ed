"""An edit of a person's file written back the way the file is written: its line ends.

Claim files and articles are read as `decode_utf8` reads them, with universal newlines
(`\\r\\n` and a lone `\\r` are `\\n`), so that lines count the same whichever way a file
is read; every edit (`claims.edit`, `claims.article_edit`) works on that text. Written
back as it is, the edit would turn every CRLF of the file into LF. `written_like` puts
the edit into the file's own bytes instead: a line the edit left alone keeps its bytes,
line end included; a line it changed keeps that line's end; a line it added takes the
end of the line before it, and so does the last line when the edit ends it (the
file's most common end when no line before it has one). A BOM is text
(`\\ufeff`) to the edit and stays with the first line. Pure: the caller reads and writes.
"""

from __future__ import annotations

import re
from collections import Counter
from difflib import SequenceMatcher

_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|)")


def written_like(original: bytes, edited: str) -> bytes:
    """`edited`, an edit of `original` as `decode_utf8` reads it, as the file's bytes.

    The result reads back (with universal newlines) as `edited` exactly; every line of
    `original` the edit did not change is in it byte for byte (but a lone CR that the
    edit leaves before an empty LF line, written CRLF so as not to merge with it).
    Bytes of `original` that are not UTF-8 (on a line the edit left alone) are kept.
    """
    old = _lines(original.decode("utf-8", "surrogateescape"))
    new = _split(edited)
    plain = [text + ("\n" if end else "") for text, end in old]
    head = 0  # the lines both start with, and end with: the diff sees only the middle
    while head < min(len(plain), len(new)) and plain[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(plain), len(new)) - head and plain[-1 - tail] == new[len(new) - 1 - tail]:
        tail += 1
    usual = _usual_end(old)  # for a line with no line before it that has an end
    out = list(old[:head])
    matcher = SequenceMatcher(None, plain[head : len(plain) - tail], new[head : len(new) - tail])
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.extend(old[head + i1 : head + i2])
            continue
        for k, line in enumerate(new[head + j1 : head + j2]):
            if not line.endswith("\n"):
                out.append((line, ""))
                continue
            # A changed line keeps its end; an added one takes the end of the line before.
            at = head + i1 + min(k, i2 - i1 - 1) if op == "replace" else head + i1 - 1
            out.append((line[:-1], _end_at(old, at, usual)))
    out.extend(old[len(old) - tail :])
    return "".join(_apart(out)).encode("utf-8", "surrogateescape")


def _apart(lines: list[tuple[str, str]]) -> list[str]:
    """The lines as text, each ending where it ends: a lone `\\r` before a line that
    starts with `\\n` (an empty LF line the edit put next to it) would read as one
    `\\r\\n`, so it is written as `\\r\\n` there."""
    out = []
    for index, (text, end) in enumerate(lines):
        after = lines[index + 1] if index + 1 < len(lines) else ("", "")
        if end == "\r" and after == ("", "\n"):
            end = "\r\n"
        out.append(text + end)
    return out


def _lines(raw: str) -> list[tuple[str, str]]:
    """`raw`'s lines as (text, line end), the end one of `\\r\\n`, `\\r`, `\\n` or none."""
    lines = [(m.group(1), m.group(2)) for m in _LINE.finditer(raw)]
    if lines and lines[-1] == ("", ""):
        lines.pop()  # the empty match at the very end
    return lines


def _split(text: str) -> list[str]:
    """`text`'s lines, each with its `\\n` (the last one may have none)."""
    lines = text.split("\n")
    last = lines.pop()
    return [line + "\n" for line in lines] + ([last] if last else [])


def _end_at(lines: list[tuple[str, str]], at: int, usual: str) -> str:
    """The end of line `at`, or of the nearest line before it that has one."""
    for _, end in reversed(lines[: at + 1]):
        if end:
            return end
    return usual


def _usual_end(lines: list[tuple[str, str]]) -> str:
    """The file's most common line end; `\\n` for a file without one."""
    ends = Counter(end for _, end in lines if end)
    return ends.most_common(1)[0][0] if ends else "\n"
