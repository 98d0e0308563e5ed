"""The change a claim shows: one function, `change_of`, for every format and for `diff`.

A drifted quote's change is the quote's own: from the quote as the claim gives it (the
text that stood on the page at the baseline) to the part of the text now that
corresponds to it. The judge names a whole sentence as the text now, so a quote of half
a sentence would otherwise show the other half as added; here the sentence's words
before and after the aligned part are context (`lead`, `tail`), never insertions, and
words compare as the judge matches them (case-folded, typographic quotes and dashes
folded), with a sentence's final punctuation no change at all.

The judge states a drifted claim's `diff` with `anchor_change`, and every report format
and the `diff` command show `change_of(result)`: the very same words inserted and
deleted everywhere. Pure: plain values in, plain values out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, TypeVar

from rapidfuzz.distance import Indel

from claimcheck.judge.anchor import diff_words, fold
from claimcheck.models import Anchor, ClaimResult

WordKind = Literal["same", "removed", "added"]
Word = tuple[WordKind, str]
M = TypeVar("M")

_CHANGE = re.compile(r"\[-(.*?)-\]|\{\+(.*?)\+\}", re.S)
_SENTENCE_END = ".!?…"
_MARKS: dict[WordKind, str] = {"same": "{}", "removed": "[-{}-]", "added": "{{+{}+}}"}


@dataclass(frozen=True)
class Change:
    """What changed for a claim, word by word.

    `what` says which text changed: the quote itself (`quote`), the quote with its
    prefix/suffix when the quote stands verbatim but no longer between them
    (`context`), or the block around a quote that holds (`block`). `words` is the
    change as (kind, word) pairs, a run of changes giving its removals before its
    additions; `lead` / `tail` are the words of the text now before and after the part
    that corresponds to the quote, shown as context. `before` / `after` are the two
    texts when known, so a format can keep their line breaks.
    """

    what: Literal["quote", "context", "block"]
    words: tuple[Word, ...]
    before: str | None = None
    after: str | None = None
    lead: tuple[str, ...] = ()
    tail: tuple[str, ...] = ()

    def side(self, kind: Literal["removed", "added"]) -> list[tuple[bool, str]]:
        """One side of the diff: its words, each marked True when it changed."""
        return [(k == kind, word) for k, word in self.words if k in ("same", kind)]

    def marked(self, kind: Literal["removed", "added"]) -> list[str]:
        """The words marked `kind`, in order: what every format must agree on."""
        return [word for k, word in self.words if k == kind]

    @property
    def text(self) -> str:
        """The change as a `git diff --word-diff` line: `[-removed-]{+added+}`."""
        text = ""
        previous: WordKind | None = None
        for kind, words in runs(self.words):
            gap = "" if previous is None or (previous, kind) == ("removed", "added") else " "
            text += gap + _MARKS[kind].format(words)
            previous = kind
        return text

    @property
    def changed(self) -> bool:
        """Whether any word was removed or added."""
        return any(kind != "same" for kind, _ in self.words)


def anchor_change(anchor: Anchor, now: str) -> Change:
    """The change of a claim's quote (`quote_change`); for a range (`quote` … `quote_end`)
    the change of its start and of its end, the text between them elided as the quote
    elides it."""
    if not anchor.quote_end:
        return quote_change(anchor.quote, now)
    head = quote_change(anchor.quote, now)
    last = quote_change(anchor.quote_end, " ".join(head.tail))
    words = (*head.words, ("same", "…"), *last.words)
    return Change("quote", words, _quoted(anchor), now, head.lead, last.tail)


def quote_change(quote: str, now: str) -> Change:
    """The quote's change: from `quote` to the part of `now` that corresponds to it.

    The words are aligned as the judge matches them (`_key`). The words of `now` before
    the first word the two share and after the last are the quote's context, unless
    the quote lost words there too: then the words of that sentence replaced them and
    are part of the change ("[-support-]{+for faster inference+}"), not context.
    """
    old, new = quote.split(), now.split()
    ops = list(Indel.opcodes([_key(w) for w in old], [_key(w) for w in new]))
    equal = [i for i, op in enumerate(ops) if op.tag == "equal"]
    if not equal:
        return Change("quote", (*(("removed", w) for w in old), *(("added", w) for w in new)))
    first, last = ops[equal[0]], ops[equal[-1]]
    ends = [i + 1 for i, w in enumerate(new) if w.endswith(tuple(_SENTENCE_END))]
    begin = first.dest_start
    if first.src_start:  # the quote's first words were replaced: from its sentence's start
        begin = max((i for i in ends if i <= first.dest_start), default=0)
    end = last.dest_end
    if last.src_end < len(old):  # its last words were replaced: to its sentence's end
        end = min((i for i in ends if i > last.dest_end), default=len(new))
    words: list[Word] = []
    removed: list[str] = []
    added: list[str] = []

    def flush() -> None:
        words.extend(("removed", w) for w in removed)
        words.extend(("added", w) for w in added)
        removed.clear()
        added.clear()

    for op in ops:
        if op.tag == "equal":
            flush()
            words.extend(("same", w) for w in new[op.dest_start : op.dest_end])
            continue
        removed.extend(old[op.src_start : op.src_end])
        added.extend(new[max(op.dest_start, begin) : min(op.dest_end, end)])
    flush()
    return Change("quote", tuple(words), quote, now, tuple(new[:begin]), tuple(new[end:]))


def _key(word: str) -> str:
    """A word as the judge compares it: folded, without a sentence's final punctuation."""
    return fold(word).rstrip(_SENTENCE_END) or word


