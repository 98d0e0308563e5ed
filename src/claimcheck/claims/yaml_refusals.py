"""What a claim file's YAML must not use, refused in ruamel's words and at ruamel's line.

Anchors, aliases and tags are refused (an alias is never expanded, a tag never smuggles
bytes past the text checks), and so is nesting deeper than the parser's limit; the first
such node of the document is found from its events, in the order ruamel's composer met
them. libyaml's own errors are put in the words the parser always gave.
"""

from __future__ import annotations

import re
from typing import Any, NoReturn

import yaml
from yaml.nodes import Node

from claimcheck.claims.yaml_values import (
    InvalidError,
    RefusedError,
)

_ANCHOR_OR_ALIAS = "anchors and aliases are not allowed in a claim file; write the value out"
# ruamel's anchor names (`check_anchorname_char`) and what may follow one.
_RUAMEL_ANCHOR_NAME = re.compile("[^\x00-\x20\x7f-\x9f,\\[\\]{}\ufeff\ud800-\udfff\ufffe\uffff]+")
_AFTER_ANCHOR_NAME = frozenset(["", *" \t\r\n\x85\u2028\u2029?:,[]{}%@`"])
TAGS_REFUSED = "tags are not allowed in a claim file; write plain text"
_DEPTH = "a claim file needs 4"


def refuse_ruamel_anchor(text: str, exc: yaml.MarkedYAMLError) -> None:
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


def invalid_error(exc: yaml.MarkedYAMLError) -> InvalidError:
    """libyaml's error in the words the parser always gave: what it read, and what it found."""
    context, problem = exc.context, exc.problem
    if context and exc.context_mark is not None and exc.context_mark is not exc.problem_mark:
        context = f"{context} (from line {exc.context_mark.line + 1})"
    told = ", ".join(str(part) for part in (context, problem) if part) or "cannot be read"
    mark = exc.problem_mark or exc.context_mark
    return InvalidError(mark.line + 1 if mark is not None else 1, told)


def construction_error(
    context_node: Node, problem: str, problem_node: Node
) -> InvalidError:  # ruamel's ConstructorError and DuplicateKeyError, with the same words
    context = f"while constructing a mapping (from line {context_node.start_mark.line + 1})"
    return InvalidError(problem_node.start_mark.line + 1, f"{context}, {problem}")


def refuse_first(text: str, max_depth: int, loader: type[Any]) -> None:
    """Raise `RefusedError` for the first anchor, alias, tag or too deep node of the document.

    Reads the events in order, as ruamel's composer met them, and returns quietly at the
    end of the first document or at a YAML error (which is then the one to report).
    """
    parser = loader(text)
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
                    _refuse(event, f"a tag {tag}: {TAGS_REFUSED}")
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
