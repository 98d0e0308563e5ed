"""A page's text as quotes are matched in it: case-folded, cut into its units (one a line),
indexed by the words and meaningful symbols each unit holds, with the way back to the
original text's indices. Built once a page (`fold_page`) and shared by its claims."""

from __future__ import annotations

import bisect
import functools

from claimcheck.judge.tokens import TOKEN, WORD

_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~…·•“”‘’")


class Folded:
    """A page's text case-folded for matching, its units' offsets, and the way back to
    the original's indices (`str.casefold` may turn one character into several)."""

    def __init__(self, text: str) -> None:
        self.text = text.casefold()
        self._without: tuple[frozenset[int], str] | None = None
        self._to_original: list[int] | None = None
        if len(self.text) != len(text):
            self._to_original = [i for i, c in enumerate(text) for _ in c.casefold()]
            self._to_original.append(len(text))

    @functools.cached_property
    def starts(self) -> list[int]:
        """Each unit's (line's) first offset: made when a unit is asked for, since a
        quote found verbatim, as most are, needs none."""
        starts = [0]
        at = self.text.find("\n")
        while at != -1:  # a unit a line: a few hundred finds, not a loop over characters
            starts.append(at + 1)
            at = self.text.find("\n", at + 1)
        return starts

    def original(self, span: tuple[int, int]) -> tuple[int, int]:
        """The original text's span covering a folded span."""
        if self._to_original is None:
            return span
        start, end = span
        return self._to_original[start], self._to_original[end - 1] + 1

    def unit_span(self, at: int) -> tuple[int, int]:
        """The folded span of the unit (line) holding offset `at`."""
        index = bisect.bisect_right(self.starts, at) - 1
        start = self.starts[index]
        end = self.starts[index + 1] - 1 if index + 1 < len(self.starts) else len(self.text)
        return start, end

    @functools.cached_property
    def units(self) -> list[str]:
        return self.text.split("\n")

    def without(self, units: frozenset[int]) -> str:
        """The folded text with `units` blanked out (spaces, so every offset stays),
        kept for the last set asked: a page's code blocks, asked once a claim."""
        if not units:
            return self.text
        kept = self._without
        if kept is None or kept[0] != units:
            lines = self.units
            blank = "\n".join(
                " " * len(line) if i in units else line for i, line in enumerate(lines)
            )
            kept = self._without = (units, blank)
        return kept[1]

    def unit_at(self, at: int) -> int:
        """The index of the unit (line) holding folded offset `at`."""
        return bisect.bisect_right(self.starts, at) - 1

    @functools.cached_property
    def index(self) -> dict[str, list[int]]:
        """Each word or meaningful symbol → the units that hold it, built once a page."""
        found: dict[str, list[int]] = {}
        for unit, line in enumerate(self.units):
            for term in set(terms(line)):
                found.setdefault(term, []).append(unit)
        return found

    def survival(self, words: frozenset[str], first: int) -> dict[int, float]:
        """For units from `first` on holding any of `words`: the share they hold."""
        if not words:
            return {}
        counts: dict[int, int] = {}
        for word in words:
            for unit in self.index.get(word, ()):
                if unit >= first:
                    counts[unit] = counts.get(unit, 0) + 1
        return {unit: n / len(words) for unit, n in counts.items()}


@functools.lru_cache(maxsize=32)
def fold_page(text: str) -> Folded:
    """The folded view of a page, built once per page rather than once per claim
    (the run judges a source's claims one after another, so a few pages suffice)."""
    return Folded(text)


def terms(text: str) -> list[str]:
    """The words of a text and the symbols that carry meaning (✅, 🚧, →, ×), not its
    punctuation: a table row of ticks is as much a statement as a sentence."""
    return [t for t in TOKEN.findall(text) if WORD.fullmatch(t) or t not in _PUNCTUATION]
