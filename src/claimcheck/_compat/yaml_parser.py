"""libyaml's parser and composer without PyYAML's tag resolution: its class is private.

`claims/yaml_nodes.py` reads claim files with libyaml's C parser and builds the values
itself, by YAML 1.2 rules. PyYAML exposes that parser only inside its loaders, which
also resolve every scalar's tag by YAML 1.1 rules; so the class is taken from where
PyYAML defines it, `yaml._yaml.CParser` (private), and its resolver hooks are made to
do nothing.

Written for PyYAML 6.0 up to 7.0. With another release installed, or PyYAML built
without libyaml, `tag_free_parser` raises `UnsupportedVersionError`: the pure-Python
parser PyYAML falls back to words and places syntax errors its own way, so claim files
would be read differently (the problems a user is shown would change), and claimcheck
says so rather than change them silently.
"""

from __future__ import annotations

from typing import Any

from claimcheck._compat.versions import Release, UnsupportedVersionError, require

SUPPORTED_RANGE: tuple[Release, Release] = ((6, 0), (7,))
"""The PyYAML releases whose `yaml._yaml.CParser` this was written for."""

_chosen: list[type[Any]] = []


def tag_free_parser() -> type[Any]:
    """libyaml's parser class (made once a process) with every implicit tag resolved to ""
    and an explicit tag kept by its name; it composes with `get_single_node`, as PyYAML's
    loaders do. Raises `UnsupportedVersionError` outside `SUPPORTED_RANGE`."""
    if not _chosen:
        _chosen.append(make_parser())
    return _chosen[0]


def make_parser() -> type[Any]:
    """libyaml's parser class without tag resolution (see `tag_free_parser`), made anew."""
    require("PyYAML", *SUPPORTED_RANGE, "reading claim files")
    try:
        from yaml._yaml import CParser
    except ImportError as exc:
        raise UnsupportedVersionError(
            "reading claim files needs PyYAML built with libyaml (its C parser)",
            hint="install a PyYAML wheel, which ships libyaml",
        ) from exc

    class _Parser(CParser):
        """libyaml's parser and composer, with PyYAML's YAML 1.1 tag resolution left out."""

        def descend_resolver(self, parent: Any, index: Any) -> None:
            pass

        def ascend_resolver(self) -> None:
            pass

        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            return ""

    return _Parser
