"""PyYAML's safe loader, resolving a plain scalar's type by the rules claim files are read by.

A claim file is parsed and composed by PyYAML's `CSafeLoader` (libyaml, in C), or its
pure-Python `SafeLoader` where PyYAML was built without libyaml. Those loaders resolve
tags by YAML 1.1, where `no` is False, `010` is 8 and `1:20` is 80; claim files were
always read by YAML 1.2's core schema (YAML 1.1 only under a `%YAML 1.1` directive), as
ruamel.yaml reads them. So each loader here is a subclass with its own implicit
resolvers: ruamel's patterns for the two versions, in ruamel's order (the first that
matches decides). Dates are not among them: a date is text, which pydantic checks.

Only composition is used (`get_single_node`, `get_event`): the values are built from
the nodes by `claims.yaml_read`, which keeps every node's line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import yaml
from yaml.nodes import Node, ScalarNode, SequenceNode

__all__ = [
    "BOOL_TAG",
    "FLOAT_TAG",
    "INT_TAG",
    "LOADER_BASE",
    "MERGE_TAG",
    "NULL_TAG",
    "STR_TAG",
    "VALUE_TAG",
    "LoaderClass",
    "Loaders",
    "loaders_on",
]

STR_TAG = "tag:yaml.org,2002:str"
SEQ_TAG = "tag:yaml.org,2002:seq"
MAP_TAG = "tag:yaml.org,2002:map"
BOOL_TAG = "tag:yaml.org,2002:bool"
INT_TAG = "tag:yaml.org,2002:int"
FLOAT_TAG = "tag:yaml.org,2002:float"
NULL_TAG = "tag:yaml.org,2002:null"
MERGE_TAG = "tag:yaml.org,2002:merge"
VALUE_TAG = "tag:yaml.org,2002:value"

LoaderClass = type[Any]
"""A PyYAML loader class: `yaml.CSafeLoader` and `yaml.SafeLoader` share no base class."""

LOADER_BASE: LoaderClass = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML has it, else the pure-Python one (as PyYAML chooses)."""

# ruamel's implicit resolvers (ruamel/yaml/resolver.py) for YAML 1.2 and 1.1.
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
_NUMBER_START = list("-+0123456789.")
_INT_START = list("-+0123456789")


class Loaders:
    """The loader classes for the two YAML versions a claim file may declare."""

    __slots__ = ("yaml11", "yaml12")

    def __init__(self, yaml12: LoaderClass, yaml11: LoaderClass) -> None:
        self.yaml12 = yaml12
        self.yaml11 = yaml11

    def for_version(self, version: tuple[int, int]) -> LoaderClass:
        """The loader for a document of `version` (1.1 rules only for exactly 1.1)."""
        return self.yaml11 if version == (1, 1) else self.yaml12


Resolvers = dict[str, list[tuple[str, re.Pattern[str]]]]
"""A loader's implicit resolvers, by the first character of what they match."""


def _resolve_by(resolvers: Resolvers) -> Callable[[Any, type[Node], str, tuple[bool, bool]], str]:
    """`Resolver.resolve` for a loader with these implicit resolvers and no path resolvers.

    The same answer as PyYAML's own method for such a loader: a plain scalar takes the
    tag of the first resolver, of those listed under its first character, whose pattern
    matches it, else text. It is the one Python call of composing a scalar, so it is kept
    to a set look-up and, for what may be more than text, the patterns.
    """
    typed = frozenset(resolvers)  # what a scalar that may be more than text starts with

    def resolve(self: Any, kind: type[Node], value: str, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode:
            if implicit[0] and (first := value[:1]) in typed:
                for tag, pattern in resolvers[first]:
                    if pattern.match(value):
                        return tag
            return STR_TAG
        return SEQ_TAG if kind is SequenceNode else MAP_TAG

    return resolve


def _descend(self: Any, _node: Node | None, _index: object) -> None:
    """`descend_resolver` without path resolvers: nothing to follow."""


def _ascend(self: Any) -> None:
    """`ascend_resolver` without path resolvers: nothing to follow."""


def _loader(base: LoaderClass, name: str, yaml11: bool) -> LoaderClass:
    """A subclass of `base` whose implicit resolvers are ruamel's for the version."""
    loader: LoaderClass = type(name, (base,), {"yaml_implicit_resolvers": {}})
    add = loader.add_implicit_resolver
    add(FLOAT_TAG, _FLOAT_11 if yaml11 else _FLOAT_12, _NUMBER_START)
    add(INT_TAG, _INT_11 if yaml11 else _INT_12, _INT_START)
    add(BOOL_TAG, _BOOL_11 if yaml11 else _BOOL_12, list("yYnNtTfFoO" if yaml11 else "tTfF"))
    add(NULL_TAG, _NULL, ["~", "n", "N", ""])
    add(MERGE_TAG, re.compile(r"^(?:<<)$"), ["<"])
    add(VALUE_TAG, re.compile(r"^(?:=)$"), ["="])
    loader.resolve = _resolve_by(loader.yaml_implicit_resolvers)
    loader.descend_resolver, loader.ascend_resolver = _descend, _ascend
    return loader


def loaders_on(base: LoaderClass) -> Loaders:
    """The claim-file loaders built on `base` (`yaml.CSafeLoader` or `yaml.SafeLoader`)."""
    return Loaders(
        _loader(base, "ClaimFileLoader", yaml11=False),
        _loader(base, "ClaimFileLoader11", yaml11=True),
    )
