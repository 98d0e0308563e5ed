"""Edit claim files in place: insert a claim, change a claim's anchor or check date.

ruamel.yaml's round-trip dumper keeps comments, but it re-indents a whole file to one
style and re-flows long scalars, so an author's file would change in lines nobody
meant to touch. Here ruamel.yaml parses the file and reports where each node starts
and ends; only those characters are replaced, every new scalar is written in the
style the file already uses for that key, and the result is parsed again and compared
with what was intended before the caller may write it.

A claim file this module creates starts with the schema's modeline
(`# yaml-language-server: $schema=...`), so editors complete and validate it; one it
edits keeps its lines, modeline or none, as they were.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from claimcheck.claims.fragment import FragmentError, build_text_fragment, split_text_fragment
from claimcheck.claims.parse import parse_claims
from claimcheck.claims.schema import MODELINE
from claimcheck.claims.written import written_like
from claimcheck.claims.yaml_read import read_document
from claimcheck.errors import ClaimcheckError
from claimcheck.models import Anchor
from claimcheck.store.files import atomic_write

# The order of a new claim's keys when the file has no claim to copy the order from.
CLAIM_KEYS = ("id", "claim", "source", "cited", "quote", "quote_end", "prefix", "suffix", "checked")
# Free text reads best double-quoted (it may hold ': ' or '#'); ids, URLs and dates plain.
_TEXT_STYLE = {k: '"' for k in ("claim", "cited", "quote", "quote_end", "prefix", "suffix")}
# Where a new anchor key goes: right after the first of these the claim has.
_AFTER = {
    "quote_end": ("quote",),
    "prefix": ("quote_end", "quote"),
    "suffix": ("prefix", "quote_end", "quote"),
}
_ANCHOR_KEYS = ("quote", "quote_end", "prefix", "suffix")
_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
# A YAML language server's modeline, pointing at a schema (ours or another).
_ANY_MODELINE = re.compile(r"^[ \t]*#[ \t]*yaml-language-server:", re.MULTILINE)


class EditError(ClaimcheckError):
    """A claim file cannot be edited as asked: its shape, or a claim that is not there."""

    hint = "edit the claim file by hand; `claimcheck lint` checks the result"


class _TextDates(SafeConstructor):
    """Leaves dates as text, so a value reads back exactly as it was written."""


_TextDates.add_constructor("tag:yaml.org,2002:timestamp", SafeConstructor.construct_yaml_str)


def _yaml() -> YAML:
    yaml = YAML(typ="safe", pure=True)
    yaml.Constructor = _TextDates
    return yaml


def new_claim_file(name: str, page: str, checked: str, entry: Mapping[str, str]) -> str:
    """The text of a new claim file holding one claim, laid out as docs/claim-files.md shows.

    Its first line is the schema's modeline, for editors.
    """
    nl = "\n"
    head = [f"page: {_render(page, None, 2, nl)}", f"checked: {checked}", "claims:"]
    order = sorted(entry, key=_canonical_rank)
    text = with_modeline(nl.join(head) + nl + _item_text(entry, order, {}, 2, 4, nl))
    _check(name, text, {"page": page, "checked": checked, "claims": [dict(entry)]})
    return text


def with_modeline(text: str) -> str:
    """`text` with the schema's modeline as its first line, unless a line is one already."""
    if _ANY_MODELINE.search(text):
        return text
    nl = "\r\n" if "\r\n" in text else "\n"
    return MODELINE + nl + text


def insert_claim(name: str, text: str, entry: Mapping[str, str]) -> str:
    """Append a claim to the file's `claims` list, in the file's own layout and styles."""
    doc = _Doc(name, text)
    claims = doc.claims()
    nl = doc.nl
    order = _key_order(claims, entry)
    styles = _styles(claims)
    if claims.flow_style:
        if claims.value:
            raise EditError(f"{name}: `claims` is a flow list [...]; write it as a block list")
        block = nl + _item_text(entry, order, styles, 2, 4, nl).removesuffix(nl)
        start = claims.start_mark.index
        while start > 0 and text[start - 1] == " ":
            start -= 1
        new = text[:start] + block + text[claims.end_mark.index :]
    else:
        last = claims.value[-1]
        key_col = last.start_mark.column
        line_start = text.rfind("\n", 0, last.start_mark.index) + 1
        dash_col = text.rfind("-", line_start, last.start_mark.index) - line_start
        if dash_col < 0:
            dash_col = max(0, key_col - 2)
            key_col = dash_col + 2
        spaced = len(claims.value) > 1 and _blank_line_between(text, claims.value[-2], line_start)
        item = (nl if spaced else "") + _item_text(entry, order, styles, dash_col, key_col, nl)
        new = _insert_at(text, _line_end_after(text, _last_leaf(last)), item, nl)
    expected = doc.data()
    expected["claims"].append(dict(entry))
    _check(name, new, expected)
    return new


