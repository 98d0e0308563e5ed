"""Replay real README history: do sentences that held keep holding, and do changes show?

Every distinct README version of every corpus engine is cut into sentences as a reader
sees them; each sentence is then looked up in the next version, as a claim quoting it
would be. An independent, deliberately crude oracle decides whether the sentence's
words are still there (Markdown syntax stripped with regular expressions, no
renderer, punctuation ignored). Disagreements are the figures that matter:

- false alarm: claimcheck flags the sentence, yet the next version has it with the
  same words *and* the same punctuation (a formatting-only edit was taken for a change);
- punctuation edit: the words are all there, only punctuation changed — flagged, and
  counted apart, since a comma can change a reading but is no rewording;
- miss: claimcheck still finds the sentence, yet its wording changed. Verification is
  an exact match on the rendered text, so the only way is a change of letter case
  (matching is case-insensitive, like browsers' text fragments): counted as misses;
- oracle disagreement: claimcheck finds the exact text in the rendered page, but the
  crude oracle does not (nested brackets, code fenced inside nested lists, links broken
  over lines): listed for inspection, not counted as misses.

Also a synthetic pass: formatting-only edits applied to each engine's newest README
(link targets, emphasis, bullet style, trailing spaces, re-wrapped paragraphs, no-break
spaces, table rows reversed) must leave every sentence verified and its context equal.

    PYTHONPATH=tests python -m support.corpus_replay    # prints the figures per engine
"""

from __future__ import annotations

import html
import itertools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from claimcheck.judge.anchor import locate_anchor, normalize_text
from claimcheck.judge.context import changes, locate_context
from claimcheck.judge.units import read_page
from claimcheck.judge.verdict import page_text as visible_text
from claimcheck.models import Anchor, MediaType
from support import paths

CORPUS = paths.CORPUS
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])")
_WORD = re.compile(r"[a-z0-9]+")


@dataclass
class Figures:
    """Counts of one engine's replay."""

    pairs: int = 0
    sentences: int = 0
    held: int = 0
    changed: int = 0
    false_alarms: list[str] = field(default_factory=list)
    punctuation_edits: int = 0
    misses: list[str] = field(default_factory=list)
    oracle_disagreements: list[str] = field(default_factory=list)


def versions(folder: Path) -> list[str]:
    """The distinct README texts of one engine, oldest first."""
    seen: list[str] = []
    for entry in json.loads((folder / "index.json").read_text(encoding="utf-8")):
        if entry.get("file"):
            text = (folder / entry["file"]).read_text(encoding="utf-8")
            if not seen or seen[-1] != text:
                seen.append(text)
    return seen


def sentences(markdown: str) -> list[str]:
    """Sentences of a README as a reader sees them, one block at a time."""
    found: list[str] = []
    for unit in read_page(markdown, MediaType.MARKDOWN).units:
        if unit.kind in ("code", "row"):
            continue
        for sentence in _SENTENCE_END.split(unit.text):
            if 30 <= len(sentence) <= 300 and sentence not in found:
                found.append(sentence)
    return found


def crude_text(markdown: str) -> str:
    """The oracle's view of a README: Markdown syntax stripped by regular expressions.

    Code (fenced blocks, indented lines of a fence, inline spans) is kept verbatim:
    `<model>` in code is text, not a tag.
    """
    pieces = re.split(r"(?ms)(^\s*```[^\n]*\n.*?^\s*```[^\n]*$|`[^`\n]+`)", markdown)
    return normalize_text(
        " ".join(
            _code_text(piece) if piece.lstrip().startswith("`") else _prose_text(piece)
            for piece in pieces
        )
    )


def _code_text(code: str) -> str:
    """A code block or span as shown: the fence lines and backticks are not text."""
    lines = code.strip().split("\n")
    if len(lines) > 1 and lines[0].lstrip().startswith("```"):
        lines = lines[1:-1]
    return html.unescape(" ".join(lines).strip("`")) if len(lines) == 1 else " ".join(lines)


def _prose_text(markdown: str) -> str:
    text = re.sub(r"<!--.*?-->", " ", markdown, flags=re.S)
    text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r" \1 ", text)  # images: their alt text
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their text
    text = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", text)
    text = re.sub(r"<img[^>]*alt=\"([^\"]*)\"[^>]*>", r" \1 ", text)
    text = re.sub(r"<[^>]+>", " ", text)  # tags
    text = re.sub(r"(?m)^\s{0,3}(#{1,6}|[-*+]|\d+[.)]|>)\s+", " ", text)  # block markers
    text = re.sub(r"(\*\*|__|~~|`+)", "", text)  # emphasis and code markers
    text = re.sub(r"(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)", "", text)
    text = text.replace("|", " ")
    return html.unescape(text)


def words(text: str) -> str:
    """Lowercase words only, space-joined: punctuation and markup ignored."""
    return " " + " ".join(_WORD.findall(text.casefold())) + " "


def replay_engine(folder: Path) -> Figures:
    """Replay one engine's history, version by version."""
    figures = Figures()
    texts = versions(folder)
    for old, new in itertools.pairwise(texts):
        figures.pairs += 1
        rendered = visible_text(new, MediaType.MARKDOWN)
        crude = crude_text(new)
        crude_words = words(crude)
        crude_folded = crude.casefold()
        for sentence in sentences(old):
            figures.sentences += 1
            found = locate_anchor(Anchor(quote=sentence), rendered, min_score=101.0)
            flagged = found is None or not found.exact
            words_there = words(sentence) in crude_words
            if not flagged:
                figures.held += 1
                if normalize_text(sentence) not in rendered:
                    figures.misses.append(sentence)  # found only case-insensitively
                elif not words_there and words(sentence).strip():
                    figures.oracle_disagreements.append(sentence)
            else:
                figures.changed += 1
                if words_there:
                    if sentence.casefold() in crude_folded:
                        figures.false_alarms.append(sentence)
                    else:
                        figures.punctuation_edits += 1
    return figures


