"""Read a claim file's YAML into plain values that know their lines, by ruamel's rules.

Claim files were always read by ruamel.yaml's rules: YAML 1.2 (1.1 only under a
`%YAML 1.1` directive), dates left as text for pydantic to check, merge keys (`<<`)
merged, duplicate keys an error in ruamel's words, keys that are lists or mappings kept
as ruamel kept them. ruamel's loader is pure Python, and PyYAML's `CSafeLoader`
(libyaml, in C) composes the same text far faster. So the text is composed by a
`CSafeLoader` subclass whose resolvers are ruamel's (`claims.yaml_loader`), and this
module builds the values from its nodes, keeping each node for the line a problem
names. `tests/claims/test_read_parity.py` holds this reader and ruamel to the
same claims and problems.

What libyaml reads differently is undone around it (`claims.yaml_text`: surrogate
escapes, line separators), and what a claim file must not use is refused as before, in
the same words and at the same line (`claims.yaml_refusals`): anchors, aliases, tags and
nesting deeper than `max_depth`. The node tree is used only when no node starts with `&`
or `!` and none is too deep; otherwise the events are read once more, in order, to find
the first refused, where ruamel's composer stopped. libyaml shares an aliased node rather
than copying it, so a "billion laughs" file costs its size, never its expansion, and it
stops by itself at 1,000 levels of nesting.

What is left differs only for files ruamel refused or crashed on: libyaml words (and
sometimes places) a syntax error its own way; it reads a tab inside a line, where ruamel
refused one; it refuses an empty key (`: x`), which ruamel read as `None`; a NEL is a
control character `bad_character` reports (ruamel took it for a newline); and a number
ruamel's constructor crashed on (`0x_`) is reported as a number it cannot read.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, NoReturn

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from claimcheck.claims.yaml_loader import (
    BOOL_TAG,
    FLOAT_TAG,
    INT_TAG,
    LOADER_BASE,
    MERGE_TAG,
    NULL_TAG,
    STR_TAG,
    VALUE_TAG,
    Loaders,
    loaders_on,
)
from claimcheck.claims.yaml_refusals import (
    TAGS_REFUSED,
    construction_error,
    invalid_error,
    refuse_first,
    refuse_ruamel_anchor,
)
from claimcheck.claims.yaml_text import (
    ESCAPE,
    MAYBE_SURROGATE_ESCAPE,
    NON_PRINTABLE,
    SUSPECT,
    StandIns,
    placeholder,
    space_separators,
    swap_separators,
    swapped,
)
from claimcheck.claims.yaml_values import (
    MAX_DEPTH,
    Document,
    InvalidError,
    KeyMap,
    KeySeq,
    Map,
    ReadError,
    RefusedError,
    Seq,
    TaggedScalar,
    UnmarkedError,
    UnreadableError,
)

__all__ = [
    "DEFAULT_VERSION",
    "LOADERS",
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
    "read_document",
    "read_yaml",
]

DEFAULT_VERSION = (1, 2)
"""ruamel's default, and so the claim files': `yes`, `no`, `on`, `010` are text or decimal."""

LOADERS = loaders_on(LOADER_BASE)
"""The loaders claim files are composed with: libyaml's where PyYAML has it."""

# Characters `field_checks.bad_character` reports; only a double-quoted escape can put one in a
# value, unless the text holds one itself (a carriage return, a NEL).
_BAD_CHARACTER = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# ruamel's float constructor returns one NaN object, so two `.nan` keys are one key.
_NAN = float("nan")
_INF = float("inf")
# The names ruamel's containers gave a TypeError about a key that cannot be hashed.
_RUAMEL_NAMES = {"Seq": "CommentedSeq", "Map": "CommentedMap"}
_NOT_CACHED = object()
_RUAMEL_NAME = re.compile(r"'(\w+)'")


UNMARKED_ERRORS = (yaml.YAMLError, RecursionError, ValueError, TypeError)
"""What reading may raise besides a `ReadError`: an error with no line to show."""


