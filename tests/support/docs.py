"""The project's documentation as the tests read it: the README, CONTRIBUTING.md and every
page of docs/ (its sub-folders too).

A test that checks an example, a table or a --help block finds it here by its marker or
its heading, wherever the docs keep it, so moving a section between pages keeps the test.
"""

from __future__ import annotations

import re
from pathlib import Path

from support import paths

README = paths.ROOT / "README.md"
CONTRIBUTING = paths.ROOT / "CONTRIBUTING.md"
DOCS = paths.ROOT / "docs"

HEADING = re.compile(r"^(#{1,6}) +(.+?) *#* *$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def pages() -> list[Path]:
    """The README, CONTRIBUTING.md, then every Markdown page of docs/ by path."""
    return [README, CONTRIBUTING, *sorted(DOCS.rglob("*.md"))]


def text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def page(name: str) -> str:
    """The text of one page: `README.md`, `CONTRIBUTING.md` or a path in docs/
    (`commands/verify.md`, `development/testing.md`)."""
    root = {"README.md": README, "CONTRIBUTING.md": CONTRIBUTING}
    return text(root.get(name, DOCS / name))


def command_pages() -> list[Path]:
    """The pages of docs/commands/, one per command family, without their index."""
    return sorted(p for p in (DOCS / "commands").glob("*.md") if p.name != "index.md")


def commands() -> str:
    """The command pages' text, one after the other."""
    return "\n".join(text(p) for p in command_pages())


def everything() -> str:
    """Every page's text, one after the other (a block never spans two pages)."""
    return "\n".join(text(p) for p in pages())


def fenced(language: str) -> list[str]:
    """The bodies of every code block fenced as `language`, in every page."""
    return re.findall(rf"```{language}\n(.*?)```", everything(), re.S)


def block(marker: str) -> str:
    """The code block right under `<!-- marker -->`: exactly one in all the docs."""
    found = re.findall(rf"<!-- {marker} -->\n```\w+\n(.*?)```", everything(), re.S)
    assert len(found) == 1, f"the docs have {len(found)} {marker} examples, not one"
    return str(found[0])


def outside_fences(body: str) -> list[tuple[int, str]]:
    """(line number, line) of every line not inside a fenced code block."""
    kept, fence = [], ""
    for number, line in enumerate(body.splitlines(), 1):
        opened = FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            continue
        kept.append((number, line))
    return kept


def section(title: str) -> str:
    """A section's text, from its heading up to the next heading of its level or above,
    in whichever page holds it (exactly one)."""
    found = []
    for p in pages():
        lines = text(p).splitlines()
        headings = [
            (n, len(m.group(1)), m.group(2))
            for n, line in outside_fences(text(p))
            if (m := HEADING.match(line))
        ]
        for i, (n, level, name) in enumerate(headings):
            if name != title:
                continue
            end = next((m for m, lv, _ in headings[i + 1 :] if lv <= level), len(lines) + 1)
            found.append("\n".join(lines[n : end - 1]) + "\n")
    assert len(found) == 1, f"the docs have {len(found)} sections named {title!r}, not one"
    return found[0]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text as shown, lower-cased, punctuation dropped,
    spaces turned into hyphens."""
    shown = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link shows its text
    shown = re.sub(r"<[^>]+>", "", shown).replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", shown).replace(" ", "-")


def anchors(body: str) -> set[str]:
    """Every heading anchor of a page, a repeated one numbered as GitHub numbers it."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in outside_fences(body):
        heading = HEADING.match(line)
        if heading is None:
            continue
        base = slug(heading.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found
