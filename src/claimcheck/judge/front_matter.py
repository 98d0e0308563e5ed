"""YAML front matter: the metadata block a Markdown file may open with, which is not text.

A Hugging Face card starts with one (`---`, `license: apache-2.0`, `tags:` …, `---`);
the Hub shows it as the card's tags and widgets, never as prose, so a quote found only
there is not on the card as a reader reads it. `split_front_matter` tells the block
from the body. It reads the block shallowly, without a YAML parser: each top-level key
with its value as written (an inline scalar unquoted, a nested block or list as its
lines), which is all a report needs to show; the body is the rest of the file,
byte for byte.

A block counts as front matter only when the file's first line is `---`, a later line
closes it (`---`, or YAML's `...`), and every line in between is a top-level `key:`,
a line belonging to the key above it (indented, a `- ` item, a comment) or blank.
Anything else (a thematic break over a setext heading, prose between two rules) is
Markdown, and stays text.
"""

from __future__ import annotations

import re

_OPEN = re.compile(r"\A\ufeff?---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.MULTILINE)
_KEY = re.compile(
    r"""^(?P<key>"[^"\n]*"|'[^'\n]*'|[^\s:#'"-][^:#\n]*?)"""
    r""":(?:[ \t]+(?P<value>.*?))?[ \t]*$"""
)
_OWNED = re.compile(r"^(?:[ \t]|-(?:[ \t]|$))")
_COMMENT = re.compile(r"[ \t]+#")
_TRAILER = re.compile(r"(?:[ \t]+#.*)?")


def split_front_matter(text: str) -> tuple[dict[str, str] | None, str]:
    """The front matter's top-level keys and values, and the body after the block.

    `(None, text)` when the text opens with no front matter (see the module's rules);
    an empty block gives `{}`. A key with a nested value (a mapping, a list, a block
    scalar after `|` or `>`) maps to its lines without the indentation they share,
    after its inline text if any; a key given twice keeps its last value.
    """
    opening = _OPEN.match(text)
    if opening is None:
        return None, text
    closing = _CLOSE.search(text, opening.end())
    if closing is None:
        return None, text
    metadata: dict[str, str] = {}
    key: str | None = None
    inline = ""
    block: list[str] = []
    for line in text[opening.end() : closing.start()].splitlines():
        found = _KEY.match(line)
        if found is not None:
            if key is not None:
                metadata[key] = _value(inline, block)
            key, inline, block = _unquote(found["key"].strip()), _inline(found["value"]), []
        elif not line.strip() or line.lstrip().startswith("#"):
            if key is not None and block:
                block.append("")  # blank lines inside a block scalar are its text
        elif key is not None and _OWNED.match(line):
            block.append(line)
        else:
            return None, text  # not a mapping: Markdown that merely opens with a rule
    if key is not None:
        metadata[key] = _value(inline, block)
    return metadata, text[closing.end() :]


def front_matter_block(text: str) -> str | None:
    """The YAML of the front matter `text` opens with (between its `---` lines), for a
    claim on one of its fields to read whole; None when it opens with none (the same
    rules as `split_front_matter`)."""
    if split_front_matter(text)[0] is None:
        return None
    opening = _OPEN.match(text)
    closing = _CLOSE.search(text, opening.end()) if opening is not None else None
    if opening is None or closing is None:  # pragma: no cover - split found both
        return None
    return text[opening.end() : closing.start()]


def _value(inline: str, block: list[str]) -> str:
    """A key's value: its inline text, then its block's lines without their shared indent."""
    while block and not block[-1]:
        block.pop()
    cut = min((len(b) - len(b.lstrip(" \t")) for b in block if b), default=0)
    return "\n".join([*([inline] if inline else []), *(b[cut:] for b in block)])


def _inline(value: str | None) -> str:
    """An inline scalar as meant: quotes removed, a trailing ` # comment` dropped."""
    value = (value or "").strip()
    if value[:1] in ("'", '"'):
        end = value.find(value[0], 1)
        if end > 0 and _TRAILER.fullmatch(value[end + 1 :]):
            return value[1:end]
    return _COMMENT.split(value, maxsplit=1)[0].rstrip()


def _unquote(key: str) -> str:
    if len(key) >= 2 and key[0] == key[-1] and key[0] in "'\"":
        return key[1:-1]
    return key


def front_matter_lines(text: str) -> int:
    """How many lines the front matter takes at the top of `text` (0 when it has none):
    what a line of the body counts from, as a line of the whole file."""
    rest = split_front_matter(text)[1]
    return text[: len(text) - len(rest)].count("\n")