def read_document(text: str, max_depth: int = MAX_DEPTH) -> Document:
    """The YAML document of a claim file or of an article's front matter (`ReadDocument`).

    Raises a `ReadError` with its line, or `UnmarkedError` for an error without one.
    """
    try:
        return read_yaml(text, max_depth)
    except UNMARKED_ERRORS as exc:
        raise UnmarkedError(f"{type(exc).__name__}: {exc}") from exc


def read_yaml(text: str, max_depth: int, loaders: Loaders = LOADERS) -> Document:
    """The one YAML document in `text` (its value None when there is none).

    `loaders`: the loader classes to compose with (`yaml_loader.loaders_on`). Raises
    `UnreadableError`, `RefusedError` or `InvalidError` (each with its line), or, as
    ruamel did for a number its constructor could not read, `ValueError` or `TypeError`.
    """
    suspect = SUSPECT.search(text) is not None
    bad = NON_PRINTABLE.search(text) if suspect else None
    if bad is not None:
        position = bad.start()
        raise UnreadableError(text.count("\n", 0, position) + 1, position, ord(bad.group()))
    separators = None
    if "\u2028" in text or "\u2029" in text or "\x85" in text:
        text, separators = swap_separators(text)
    directive = text.startswith("%") or "\n%" in text  # a line starting with `%`
    version = _version(text, loaders) if directive else DEFAULT_VERSION
    loader = loaders.for_version(version)
    escapes: list[re.Match[str]] = []
    stand_in = None
    if MAYBE_SURROGATE_ESCAPE.search(text):
        escapes = [m for m in ESCAPE.finditer(text) if m.group(1) or m.group(2)]
        stand_in = placeholder(text)
    spaced = separators is None
    while True:
        stand_ins = StandIns(stand_in, escapes) if escapes and stand_in else None
        composed = swapped(text, stand_ins) if stand_ins else text
        root = _compose(composed, max_depth, loader)
        if root is None:
            return Document(None, False, set(), None)
        if not spaced:
            spaced = True
            assert separators is not None
            text = space_separators(text, composed, root, separators)
            if text != composed:
                continue
        builder = _Builder(composed, loader, version, max_depth, stand_ins, separators, suspect)
        try:
            document = builder.build(root)
        except (InvalidError, RefusedError, ValueError, TypeError):
            if not builder.misplaced:
                raise
        if not builder.misplaced:
            return document
        # A surrogate escape outside a double-quoted scalar is text: keep it as written.
        escapes = [m for m in escapes if m.start() not in builder.misplaced]


def _compose(text: str, max_depth: int, loader: type[Any]) -> Node | None:
    """The node tree of the one document in `text`, its scalars tagged by `loader`."""
    try:
        node: Node | None = loader(text).get_single_node()
    except yaml.MarkedYAMLError as exc:
        refuse_first(text, max_depth, loader)
        mark = exc.problem_mark
        if mark is not None and "maximum nesting depth" in str(exc.problem):
            # libyaml stops at 1,000 levels while it still looks ahead for a key, before
            # the first event; up to there, the events show where ruamel refused.
            refuse_first(text[: mark.index], max_depth, loader)
        refuse_ruamel_anchor(text, exc)
        raise invalid_error(exc) from None
    return node