# -- formatting-only edits ----------------------------------------------------------


def _outside_code(transform: Callable[[str], str]) -> Callable[[str], str]:
    """Apply a text transform to everything but fenced code blocks."""

    def apply(markdown: str) -> str:
        parts = re.split(r"(?ms)(^```.*?^```[^\n]*$)", markdown)
        return "".join(p if p.startswith("```") else transform(p) for p in parts)

    return apply


def _reverse_table_rows(markdown: str) -> str:
    lines, out, rows = markdown.split("\n"), [], []
    for line in lines:
        if line.lstrip().startswith("|") and out and re.match(r"^\s*\|?\s*:?-{3,}", out[-1]):
            rows.append(line)
            continue
        if rows:
            out.extend(reversed(rows))
            rows = []
        out.append(line)
    out.extend(reversed(rows))
    return "\n".join(out)


def _rewrap(markdown: str) -> str:
    """Join the lines of plain paragraphs (not lists, tables, HTML, headings)."""
    plain = re.compile(r"^[A-Za-z(\"'`]")
    lines = markdown.split("\n")
    out: list[str] = []
    for line in lines:
        if out and plain.match(line) and out[-1] and plain.match(out[-1]):
            out[-1] = out[-1].rstrip() + " " + line.strip()
        else:
            out.append(line)
    return "\n".join(out)


def _no_break_spaces(markdown: str) -> str:
    """No-break spaces between words of prose lines (not inside tags, links or tables)."""
    prose = re.compile(r"^[A-Za-z]")
    return "\n".join(
        re.sub(r"(?<=[a-z]) (?=[a-z])", "\u00a0", line)
        if prose.match(line) and not re.search(r"[<|]|\]\(", line)
        else line
        for line in markdown.split("\n")
    )


FORMATTING_EDITS: dict[str, Callable[[str], str]] = {
    "link-targets": _outside_code(
        lambda t: re.sub(
            r"\]\((?!#)(?:[^()\s]|\([^()\s]*\))+", "](https://example.invalid/moved", t
        )
    ),
    "emphasis-removed": _outside_code(
        lambda t: re.sub(r"\*\*(?=\S)([^*\n]+?)(?<=\S)\*\*", r"\1", t)
    ),
    "bullets": _outside_code(lambda t: re.sub(r"(?m)^(\s*)- ", r"\1* ", t)),
    "trailing-spaces": _outside_code(lambda t: re.sub(r"(?m)(\S)$", r"\1   ", t)),
    "rewrapped": _outside_code(_rewrap),
    "no-break-spaces": _outside_code(_no_break_spaces),
    "table-rows-reversed": _outside_code(_reverse_table_rows),
}


def formatting_alarms(markdown: str, edit: Callable[[str], str]) -> Iterator[str]:
    """Sentences that a formatting-only edit made unverified or whose context changed."""
    edited = edit(markdown)
    before_page = read_page(markdown, MediaType.MARKDOWN)
    after_page = read_page(edited, MediaType.MARKDOWN)
    after_text = after_page.text
    for sentence in sentences(markdown):
        anchor = Anchor(quote=sentence)
        found = locate_anchor(anchor, after_text, min_score=101.0)
        if found is None:
            yield f"not found: {sentence}"
            continue
        before, after = locate_context(anchor, before_page), locate_context(anchor, after_page)
        if before is not None and after is not None and changes(before, after):
            yield f"context changed: {sentence}"


def engines() -> list[Path]:
    """The corpus engine folders."""
    return sorted(p for p in CORPUS.iterdir() if p.is_dir())


def main() -> None:
    """Print the replay figures per engine and in total."""
    total = Figures()
    print(
        f"{'engine':<40} {'pairs':>5} {'sentences':>9} {'held':>6} {'flagged':>7} "
        f"{'false alarms':>12} {'punct.':>6} {'misses':>6} {'oracle':>6}"
    )
    for folder in engines():
        f = replay_engine(folder)
        print(
            f"{folder.name:<40} {f.pairs:>5} {f.sentences:>9} {f.held:>6} {f.changed:>7} "
            f"{len(f.false_alarms):>12} {f.punctuation_edits:>6} {len(f.misses):>6} "
            f"{len(f.oracle_disagreements):>6}"
        )
        for sentence in f.false_alarms[:3]:
            print(f"    false alarm: {sentence[:100]}")
        for sentence in f.misses[:3]:
            print(f"    miss: {sentence[:100]}")
        total.pairs += f.pairs
        total.sentences += f.sentences
        total.held += f.held
        total.changed += f.changed
        total.false_alarms += f.false_alarms
        total.punctuation_edits += f.punctuation_edits
        total.misses += f.misses
        total.oracle_disagreements += f.oracle_disagreements
    print(
        f"{'total':<40} {total.pairs:>5} {total.sentences:>9} {total.held:>6} "
        f"{total.changed:>7} {len(total.false_alarms):>12} {total.punctuation_edits:>6} "
        f"{len(total.misses):>6} {len(total.oracle_disagreements):>6}"
    )
    print("\nformatting-only edits of each newest README (alarms):")
    for name, edit in FORMATTING_EDITS.items():
        alarms = sum(len(list(formatting_alarms(versions(f)[-1], edit))) for f in engines())
        print(f"  {name:<22} {alarms}")


if __name__ == "__main__":
    main()
