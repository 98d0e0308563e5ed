"""The text of a claim file around libyaml: what it reads differently, undone.

libyaml reads two things otherwise than ruamel.yaml, whose reading claim files keep
(`claims.yaml_read` holds the rest); each is undone here, keeping every line and column:

* A `"\\ud83d\\udda5"` escape (how JSON writers spell a character outside the BMP) is
  an error to libyaml; ruamel read two lone halves, which the parser joins. Each
  surrogate escape of a double-quoted scalar is swapped for the escape, of the same
  length, of a stand-in character (`swapped`), and swapped back in the values.
* U+2028, U+2029 and U+0085 are line breaks to libyaml, which would number every later
  line one more; ruamel counted no line for them. They are swapped for private-use
  stand-ins (`swap_separators`, `space_separators`), and put back as ruamel read them.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

# ruamel's reader refuses these characters before it reads anything (YAML's printable set).
NON_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)
# A control character, a surrogate or a noncharacter: without one, one pass over the text
# says it is printable and holds nothing `field_checks.bad_character` reports.
SUSPECT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
MAYBE_SURROGATE_ESCAPE = re.compile(r"\\(?:u|U0000)[dD][89a-fA-F]")
# Every escape of a double-quoted scalar is `\` and one more character (then digits, which
# hold no backslash), so reading pairs from the start stays in step with the scalar's own
# escapes; groups 1 and 2 are the hex of a `\uD8xx` or `\U0000D8xx` surrogate escape.
ESCAPE = re.compile(
    r"\\(?:u([dD][89a-fA-F][0-9a-fA-F]{2})|U0000([dD][89a-fA-F][0-9a-fA-F]{2})|.)", re.DOTALL
)
# Stand-ins for surrogate escapes: characters that no escape letter produces; the one
# used is the first the file holds in no form, so every stand-in read back is one of ours.
_STAND_INS = [*range(0x01, 0x07), *range(0x0E, 0x1B), *range(0x1C, 0x20), *range(0xFDD0, 0xFDF0)]


class StandIns:
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


def placeholder(text: str, candidates: Iterable[int] = _STAND_INS) -> str | None:
    """The first candidate character the text holds neither as itself nor as an escape."""
    for code in candidates:
        char = chr(code)
        spelled = rf"\\(?:u{code:04x}|U{code:08x})"
        if code < 0x100:
            spelled = rf"\\(?:x{code:02x}|u{code:04x}|U{code:08x})"
        if char not in text and re.search(spelled, text, re.IGNORECASE) is None:
            return char
    return None


def swap_separators(text: str) -> tuple[str, dict[str, str]]:
    """The text with each U+2028, U+2029 and U+0085 swapped for a private-use stand-in.

    libyaml (YAML 1.1) takes them for line breaks: they would start a line for it, and
    move every later line number, where ruamel (YAML 1.2) counted no line for them and
    read on. As stand-ins they are text to libyaml; `_Builder` puts them back.
    """
    table: dict[str, str] = {}
    candidates = iter(range(0xE000, 0xF900))
    for separator in "\u2028\u2029\x85":
        if separator in text:
            stand_in = placeholder(text, candidates)
            if stand_in is None:  # every private-use character is in the text: leave it
                continue
            text = text.replace(separator, stand_in)
            table[stand_in] = separator
    return text, table


def space_separators(text: str, composed: str, root: Node, separators: dict[str, str]) -> str:
    """The text with each separator stand-in that is not inside a scalar made a space.

    ruamel skipped a separator between tokens as the line break it took it for (so
    `key:\u2028!!binary x` is a tag, refused); as a stand-in it would start a plain
    scalar, or widen one at its start or end. `composed` is the text the tree was
    composed from (`text` with surrogate escapes swapped: the same length).
    """
    scalars: list[tuple[int, int, str]] = []
    for node in scalar_nodes(root):
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


def scalar_nodes(root: Node | None) -> Iterator[ScalarNode]:
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


def swapped(text: str, stand_ins: StandIns) -> str:
    parts, last = [], 0
    code = ord(stand_ins.placeholder)
    for match in stand_ins.escapes:
        escape = f"\\u{code:04x}" if match.group(1) else f"\\U{code:08x}"
        parts += [text[last : match.start()], escape]
        last = match.end()
    parts.append(text[last:])
    return "".join(parts)