def update_claim(
    name: str,
    text: str,
    claim_id: str,
    changes: Mapping[str, str | None],
    part: int | None = None,
) -> str:
    """Set (or, with None, remove) keys of one claim, changing no other line; with `part`
    (0-based), keys of that entry of the claim's `sources:` list."""
    expected = _Doc(name, text).data()
    target = _item_data(expected, claim_id, part)
    for key, value in changes.items():
        if target.get(key) == value or (value is None and key not in target):
            continue
        text = _change(_Doc(name, text), claim_id, key, value, part)
        if value is None:
            del target[key]
        else:
            target[key] = value
    _check(name, text, expected)
    return text


def set_anchor(
    name: str,
    text: str,
    claim_id: str,
    anchor: Anchor,
    checked: str | None,
    part: int | None = None,
) -> str:
    """Re-baseline a claim: its anchor becomes `anchor`, its check date `checked`.

    The anchor stays where the author keeps it: in the quote/prefix/suffix keys, or in
    the source URL's text fragment when the claim has no `quote` key. With `part`
    (0-based), the anchor of that entry of `sources:` changes, nothing else of the
    claim; `checked` None leaves the check date as it is.
    """
    item = _item_data(_Doc(name, text).data(), claim_id, part)
    changes: dict[str, str | None] = {}
    if "quote" in item or not isinstance(item.get("source"), str):
        changes.update({key: getattr(anchor, key) for key in _ANCHOR_KEYS})
    else:
        source = item["source"]
        try:
            _, current = split_text_fragment(source)
        except FragmentError as exc:
            raise EditError(f"{name}: claim {claim_id!r}: source: {exc}") from exc
        if current != anchor:
            if anchor.quote_end is not None:
                raise EditError(f"{name}: claim {claim_id!r}: a range text fragment cannot be set")
            changes["source"] = build_text_fragment(
                source, anchor.quote, anchor.prefix, anchor.suffix
            )
    text = update_claim(name, text, claim_id, changes, part)
    return text if checked is None else update_claim(name, text, claim_id, {"checked": checked})


REVIEWED_KEYS = ("date", "verdict", "version", "note", "until", "by")
"""The keys of a `reviewed:` entry, in the order `set_reviewed` writes them."""


def set_reviewed(name: str, text: str, claim_id: str, entry: Mapping[str, str]) -> str:
    """The claim's `reviewed:` entry set to `entry` (its values as text), as the claim's
    last key: a block mapping, one key a line, written in `REVIEWED_KEYS`' order. An
    entry the claim has already is replaced where it stands; no other line changes."""
    unknown = set(entry) - set(REVIEWED_KEYS)
    if unknown:  # pragma: no cover - a bug in the caller
        raise EditError(f"{name}: reviewed: unknown keys {sorted(unknown)}")
    expected = _Doc(name, text).data()
    _item_data(expected, claim_id)["reviewed"] = dict(entry)
    text, at = _without_reviewed(name, text, claim_id)
    doc = _Doc(name, text)
    item = doc.item(claim_id)
    nl, key_col = doc.nl, item.start_mark.column
    lines = [f"{' ' * key_col}reviewed:"]
    for key in REVIEWED_KEYS:
        if key in entry:
            style = '"' if key in ("note", "by") else None
            value = _render(entry[key], style, key_col + 4, nl)
            lines.append(f"{' ' * (key_col + 2)}{key}: {value}")
    block = nl.join(lines) + nl
    if at is None:
        at = _line_end_after(text, _last_leaf(item))
    new = _insert_at(text, at, block, nl)
    _check(name, new, expected)
    return new


def drop_reviewed(name: str, text: str, claim_id: str) -> str:
    """The claim without its `reviewed:` entry (as it is when it has none); no other
    line changes, the comments after the entry included."""
    expected = _Doc(name, text).data()
    if _item_data(expected, claim_id).pop("reviewed", None) is None:
        return text
    new, _ = _without_reviewed(name, text, claim_id)
    _check(name, new, expected)
    return new


