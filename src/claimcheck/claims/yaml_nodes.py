"""Read a claim file's YAML with libyaml's C parser into plain values that know their lines.

Claim files were read with ruamel.yaml's pure-Python round-trip loader: 1.5 ms a claim,
15 seconds for a desk of 10,000. libyaml (PyYAML's C extension) parses and composes the
same text a hundred times faster, but PyYAML would then build values by YAML 1.1 rules,
where `no` is False, `010` is 8 and `1:20` is 80. So only libyaml's node tree is used, and
this module builds the values from it by the rules the claim files were always read by,
ruamel's: YAML 1.2 (1.1 only under a `%YAML 1.1` directive), dates left as text for
pydantic to check, merge keys (`<<`) merged, duplicate keys an error in ruamel's words,
keys that are lists or mappings kept as ruamel kept them. Those rules, and the patterns
that decide a plain scalar's type, are ruamel's, copied; `tests/claims/test_read_parity.py`
holds the two readers to the same claims and problems.

What libyaml reads differently is undone around it, keeping every line and column:

* A `"\\ud83d\\udda5"` escape (how JSON writers spell a character outside the BMP) is
  an error to libyaml; ruamel read two lone halves, which the parser joins. Each
  surrogate escape of a double-quoted scalar is swapped for the escape, of the same
  length, of a stand-in character, and swapped back in the values.
* U+2028, U+2029 and U+0085 are line breaks to libyaml, which would number every later
  line one more; ruamel counted no line for them. They are swapped for private-use
  stand-ins, and put back as ruamel read them.
* Anchors, aliases, tags and nesting deeper than `max_depth` are refused as before, in
  the same words and at the same line: the node tree is used only when no node starts
  with `&` or `!` and none is too deep; otherwise the events are read once more, in
  order, to find the first refused, where ruamel's composer stopped. libyaml shares an
  aliased node rather than copying it, so a "billion laughs" file costs its size, never
  its expansion, and it stops by itself at 1,000 levels of nesting.

What is left differs only for files ruamel refused or crashed on: libyaml words (and
sometimes places) a syntax error its own way; it reads a tab inside a line, where ruamel
refused one; it refuses an empty key (`: x`), which ruamel read as `None`; a NEL is now a
control character `bad_character` reports (ruamel took it for a newline); and a number
ruamel's constructor crashed on (`0x_`) is reported as a number it cannot read.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar, NoReturn

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from claimcheck._compat.yaml_parser import tag_free_parser
from claimcheck.claims.yaml_values import (
    Document,
    InvalidError,
    KeyMap,
    KeySeq,
    Map,
    ReadError,
    RefusedError,
    Seq,
    TaggedScalar,
    UnreadableError,
)

__all__ = [
    "DEFAULT_VERSION",
    "UNMARKED_ERRORS",
    "Document",
    "InvalidError",
    "KeyMap",
    "KeySeq",
    "Map",
    "ReadError",
    "RefusedError",
    "Seq",
    "TaggedScalar",
    "UnreadableError",
    "read_yaml",
]

DEFAULT_VERSION = (1, 2)
"""ruamel's default, and so the claim files': `yes`, `no`, `on`, `010` are text or decimal."""

# ruamel's reader refuses these characters before it reads anything (YAML's printable set).
_NON_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)
# Characters `parse.bad_character` reports; only a double-quoted escape can put one in a
# value, unless the text holds one itself (a carriage return, a NEL).
_BAD_CHARACTER = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Either of the two above, or a noncharacter: one pass over the text says both are clean.
_SUSPECT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_MAYBE_SURROGATE_ESCAPE = re.compile(r"\\(?:u|U0000)[dD][89a-fA-F]")
# Every escape of a double-quoted scalar is `\` and one more character (then digits, which
# hold no backslash), so reading pairs from the start stays in step with the scalar's own
# escapes; groups 1 and 2 are the hex of a `\uD8xx` or `\U0000D8xx` surrogate escape.
_ESCAPE = re.compile(
    r"\\(?:u([dD][89a-fA-F][0-9a-fA-F]{2})|U0000([dD][89a-fA-F][0-9a-fA-F]{2})|.)", re.DOTALL
)
# Stand-ins for surrogate escapes: characters that no escape letter produces; the one
# used is the first the file holds in no form, so every stand-in read back is one of ours.
_STAND_INS = [*range(0x01, 0x07), *range(0x0E, 0x1B), *range(0x1C, 0x20), *range(0xFDD0, 0xFDF0)]

# ruamel's implicit resolvers (ruamel/yaml/resolver.py), for the two versions it reads:
# the first that matches a plain scalar decides its type. Dates are left as text (the
# claim-file parser gave them to pydantic as text), so the timestamp pattern is not here.
_BOOL_12 = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_BOOL_11 = re.compile(
    r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$"
)
_FLOAT_12 = re.compile(
    r"""^(?:
     [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
    |[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.X,
)
_FLOAT_11 = re.compile(
    r"""^(?:
     [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
    |\.[0-9_]+(?:[eE][-+][0-9]+)?
    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.X,
)
_INT_12 = re.compile(
    r"""^(?:[-+]?0b[0-1_]+
    |[-+]?0o?[0-7_]+
    |[-+]?[0-9_]+
    |[-+]?0x[0-9a-fA-F_]+)$""",
    re.X,
)
_INT_11 = re.compile(
    r"""^(?:[-+]?0b[0-1_]+
    |[-+]?0?[0-7_]+
    |[-+]?(?:0|[1-9][0-9_]*)
    |[-+]?0x[0-9a-fA-F_]+
    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$""",
    re.X,
)
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_NUMBER_START = frozenset("-+0123456789.")
_INT_START = frozenset("-+0123456789")
_BOOL_START_12 = frozenset("tTfF")
_BOOL_START_11 = frozenset("yYnNtTfFoO")
_NULL_START = frozenset("~nN")
_MERGE_TAG = "tag:yaml.org,2002:merge"
_VALUE_TAG = "tag:yaml.org,2002:value"
# ruamel's float constructor returns one NaN object, so two `.nan` keys are one key.
_NAN = float("nan")
_INF = float("inf")
# The names ruamel's containers gave a TypeError about a key that cannot be hashed.
_RUAMEL_NAMES = {"Seq": "CommentedSeq", "Map": "CommentedMap"}
_NOT_CACHED = object()
_RUAMEL_NAME = re.compile(r"'(\w+)'")

_ANCHOR_OR_ALIAS = "anchors and aliases are not allowed in a claim file; write the value out"
# ruamel's anchor names (`check_anchorname_char`) and what may follow one.
_RUAMEL_ANCHOR_NAME = re.compile("[^\x00-\x20\x7f-\x9f,\\[\\]{}\ufeff\ud800-\udfff\ufffe\uffff]+")
_AFTER_ANCHOR_NAME = frozenset(["", *" \t\r\n\x85\u2028\u2029?:,[]{}%@`"])
_TAG = "tags are not allowed in a claim file; write plain text"
_DEPTH = "a claim file needs 4"


class _StandIns:
    """The surrogate escapes swapped for a stand-in, and the codes they stand for.

    Each `\\uD83D` (or `\\U0000D83D`) becomes the escape, of the same length, of
    `placeholder`: a character no other part of the text spells, so that each one in a
    value is one of these, in order.
    """

    def __init__(self, placeholder: str, escapes: list[re.Match[str]]) -> None:
        self.placeholder = placeholder
        self.escapes = escapes
        self.positions = [m.start() for m in escapes]
        self.codes = [int(m.group(1) or m.group(2), 16) for m in escapes]

    def within(self, start: int, end: int) -> tuple[int, int]:
        """The range of escapes (indexes) that lie between `start` and `end`."""
        return bisect_left(self.positions, start), bisect_left(self.positions, end)


UNMARKED_ERRORS = (yaml.YAMLError, RecursionError, ValueError, TypeError)
"""What reading may raise besides a `ReadError`: an error with no line to show."""


def read_yaml(text: str, max_depth: int) -> Document:
    """The one YAML document in `text` (its value None when there is none).

    Raises `UnreadableError`, `RefusedError` or `InvalidError` (each with its line), or,
    as ruamel did for a number its constructor could not read, `ValueError` or `TypeError`.
    """
    suspect = _SUSPECT.search(text) is not None
    bad = _NON_PRINTABLE.search(text) if suspect else None
    if bad is not None:
        position = bad.start()
        raise UnreadableError(text.count("\n", 0, position) + 1, position, ord(bad.group()))
    separators = None
    if "\u2028" in text or "\u2029" in text or "\x85" in text:
        text, separators = _swap_separators(text)
    directive = text.startswith("%") or "\n%" in text  # a line starting with `%`
    version = _version(text) if directive else DEFAULT_VERSION
    escapes: list[re.Match[str]] = []
    placeholder = None
    if _MAYBE_SURROGATE_ESCAPE.search(text):
        escapes = [m for m in _ESCAPE.finditer(text) if m.group(1) or m.group(2)]
        placeholder = _placeholder(text)
    spaced = separators is None
    while True:
        stand_ins = _StandIns(placeholder, escapes) if escapes and placeholder else None
        composed = _swapped(text, stand_ins) if stand_ins else text
        root = _compose(composed, max_depth)
        if root is None:
            return Document(None, False, set(), None)
        if not spaced:
            spaced = True
            assert separators is not None
            text = _space_separators(text, composed, root, separators)
            if text != composed:
                continue
        builder = _Builder(composed, version, max_depth, stand_ins, separators, suspect)
        try:
            document = builder.build(root)
        except (InvalidError, RefusedError, ValueError, TypeError):
            if not builder.misplaced:
                raise
        if not builder.misplaced:
            return document
        # A surrogate escape outside a double-quoted scalar is text: keep it as written.
        escapes = [m for m in escapes if m.start() not in builder.misplaced]


def _compose(text: str, max_depth: int) -> Node | None:
    try:
        node: Node | None = tag_free_parser()(text).get_single_node()
    except yaml.MarkedYAMLError as exc:
        _refuse_first(text, max_depth)
        mark = exc.problem_mark
        if mark is not None and "maximum nesting depth" in str(exc.problem):
            # libyaml stops at 1,000 levels while it still looks ahead for a key, before
            # the first event; up to there, the events show where ruamel refused.
            _refuse_first(text[: mark.index], max_depth)
        _refuse_ruamel_anchor(text, exc)
        raise _invalid(exc) from None
    return node


def _refuse_ruamel_anchor(text: str, exc: yaml.MarkedYAMLError) -> None:
    """Refuse an anchor or alias that libyaml cannot read but ruamel could (`*emphasis*`).

    libyaml takes only letters, digits, `-` and `_` in a name; ruamel took any printable
    character but `,[]{}`, so it refused `claim: *Fast* inference` as an alias, in words
    that say what to do, where libyaml fails to scan it.
    """
    mark = exc.context_mark
    if mark is None or exc.context not in ("while scanning an alias", "while scanning an anchor"):
        return
    name = _RUAMEL_ANCHOR_NAME.match(text, mark.index + 1)
    if name is None or text[name.end() : name.end() + 1] not in _AFTER_ANCHOR_NAME:
        return
    kind = "an alias *" if text[mark.index] == "*" else "an anchor &"
    raise RefusedError(mark.line + 1, f"{kind}{name.group()}: {_ANCHOR_OR_ALIAS}")


def _invalid(exc: yaml.MarkedYAMLError) -> InvalidError:
    """libyaml's error in the words the parser always gave: what it read, and what it found."""
    context, problem = exc.context, exc.problem
    if context and exc.context_mark is not None and exc.context_mark is not exc.problem_mark:
        context = f"{context} (from line {exc.context_mark.line + 1})"
    told = ", ".join(str(part) for part in (context, problem) if part) or "cannot be read"
    mark = exc.problem_mark or exc.context_mark
    return InvalidError(mark.line + 1 if mark is not None else 1, told)


def _construction_error(
    context_node: Node, problem: str, problem_node: Node
) -> InvalidError:  # ruamel's ConstructorError and DuplicateKeyError, with the same words
    context = f"while constructing a mapping (from line {context_node.start_mark.line + 1})"
    return InvalidError(problem_node.start_mark.line + 1, f"{context}, {problem}")


def _refuse_first(text: str, max_depth: int) -> None:
    """Raise `RefusedError` for the first anchor, alias, tag or too deep node of the document.

    Reads the events in order, as ruamel's composer met them, and returns quietly at the
    end of the first document or at a YAML error (which is then the one to report).
    """
    parser = tag_free_parser()(text)
    depth = 0
    try:
        while True:
            event = parser.get_event()
            if isinstance(event, yaml.AliasEvent):
                _refuse(event, f"an alias *{event.anchor}: {_ANCHOR_OR_ALIAS}")
            if isinstance(event, yaml.NodeEvent):
                if event.anchor is not None:
                    _refuse(event, f"an anchor &{event.anchor}: {_ANCHOR_OR_ALIAS}")
                tag = getattr(event, "tag", None)
                if tag is not None:
                    _refuse(event, f"a tag {tag}: {_TAG}")
                if depth >= max_depth:
                    _refuse(event, f"nested more than {max_depth} levels deep; {_DEPTH}")
                if isinstance(event, yaml.CollectionStartEvent):
                    depth += 1
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
            elif isinstance(event, (yaml.DocumentEndEvent, yaml.StreamEndEvent)):
                return
    except yaml.YAMLError:
        return


def _refuse(event: yaml.Event, message: str) -> NoReturn:
    line = event.start_mark.line + 1 if event.start_mark is not None else 1
    raise RefusedError(line, message)


def _version(text: str) -> tuple[int, int]:
    """The `%YAML` version the document declares: ruamel read `%YAML 1.1` by YAML 1.1 rules."""
    parser = tag_free_parser()(text)
    try:
        while True:
            event = parser.get_event()
            if isinstance(event, yaml.DocumentStartEvent):
                return event.version or DEFAULT_VERSION
            if isinstance(event, yaml.StreamEndEvent):
                return DEFAULT_VERSION
    except yaml.YAMLError:  # reported when the text is composed
        return DEFAULT_VERSION


def _placeholder(text: str, candidates: Iterable[int] = _STAND_INS) -> str | None:
    """The first candidate character the text holds neither as itself nor as an escape."""
    for code in candidates:
        char = chr(code)
        spelled = rf"\\(?:u{code:04x}|U{code:08x})"
        if code < 0x100:
            spelled = rf"\\(?:x{code:02x}|u{code:04x}|U{code:08x})"
        if char not in text and re.search(spelled, text, re.IGNORECASE) is None:
            return char
    return None


def _swap_separators(text: str) -> tuple[str, dict[str, str]]:
    """The text with each U+2028, U+2029 and U+0085 swapped for a private-use stand-in.

    libyaml (YAML 1.1) takes them for line breaks: they would start a line for it, and
    move every later line number, where ruamel (YAML 1.2) counted no line for them and
    read on. As stand-ins they are text to libyaml; `_Builder` puts them back.
    """
    table: dict[str, str] = {}
    candidates = iter(range(0xE000, 0xF900))
    for separator in "\u2028\u2029\x85":
        if separator in text:
            stand_in = _placeholder(text, candidates)
            if stand_in is None:  # every private-use character is in the text: leave it
                continue
            text = text.replace(separator, stand_in)
            table[stand_in] = separator
    return text, table


def _space_separators(text: str, composed: str, root: Node, separators: dict[str, str]) -> str:
    """The text with each separator stand-in that is not inside a scalar made a space.

    ruamel skipped a separator between tokens as the line break it took it for (so
    `key:\u2028!!binary x` is a tag, refused); as a stand-in it would start a plain
    scalar, or widen one at its start or end. `composed` is the text the tree was
    composed from (`text` with surrogate escapes swapped: the same length).
    """
    scalars: list[tuple[int, int, str]] = []
    for node in _scalar_nodes(root):
        scalars.append((node.start_mark.index, node.end_mark.index, node.style))
    scalars.sort()
    starts = [start for start, _, _ in scalars]
    chars = list(text)
    stand_ins = "".join(separators)
    for match in re.finditer(f"[{stand_ins}]", composed):
        at = match.start()
        index = bisect_right(starts, at) - 1
        if index >= 0 and at < scalars[index][1]:
            start, end, style = scalars[index]
            before, after = composed[start:at], composed[at:end]
            if style != "" or (before.strip(stand_ins) and after.strip(stand_ins)):
                continue  # inside a quoted or block scalar, or between words of a plain one
        chars[at] = " "
    return "".join(chars)


def _scalar_nodes(root: Node | None) -> Iterator[ScalarNode]:
    """Each scalar node of the tree, each shared (aliased) node once."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            yield node
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            stack.extend(n for pair in node.value for n in pair)


def _swapped(text: str, stand_ins: _StandIns) -> str:
    parts, last = [], 0
    code = ord(stand_ins.placeholder)
    for match in stand_ins.escapes:
        escape = f"\\u{code:04x}" if match.group(1) else f"\\U{code:08x}"
        parts += [text[last : match.start()], escape]
        last = match.end()
    parts.append(text[last:])
    return "".join(parts)


class _Builder:
    """Builds the values of a composed document by ruamel's round-trip rules.

    ruamel composed the whole document before it built a value, so a refusal anywhere
    comes before a duplicate key or a bad number: those are raised only once the events
    show nothing was to be refused. This is the hot loop of reading claims: keys are
    resolved once per file (they repeat), and a file without `&` or `!` has no node
    that could start with one.
    """

    _BOOL_VALUES: ClassVar[dict[str, bool]] = {
        "yes": True,
        "no": False,
        "y": True,
        "n": False,
        "true": True,
        "false": False,
        "on": True,
        "off": False,
    }

    def __init__(
        self,
        text: str,
        version: tuple[int, int],
        max_depth: int,
        stand_ins: _StandIns | None,
        separators: dict[str, str] | None = None,
        suspect: bool = True,
    ) -> None:
        self.text = text
        self.probe = text + " "  # an empty scalar at the very end starts after the text
        self.markers = "&" in text or "!" in text
        self.version = version
        self.max_depth = max_depth
        self.stand_ins = stand_ins
        self.separators = separators or None
        self.put_back = re.compile("[" + "".join(separators) + "]") if separators else None
        self.slow = self.put_back is not None
        self.yaml11 = version == (1, 1)
        self.bool_start = _BOOL_START_11 if self.yaml11 else _BOOL_START_12
        # What a plain scalar starts with when a resolver may make it more than text.
        self.typed_start = _NUMBER_START | self.bool_start | _NULL_START | {"<", "="}
        self.merges = "<<" in text
        # Without such a character in the text, only an escape can put one in a value.
        self.check_all = suspect and _BAD_CHARACTER.search(text) is not None
        self.bad_text = False
        self.changes = 0
        """Keys that are not text and strings to join, so far: what `converted` counts."""
        self.converted: set[int] = set()
        self.keys: dict[str, object] = {}
        self.misplaced: set[int] = set()
        """Where a swapped surrogate escape turned out not to be in a double-quoted scalar."""

    def build(self, root: Node) -> Document:
        try:
            value = self._node(root, 1)
        except (InvalidError, ValueError, TypeError):
            _refuse_first(self.text, self.max_depth)
            raise
        return Document(value, self.bad_text, self.converted, self)

    def key_lines(self, node: MappingNode) -> dict[Any, int]:
        """The line of each own key of a built mapping (merged keys have none)."""
        lines: dict[Any, int] = {}
        for key_node, _ in node.value:
            if not _is_merge(key_node):
                key = self._key(key_node, 1)
                lines.setdefault(key, int(key_node.start_mark.line) + 1)
        return lines

    def _suspect(self, node: Node) -> NoReturn:
        """A node starts with `&` or `!`, or is nested too deep: find what ruamel refused."""
        _refuse_first(self.text, self.max_depth)
        # Not reached: such a node is always refused; if not, say what was seen.
        raise RefusedError(node.start_mark.line + 1, "cannot be read: anchor, tag or deep nesting")

    def _node(self, node: Node, depth: int) -> object:
        if depth > self.max_depth or (self.markers and self.probe[node.start_mark.index] in "&!"):
            self._suspect(node)
        kind = type(node)
        if kind is ScalarNode:
            return self._scalar(node, False)  # type: ignore[arg-type]
        if kind is MappingNode:
            return self._mapping(node, depth)  # type: ignore[arg-type]
        return self._sequence(node, depth)  # type: ignore[arg-type]

    def _sequence(self, node: SequenceNode, depth: int) -> Seq:
        seq = Seq()
        seq.node = node
        changes = self.changes
        build, below = self._node, depth + 1
        seq.extend([build(child, below) for child in node.value])
        if self.changes != changes:
            self.converted.add(id(seq))
        return seq

    def _key(self, key_node: Node, depth: int) -> Any:
        """The key a key node makes: keys repeat, so a plain one is resolved once a file."""
        if type(key_node) is not ScalarNode:
            built = self._node(key_node, depth + 1)
            self.changes += 1
            return KeySeq(built) if isinstance(built, Seq) else KeyMap(built)  # type: ignore[arg-type]
        if depth >= self.max_depth or (
            self.markers and self.probe[key_node.start_mark.index] in "&!"
        ):
            self._suspect(key_node)
        raw = key_node.value
        cacheable = key_node.style == "" and (self.stand_ins is None or "\\" not in raw)
        key = self.keys.get(raw, _NOT_CACHED) if cacheable else _NOT_CACHED
        if key is _NOT_CACHED:
            key = self._scalar(key_node, True)
            if cacheable:
                self.keys[raw] = key
        if type(key) is not str:
            self.changes += 1
        return key

    def _mapping(self, node: MappingNode, depth: int) -> Map:
        mapping = Map()
        mapping.node = node
        pairs: list[tuple[Node, Node]] = node.value
        merged: list[Map] = []
        if self.merges and any(_is_merge(key) for key, _ in pairs):
            pairs, merged = self._merges(node, depth)
        changes = self.changes
        below = depth + 1
        # The common case inlined: a plain key seen before, a quoted or block value
        # (text), no `&` or `!` in the file, no line separators to put back.
        plain = not self.markers and below <= self.max_depth and not self.slow
        keys, stand_ins = self.keys, self.stand_ins
        for key_node, value_node in pairs:
            key = _NOT_CACHED
            if plain and type(key_node) is ScalarNode and key_node.style == "":
                key = keys.get(key_node.value, _NOT_CACHED)
                if key is not _NOT_CACHED and type(key) is not str:
                    self.changes += 1
            if key is _NOT_CACHED:
                key = self._key(key_node, depth)
            if type(value_node) is not ScalarNode or below > self.max_depth:
                value = self._node(value_node, below)
            elif plain and value_node.style and not self.check_all:
                value = value_node.value
                if stand_ins is not None and (
                    stand_ins.placeholder in value or "\\" in value
                ):  # swapped escapes to put back, or one that was text
                    value = self._restore(value_node, value)
                if value_node.style == '"' and _BAD_CHARACTER.search(value):
                    self._check_joined(value)
            elif (
                plain
                and not self.check_all
                and (text := value_node.value)
                and text[0] not in self.typed_start
                and (stand_ins is None or "\\" not in text)
            ):
                value = text  # a plain scalar no type but text can start so
            else:
                if self.markers and self.probe[value_node.start_mark.index] in "&!":
                    self._suspect(value_node)
                value = self._scalar(value_node, False)
            try:
                duplicate = key in mapping
            except TypeError as exc:  # an unhashable key inside a key, named as ruamel did
                raise TypeError(_RUAMEL_NAME.sub(_ruamel_name, str(exc))) from None
            if duplicate:
                raise _construction_error(
                    node,
                    f'found duplicate key "{key}" with value "{value}" '
                    f'(original value: "{mapping[key]}")',
                    key_node,
                )
            mapping[key] = value
        for other in merged:  # the mapping's own keys first, then the earlier merge
            for key, value in other.items():
                if key not in mapping:
                    mapping[key] = value
            if id(other) in self.converted:
                self.changes += 1
        if self.changes != changes:
            self.converted.add(id(mapping))
        return mapping

    def _merges(self, node: MappingNode, depth: int) -> tuple[list[tuple[Node, Node]], list[Map]]:
        """ruamel's merge keys: the pairs left once each `<<` is taken out, and what it merges.

        ruamel built the merged mappings first, before any key of the mapping itself.
        """
        pairs: list[tuple[Node, Node]] = []
        merged: list[Map] = []
        for key_node, value_node in node.value:
            if not _is_merge(key_node):
                pairs.append((key_node, value_node))
                continue
            if depth >= self.max_depth or (
                self.markers and self.probe[key_node.start_mark.index] in "&!"
            ):
                self._suspect(key_node)
            if merged:
                raise _construction_error(node, 'found duplicate merge key "<<"', key_node)
            if isinstance(value_node, MappingNode):
                merged.append(self._node(value_node, depth + 1))  # type: ignore[arg-type]
            elif isinstance(value_node, SequenceNode):
                items = self._node(value_node, depth + 1)
                assert isinstance(items, Seq)
                for item, subnode in zip(items, value_node.value, strict=True):
                    if not isinstance(subnode, MappingNode):
                        raise _construction_error(
                            node, f"expected a mapping for merging, but found {subnode.id}", subnode
                        )
                    merged.append(item)
            else:
                raise _construction_error(
                    node,
                    "expected a mapping or list of mappings for merging, "
                    f"but found {value_node.id}",
                    value_node,
                )
        return pairs, merged

    def _scalar(self, node: ScalarNode, is_key: bool) -> object:
        value: str = node.value
        style = node.style
        if self.put_back is not None and self.put_back.search(value):
            value = self._put_back(value, style)
        if self.stand_ins is not None:
            value = self._restore(node, value)
        if style:  # quoted or block: text
            if (style == '"' or self.check_all) and _BAD_CHARACTER.search(value):
                self._check_joined(value)
            return value
        first = value[:1]
        if first in _NUMBER_START:
            if (_FLOAT_11 if self.yaml11 else _FLOAT_12).match(value):
                return self._float(value)
            if first in _INT_START and (_INT_11 if self.yaml11 else _INT_12).match(value):
                return self._int(value)
        elif first in self.bool_start:
            if (_BOOL_11 if self.yaml11 else _BOOL_12).match(value):
                return self._BOOL_VALUES[value.lower()]
            if first in _NULL_START and _NULL.match(value):
                return None
        elif first in _NULL_START or not value:
            if _NULL.match(value):
                return None
        elif value == "<<":  # a key `<<` is a merge, taken out before its mapping is built
            return TaggedScalar(value, _MERGE_TAG)
        elif value == "=":
            return value if is_key else TaggedScalar(value, _VALUE_TAG)
        if self.check_all and _BAD_CHARACTER.search(value):
            self._check_joined(value)
        return value

    def _put_back(self, value: str, style: str) -> str:
        """The separators back in place of their stand-ins, as ruamel read them.

        Inside a line, ruamel took U+2028 and U+2029 for line breaks that it kept as
        characters, and dropped the spaces (in a quoted scalar, spaces and tabs) around
        them; a plain scalar neither starts nor ends with one, and a `#` after one starts a
        comment. U+0085 is put back as it is: a control character, which `bad_character`
        reports (ruamel read it as a newline).
        """
        assert self.separators is not None
        space = " " if style == "" else " \t"
        if style == "":  # after a line break, `#` starts a comment
            breaks = "".join(k for k, v in self.separators.items() if v != "\x85")
            comment = re.search(f"[ ]*[{breaks}][ ]*#", value) if breaks else None
            value = value[: comment.start()] if comment else value
        for stand_in, separator in self.separators.items():
            if separator == "\x85":
                value = value.replace(stand_in, separator)
                self.bad_text = True
            elif style in ("", "'", '"'):
                value = re.sub(f"[{space}]*{stand_in}[{space}]*", separator, value)
            else:
                value = value.replace(stand_in, separator)
        return value.strip("\u2028\u2029") if style == "" else value

    def _restore(self, node: ScalarNode, value: str) -> str:
        """The surrogates back in place of their stand-ins, in a double-quoted scalar."""
        stand_ins = self.stand_ins
        assert stand_ins is not None
        if node.style != '"':  # a swapped escape here was text: read again without it
            if "\\" in value:
                first, last = stand_ins.within(node.start_mark.index, node.end_mark.index)
                self.misplaced.update(stand_ins.positions[first:last])
            return value
        if stand_ins.placeholder not in value:
            return value
        first, last = stand_ins.within(node.start_mark.index, node.end_mark.index)
        parts = value.split(stand_ins.placeholder)
        restored = [parts[0]]
        for code, part in zip(stand_ins.codes[first:last], parts[1:], strict=True):
            restored += [chr(code), part]
        self.changes += 1  # pairs to join before pydantic sees the text
        return "".join(restored)

    def _check_joined(self, value: str) -> None:
        """A double-quoted escape put a character in; what `bad_character` sees once joined."""
        joined = value
        if _SURROGATE.search(value):
            joined = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        if _BAD_CHARACTER.search(joined):
            self.bad_text = True

    def _int(self, text: str) -> int:
        """ruamel's `construct_yaml_int`, down to the value (its int subclasses are ints).

        Where ruamel failed with an IndexError (`0x_`, `-_`), int() says what is wrong.
        """
        digits = text.replace("_", "")
        sign = 1
        if digits[:1] in ("+", "-"):
            sign = -1 if digits[0] == "-" else 1
            digits = digits[1:]
        for prefix, base in (("0b", 2), ("0x", 16), ("0o", 8)):
            if digits.startswith(prefix):
                return sign * int(digits[2:], base)
        if self.version != (1, 2) and len(digits) > 1 and digits[0] == "0":
            return sign * int(digits, 8)
        if self.version != (1, 2) and ":" in digits:
            return sign * int(_sexagesimal(digits, int))
        return sign * int(digits)

    def _float(self, text: str) -> float:
        """ruamel's `construct_yaml_float`, down to the value (its ScalarFloat is a float)."""
        digits = text.replace("_", "").lower()
        sign = -1 if digits[0] == "-" else 1
        if digits[0] in "+-":
            digits = digits[1:]
        if digits == ".inf":
            return sign * _INF
        if digits == ".nan":
            return _NAN
        if self.version != (1, 2) and ":" in digits:
            return sign * float(_sexagesimal(digits, float))
        return sign * float(digits)


def _is_merge(key: Node) -> bool:
    return isinstance(key, ScalarNode) and key.value == "<<" and key.style == "" and key.tag == ""


def _ruamel_name(match: re.Match[str]) -> str:
    return f"'{_RUAMEL_NAMES.get(match[1], match[1])}'"


def _sexagesimal(digits: str, kind: type[int] | type[float]) -> Any:
    value, base = kind(0), 1
    for part in reversed(digits.split(":")):
        value += kind(part) * base
        base *= 60
    return value
