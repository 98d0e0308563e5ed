"""The values a claim file's YAML is read into, and the errors reading it raises.

Apart from the reader (`yaml_read`) so that what uses them imports no YAML library:
a run whose claim files are unchanged takes their claims as kept and reads no YAML
(importing PyYAML and compiling the resolvers' patterns is a noticeable part of a start).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yaml.nodes import MappingNode, SequenceNode

KeyLines = Callable[["MappingNode"], dict[Any, int]]
"""What finds the line of each own key of a mapping node (the reader's, when asked)."""

MAX_DEPTH = 20
"""The deepest nesting of a claim file (it needs 4: file, claims, claim, value)."""


class ReadError(Exception):
    """The YAML of a claim file cannot be read; `line` is 1-based."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


class UnreadableError(ReadError):
    """A character YAML does not allow in a file, at `position` (characters) of the text."""

    def __init__(self, line: int, position: int, code: int) -> None:
        super().__init__(line, f"character U+{code:04X} at position {position}")
        self.position = position
        self.code = code


class RefusedError(ReadError):
    """YAML a claim file must not use (an anchor, alias, tag, deep nesting), where it starts."""


class InvalidError(ReadError):
    """Text that is not YAML, or YAML that makes no mapping; `message` is YAML's own words."""


class UnmarkedError(Exception):
    """Reading failed with no line to show: a YAML error without a mark, or a number
    ruamel's constructor could not read; the text names the original error's type."""


class Map(dict[Any, Any]):
    """A mapping, which knows the node it was built from (for its lines, when asked).

    The line of each key is only wanted for a problem, so it is found then
    (`Document.key_line`), not stored for every key of every claim.
    """

    __slots__ = ("node",)
    node: MappingNode

    @property
    def line(self) -> int:
        """The line the mapping starts on."""
        return int(self.node.start_mark.line) + 1


class Seq(list[Any]):
    """A sequence, which knows the node it was built from."""

    __slots__ = ("node",)
    node: SequenceNode

    @property
    def line(self) -> int:
        """The line the sequence starts on."""
        return int(self.node.start_mark.line) + 1

    def item_line(self, index: int, default: int) -> int:
        """The line item `index` starts on (`default` when there is no such item)."""
        items = self.node.value
        return int(items[index].start_mark.line) + 1 if 0 <= index < len(items) else default


class KeySeq(tuple[Any, ...]):
    """A sequence used as a key (`? [a, b]`): a tuple, as ruamel's CommentedKeySeq."""

    __slots__ = ()


class KeyMap(Mapping[Any, Any]):
    """A mapping used as a key (`? {a: b}`): hashable and shown as ruamel's CommentedKeyMap."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[Any, Any]) -> None:
        self._items = dict(items)

    def __getitem__(self, key: Any) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(tuple(self.items()))

    def __eq__(self, other: object) -> bool:
        return Mapping.__eq__(self, other)

    def __repr__(self) -> str:
        return f"ordereddict({list(self._items.items())!r})"


class TaggedScalar:
    """A plain `<<` or `=` that is not a key: ruamel kept it as a tagged scalar, not text."""

    __slots__ = ("tag", "value")
    style = None

    def __init__(self, value: str, tag: str) -> None:
        self.value = value
        self.tag = tag

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"TaggedScalar(value={self.value!r}, style=None, tag=Tag({self.tag!r}))"


class Document:
    """A read document: its value, and what the parser must still look at.

    `bad_text`: a string holds a character `bad_character` reports (surrogates joined);
    `converted`: the containers holding a key that is not text or a string to join
    (by `id`): only those need converting before pydantic sees them; `key_lines`: what
    finds a mapping's key lines (None for an empty document).
    """

    __slots__ = ("_find_key_lines", "_key_lines", "_keys_named", "bad_text", "converted", "value")

    def __init__(
        self, value: object, bad_text: bool, converted: set[int], key_lines: KeyLines | None
    ) -> None:
        self.value = value
        self.bad_text = bad_text
        self.converted = converted
        self._find_key_lines = key_lines
        self._key_lines: dict[int, dict[Any, int]] = {}
        self._keys_named: dict[int, dict[str, Any]] = {}

    def key_named(self, mapping: Map, name: str) -> Any:
        """The first key of the mapping that pydantic names `name` (it saw `str(key)`).

        A dict of them per mapping, so a file of 10,000 unknown keys takes no 10,000²
        comparisons to report.
        """
        named = self._keys_named.get(id(mapping))
        if named is None:
            named = self._keys_named[id(mapping)] = {}
            for key in mapping:
                named.setdefault(str(key), key)
        return named.get(name, name)

    def key_line(self, mapping: Map, key: object, default: int) -> int:
        """The line of the mapping's own `key` (`default` for a merged or unknown key)."""
        if self._find_key_lines is None:
            return default
        lines = self._key_lines.get(id(mapping))
        if lines is None:
            lines = self._key_lines[id(mapping)] = self._find_key_lines(mapping.node)
        try:
            return lines.get(key, default)
        except TypeError:  # not a key at all (unhashable)
            return default


ReadDocument = Callable[[str], Document]
"""What reads the YAML of a claim file or of an article's front matter
(`yaml_read.read_document`). The caller gives it to the parser, so that a run whose
claim files are all kept, which reads none, imports no YAML library."""