def _without_reviewed(name: str, text: str, claim_id: str) -> tuple[str, int | None]:
    """The text without the claim's `reviewed:` lines, and where they stood (None: it
    had none). A block mapping's own end runs on over the comments after it, so the
    lines removed end at its last value's line."""
    item = _Doc(name, text).item(claim_id)
    if item.flow_style:
        raise EditError(f"{name}: claim {claim_id!r} is a flow mapping {{...}}")
    found = _get(item, "reviewed")
    if found is None:
        return text, None
    if item.value[0][0] is found[0]:
        raise EditError(f"{name}: claim {claim_id!r}: `reviewed` is on the list's dash line")
    at = text.rfind("\n", 0, found[0].start_mark.index) + 1
    return text[:at] + text[_line_end_after(text, _last_leaf(found[1])) :], at


def derive_id(page: str, claim: str, taken: set[str]) -> str:
    """`PAGE-first-words-of-the-claim`, numbered when taken; a hash for non-Latin text."""
    ascii_text = unicodedata.normalize("NFKD", claim).encode("ascii", "ignore").decode()
    slug = "-".join(re.findall(r"[a-z0-9]+", ascii_text.lower())[:6])[:40].strip("-")
    slug = slug or hashlib.sha256(claim.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    base = candidate = f"{page}-{slug}"
    number = 2
    while candidate in taken:
        candidate = f"{base}-{number}"
        number += 1
    return candidate


def write_claim_file(path: Path, text: str) -> None:
    """Write an edited claim file or article atomically: readers see the old file or the
    new, never a part.

    `text` is the edit of the file as `decode_utf8` reads it; the file's own bytes around
    the edit stay (`written_like`: its line ends, CRLF, LF or mixed, a final line end or
    none, a BOM), and so do its mode and, where the OS lets us, its owner. A new file is
    written as `text` is.
    """
    try:
        original = path.read_bytes()
    except FileNotFoundError:
        data = text.encode("utf-8")
    except OSError as exc:
        raise EditError(f"{path}: cannot read: {exc.strerror}") from exc
    else:
        data = written_like(original, text)
    atomic_write(path, data, keep_mode=True)


class _Doc:
    """One parse of a claim file: its node tree (with positions) and its line ending."""

    def __init__(self, name: str, text: str) -> None:
        self.name, self.text = name, text
        self.nl = "\r\n" if "\r\n" in text else "\n"
        try:
            root = _yaml().compose(text)
        except YAMLError as exc:
            raise EditError(f"{name}: cannot parse: {exc}") from exc
        if not isinstance(root, MappingNode):
            raise EditError(f"{name}: a claim file must be a mapping with page, checked, claims")
        self.root = root

    def data(self) -> dict[str, Any]:
        data = _yaml().load(self.text)
        assert isinstance(data, dict)
        return data

    def claims(self) -> SequenceNode:
        found = _get(self.root, "claims")
        if found is None or not isinstance(found[1], SequenceNode):
            raise EditError(f"{self.name}: the file has no `claims` list")
        return found[1]

    def item(self, claim_id: str, part: int | None = None) -> MappingNode:
        """The claim's mapping, or with `part` its `sources:` entry of that index."""
        for item in self.claims().value:
            found = _get(item, "id") if isinstance(item, MappingNode) else None
            if found is not None and found[1].value == claim_id:
                assert isinstance(item, MappingNode)
                return item if part is None else self._part(item, claim_id, part)
        raise EditError(f"{self.name}: no claim with id {claim_id!r}")

    def _part(self, item: MappingNode, claim_id: str, part: int) -> MappingNode:
        found = _get(item, "sources")
        entries = found[1].value if found and isinstance(found[1], SequenceNode) else []
        if not 0 <= part < len(entries) or not isinstance(entries[part], MappingNode):
            raise EditError(f"{self.name}: claim {claim_id!r} has no sources[{part + 1}]")
        entry = entries[part]
        assert isinstance(entry, MappingNode)
        return entry


def _get(mapping: MappingNode, key: str) -> tuple[ScalarNode, Node] | None:
    for k, v in mapping.value:
        if isinstance(k, ScalarNode) and k.value == key:
            return k, v
    return None


def _item_data(data: dict[str, Any], claim_id: str, part: int | None = None) -> dict[str, Any]:
    for item in data.get("claims") or []:
        if isinstance(item, dict) and item.get("id") == claim_id:
            if part is None:
                return item
            entries = item.get("sources")
            if isinstance(entries, list) and 0 <= part < len(entries):
                entry = entries[part]
                if isinstance(entry, dict):
                    return entry
            raise EditError(f"claim {claim_id!r} has no sources[{part + 1}]")
    raise EditError(f"no claim with id {claim_id!r}")


def _change(doc: _Doc, claim_id: str, key: str, value: str | None, part: int | None = None) -> str:
    """One key of one claim (or of its `sources[part]`) set, added or removed; the rest
    of the text untouched."""
    text, item = doc.text, doc.item(claim_id, part)
    found = _get(item, key)
    if found is not None and value is not None:
        key_node, node = found
        if not isinstance(node, ScalarNode):
            raise EditError(f"{doc.name}: claim {claim_id!r}: {key} is not a single value")
        start, end = node.start_mark.index, node.end_mark.index
        if node.style is None and start == end:  # `key:` with no value at all
            start = end = text.index(":", key_node.end_mark.index) + 1
            style = _styles(doc.claims()).get(key, _TEXT_STYLE.get(key))
            rendered = " " + _render(value, style, key_node.start_mark.column + 2, doc.nl)
        else:
            if node.style in ("|", ">"):
                end = start + len(text[start:end].rstrip())
            indent = _content_indent(text, node, key_node.start_mark.column + 2)
            rendered = _render(value, node.style, indent, doc.nl)
        return text[:start] + rendered + text[end:]
    if item.flow_style:
        raise EditError(f"{doc.name}: claim {claim_id!r} is a flow mapping {{...}}")
    if found is not None:
        return _remove(text, item, *found)
    key_col = item.start_mark.column
    after = next((f for k in _AFTER.get(key, ()) if (f := _get(item, k)) is not None), None)
    leaf = after[1] if after is not None else _last_leaf(item)
    style = _styles(doc.claims()).get(key, _TEXT_STYLE.get(key))
    line = f"{' ' * key_col}{key}: {_render(value, style, key_col + 2, doc.nl)}{doc.nl}"
    return _insert_at(text, _line_end_after(text, leaf), line, doc.nl)


def _remove(text: str, item: MappingNode, key: ScalarNode, value: Node) -> str:
    if item.value[0][0] is key:  # on the list's dash line: pull the next key up
        if len(item.value) == 1:
            raise EditError("cannot remove the only key of a claim")
        return text[: key.start_mark.index] + text[item.value[1][0].start_mark.index :]
    line_start = text.rfind("\n", 0, key.start_mark.index) + 1
    return text[:line_start] + text[_line_end_after(text, value) :]


def _item_text(
    entry: Mapping[str, str],
    order: list[str],
    styles: Mapping[str, str | None],
    dash_col: int,
    key_col: int,
    nl: str,
) -> str:
    """A claim as block-list lines, ending with a line break."""
    lines = []
    for position, key in enumerate(order):
        lead = " " * dash_col + "-" + " " * (key_col - dash_col - 1) if position == 0 else ""
        lead = lead or " " * key_col
        style = styles.get(key, _TEXT_STYLE.get(key))
        lines.append(f"{lead}{key}: {_render(entry[key], style, key_col + 2, nl)}")
    return nl.join(lines) + nl


def _key_order(claims: SequenceNode, entry: Mapping[str, str]) -> list[str]:
    """The new claim's keys in the order the file's last sourced claim uses."""
    items = [i for i in claims.value if isinstance(i, MappingNode)]
    sourced = [i for i in items if _get(i, "source") is not None]
    reference = sourced[-1] if sourced else (items[-1] if items else None)
    keys = [k.value for k, _ in reference.value if isinstance(k, ScalarNode)] if reference else []

    def rank(key: str) -> tuple[int, int, int]:
        if key in keys:
            return keys.index(key), 0, 0
        before = [k for k in CLAIM_KEYS[: _canonical_rank(key)] if k in keys]
        return (keys.index(before[-1]) if before else -1), 1, _canonical_rank(key)

    return sorted(entry, key=rank)


def _canonical_rank(key: str) -> int:
    return CLAIM_KEYS.index(key) if key in CLAIM_KEYS else len(CLAIM_KEYS)


def _styles(claims: SequenceNode) -> dict[str, str | None]:
    """The scalar style the file uses for each key (its last claim's, when they differ)."""
    styles: dict[str, str | None] = {}
    for item in claims.value:
        if isinstance(item, MappingNode):
            for key, value in item.value:
                if isinstance(key, ScalarNode) and isinstance(value, ScalarNode) and value.value:
                    styles[key.value] = value.style
    return styles


def _render(value: str | None, style: str | None, indent: int, nl: str) -> str:
    """`value` as a scalar in `style` when that style can hold it exactly, else quoted.

    Each candidate is parsed back before it is used, so a value that YAML would read
    differently (a number, a date, `a: b`, a leading space) falls back to quotes.
    """
    if value is None:
        raise EditError("cannot write an empty value")
    text: str = value
    candidates: list[Callable[[], str | None]] = []
    if style in ("|", ">"):
        candidates.append(lambda: _block(text, style, indent, nl))
    elif style == "'":
        candidates.append(lambda: None if "\n" in text else "'" + text.replace("'", "''") + "'")
    elif style is None:
        candidates.append(lambda: text if text == text.strip() and "\n" not in text else None)
    candidates.append(lambda: _double(text))
    for candidate in candidates:
        rendered = candidate()
        if rendered is not None and _reads_back(rendered, text):
            return rendered
    raise EditError(f"cannot write {value!r} as a YAML scalar")  # pragma: no cover


def _double(value: str) -> str:
    """A double-quoted scalar: printable characters as they are, the rest escaped."""
    out = []
    for char in value:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif _printable(code):
            out.append(char)
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def _printable(code: int) -> bool:
    """YAML's printable characters, less the ones some readers take for line breaks."""
    if code in (0x85, 0x2028, 0x2029, 0xFEFF):
        return False
    return (
        0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or code >= 0x10000
    )


def _block(value: str, style: str, indent: int, nl: str) -> str | None:
    """A literal (|) or folded (>) block scalar holding `value` exactly, if it can."""
    body = value.removesuffix("\n")
    if not body or body.endswith("\n") or body[0] in " \t" or (style == ">" and "\n" in body):
        return None
    chomp = "" if value.endswith("\n") else "-"
    lines = [" " * indent + line if line else "" for line in body.split("\n")]
    return style + chomp + nl + nl.join(lines)


def _reads_back(rendered: str, value: str) -> bool:
    try:
        data = _yaml().load("k: " + rendered + "\n")
    except YAMLError:
        return False
    return isinstance(data, dict) and data.get("k") == value


def _content_indent(text: str, node: ScalarNode, default: int) -> int:
    """The indentation of a block scalar's first content line."""
    if node.style not in ("|", ">"):
        return default
    end = node.end_mark.index
    for line in text[node.start_mark.index : end].splitlines()[1:]:
        if line.strip():
            return len(line) - len(line.lstrip(" "))
    return default


def _last_leaf(node: Node) -> Node:
    while isinstance(node, MappingNode | SequenceNode) and node.value:
        last = node.value[-1]
        node = last[1] if isinstance(last, tuple) else last
    return node


def _line_end_after(text: str, node: Node) -> int:
    """Where the line holding the end of `node`'s content ends (past a trailing comment)."""
    start, end = node.start_mark.index, node.end_mark.index
    last = start + len(text[start:end].rstrip())
    at = text.find("\n", last)
    return len(text) if at == -1 else at + 1


def _blank_line_between(text: str, previous: Node, line_start: int) -> bool:
    """Whether the file separates its claims with a blank line (before the last one)."""
    gap = text[_line_end_after(text, _last_leaf(previous)) : line_start]
    return any(not line.strip() for line in gap.splitlines())


def _insert_at(text: str, at: int, lines: str, nl: str) -> str:
    if at == len(text) and text and not text.endswith("\n"):
        lines = nl + lines
    return text[:at] + lines + text[at:]


def _check(name: str, text: str, expected: dict[str, Any]) -> None:
    """The edited text must read as exactly the intended data and be a valid claim file.

    The parser is the one judge of the values: one it refuses (blank text, or a control
    character or lone surrogate, which `_render` writes as an escape) is refused with its
    ClaimFileError, whose problem names the claim and field, so a caller can say it as
    whatever gave the value (`add` names its option).
    """
    try:
        data = _yaml().load(text)
    except YAMLError as exc:  # pragma: no cover - a bug in this module
        raise EditError(f"{name}: the edit would not parse: {exc}") from exc
    if data != expected:  # pragma: no cover - a bug in this module
        raise EditError(f"{name}: the edit would change more than intended; nothing written")
    parse_claims([(name, text)], read=read_document)
