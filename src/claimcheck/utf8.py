"""The text of a file a person writes (a claim file, an article, claimcheck.toml), as UTF-8.

Python's decoding error names a byte offset (`position 105`), which no editor shows: a
person fixing the file needs the line and column of the first byte that is not UTF-8,
as every other problem of the file gives them. `decode_utf8` gives the text as
`Path.read_text` would, or a `NotUtf8Error` that says where that byte is; each kind of
file says it in its own form (`file:line: field: ...`). Pure: the caller reads the bytes.
"""

from __future__ import annotations


class NotUtf8Error(ValueError):
    """A file's first byte that is not UTF-8: its line and column (from 1), as an editor
    counts them (the column in characters), and the byte itself.

    `before` is the file's text up to that byte (it decodes), for a caller that names the
    key it belongs to. `str()` is the message, without the file and line.
    """

    def __init__(self, line: int, column: int, byte: int, before: str) -> None:
        self.line = line
        self.column = column
        self.byte = byte
        self.before = before
        super().__init__(
            f"column {column} is byte 0x{byte:02X}, which is not UTF-8: save the file as UTF-8"
        )


def decode_utf8(data: bytes) -> str:
    """`data` as text, its line ends read as `Path.read_text` reads them (`\\r\\n` and a
    lone `\\r` are `\\n`), so that lines count the same whichever way a file is read;
    a `NotUtf8Error` at the first byte that is not UTF-8."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = _newlines(data[: exc.start].decode("utf-8"))
        line_start = before.rfind("\n") + 1
        raise NotUtf8Error(
            line=before.count("\n") + 1,
            column=len(before) - line_start + 1,
            byte=data[exc.start],
            before=before,
        ) from None
    return _newlines(text)


def _newlines(text: str) -> str:
    """Universal newlines, as text mode reads a file (most files have no `\\r` at all)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text