def change_of(result: ClaimResult) -> Change | None:
    """The change a claim shows, the same in every format and in `claimcheck diff`.

    A quote that holds in a changed block shows the block, then and now; a quote that
    changed shows its own change (`anchor_change`) against the text found now; a quote
    found verbatim outside its prefix/suffix shows the judge's diff of the quote in its
    context. None: nothing changed, or nothing is known to compare.
    """
    before, after = result.block_before, result.block_after
    if before is not None and after is not None:
        return Change(
            "block", parse_diff(result.block_diff or diff_words(before, after)), before, after
        )
    anchor = result.claim.anchor
    if anchor is None or not result.diff:
        return None
    if result.found is None:
        return Change("quote", parse_diff(result.diff))
    if fold(result.found) == fold(_quoted(anchor)):
        return Change("context", parse_diff(result.diff))
    return anchor_change(anchor, result.found)


def _quoted(anchor: Anchor) -> str:
    """The quote as a reader says it: `start … end` for a range."""
    return f"{anchor.quote} … {anchor.quote_end}" if anchor.quote_end else anchor.quote


def shown_diff(result: ClaimResult) -> str | None:
    """The word diff of the quote (or of the quote in its context) a report states, as
    text; None when it shows none (a block change is stated on its own)."""
    change = change_of(result)
    if change is None or change.what == "block":
        return None
    return change.text


def parse_diff(diff: str) -> tuple[Word, ...]:
    """Read a `[-removed-]{+added+}` word diff (see `anchor.diff_words`) into words."""
    words: list[Word] = []
    position = 0
    for match in _CHANGE.finditer(diff):
        words.extend(("same", w) for w in diff[position : match.start()].split())
        if match.group(1) is not None:
            words.extend(("removed", w) for w in match.group(1).split())
        else:
            words.extend(("added", w) for w in match.group(2).split())
        position = match.end()
    words.extend(("same", w) for w in diff[position:].split())
    return tuple(words)


def runs(words: Iterable[tuple[M, str]]) -> list[tuple[M, str]]:
    """Consecutive words with the same mark joined by spaces: fewer, longer highlights."""
    joined: list[tuple[M, str]] = []
    for mark, word in words:
        if joined and joined[-1][0] == mark:
            joined[-1] = (mark, f"{joined[-1][1]} {word}")
        else:
            joined.append((mark, word))
    return joined
