"""The documentation-page fixtures of `tests/data/pages` and their hand-written oracle.

`tests/data/pages/README.md` names, under a `## <file>` heading per page, the quotes
that must verify (after `Verify:`) and those that must not (after `Must not verify:`),
one `` - `quote` `` a line. This module reads those lists; it computes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from support import paths

PAGES = paths.ROOT / "tests" / "data" / "pages"
_QUOTE = re.compile(r"^- `(?P<quote>[^`]+)`")


@dataclass(frozen=True)
class DocPage:
    """A fixture page, the quotes in its main text, and those only in its chrome."""

    name: str
    path: Path
    verify: tuple[str, ...]
    not_verify: tuple[str, ...]

    @property
    def body(self) -> str:
        return self.path.read_text(encoding="utf-8")


def doc_pages() -> list[DocPage]:
    """Every fixture page with its oracle, in the README's order."""
    pages: list[DocPage] = []
    name: str | None = None
    lists: dict[str, list[str]] = {}
    section = ""

    def close() -> None:
        if name is not None:
            pages.append(DocPage(name, PAGES / name, tuple(lists["verify"]), tuple(lists["not"])))

    for line in (PAGES / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            close()
            name, lists, section = line[3:].strip(), {"verify": [], "not": []}, ""
        elif line.strip() == "Verify:":
            section = "verify"
        elif line.strip() == "Must not verify:":
            section = "not"
        elif (match := _QUOTE.match(line)) and name is not None and section:
            lists[section].append(match["quote"])
    close()
    return pages