def _version(text: str, loaders: Loaders) -> tuple[int, int]:
    """The `%YAML` version the document declares: ruamel read `%YAML 1.1` by YAML 1.1 rules."""
    parser = loaders.yaml12(text)
    try:
        while True:
            event = parser.get_event()
            if isinstance(event, yaml.DocumentStartEvent):
                return event.version or DEFAULT_VERSION
            if isinstance(event, yaml.StreamEndEvent):
                return DEFAULT_VERSION
    except yaml.YAMLError:  # reported when the text is composed
        return DEFAULT_VERSION


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
        loader: type[Any],
        version: tuple[int, int],
        max_depth: int,
        stand_ins: StandIns | None,
        separators: dict[str, str] | None = None,
        suspect: bool = True,
    ) -> None:
        self.text = text
        self.probe = text + " "  # an empty scalar at the very end starts after the text
        self.markers = "&" in text or "!" in text
        self.loader = loader
        self.version = version
        self.max_depth = max_depth
        self.stand_ins = stand_ins
        self.separators = separators or None
        self.put_back = re.compile("[" + "".join(separators) + "]") if separators else None
        self.slow = self.put_back is not None
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
            refuse_first(self.text, self.max_depth, self.loader)
            raise
        return Document(value, self.bad_text, self.converted, self.key_lines)

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
        refuse_first(self.text, self.max_depth, self.loader)
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
                and value_node.tag == STR_TAG
                and (stand_ins is None or "\\" not in value_node.value)
            ):
                value = value_node.value  # a plain scalar resolved as text
            else:
                if self.markers and self.probe[value_node.start_mark.index] in "&!":
                    self._suspect(value_node)
                value = self._scalar(value_node, False)
            try:
                duplicate = key in mapping
            except TypeError as exc:  # an unhashable key inside a key, named as ruamel did
                raise TypeError(_RUAMEL_NAME.sub(_ruamel_name, str(exc))) from None
            if duplicate:
                raise construction_error(
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
                raise construction_error(node, 'found duplicate merge key "<<"', key_node)
            if isinstance(value_node, MappingNode):
                merged.append(self._node(value_node, depth + 1))  # type: ignore[arg-type]
            elif isinstance(value_node, SequenceNode):
                items = self._node(value_node, depth + 1)
                assert isinstance(items, Seq)
                for item, subnode in zip(items, value_node.value, strict=True):
                    if not isinstance(subnode, MappingNode):
                        raise construction_error(
                            node, f"expected a mapping for merging, but found {subnode.id}", subnode
                        )
                    merged.append(item)
            else:
                raise construction_error(
                    node,
                    "expected a mapping or list of mappings for merging, "
                    f"but found {value_node.id}",
                    value_node,
                )
        return pairs, merged

    def _scalar(self, node: ScalarNode, is_key: bool) -> object:
        """The value of a scalar node, by the tag the loader's resolvers gave it."""
        value: str = node.value
        style, tag = node.style, node.tag
        if self.put_back is not None and self.put_back.search(value):
            value = self._put_back(value, style)
            if not style:  # ruamel resolved the text as it read it, separators back
                tag = self.loader("").resolve(ScalarNode, value, (True, False))
        if self.stand_ins is not None:
            value = self._restore(node, value)
        if tag == STR_TAG:
            if (style == '"' or self.check_all) and _BAD_CHARACTER.search(value):
                self._check_joined(value)
            return value
        if tag == INT_TAG:
            return self._int(value)
        if tag == FLOAT_TAG:
            return self._float(value)
        if tag == BOOL_TAG:
            return self._BOOL_VALUES[value.lower()]
        if tag == NULL_TAG:
            return None
        if tag == MERGE_TAG:  # a key `<<` is a merge, taken out before its mapping is built
            return TaggedScalar(value, MERGE_TAG)
        if tag == VALUE_TAG:
            return value if is_key else TaggedScalar(value, VALUE_TAG)
        raise RefusedError(node.start_mark.line + 1, f"a tag {tag}: {TAGS_REFUSED}")

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
    return type(key) is ScalarNode and key.tag == MERGE_TAG and key.value == "<<"


def _ruamel_name(match: re.Match[str]) -> str:
    return f"'{_RUAMEL_NAMES.get(match[1], match[1])}'"


def _sexagesimal(digits: str, kind: type[int] | type[float]) -> Any:
    value, base = kind(0), 1
    for part in reversed(digits.split(":")):
        value += kind(part) * base
        base *= 60
    return value
