"""Measure the judge on real README history against the independent oracle.

For every corpus engine and every pair of consecutive README versions (old, new),
quotes are sampled from the units of old (seeded, bounded counts) and their expected
verdict is computed by `support.history_oracle` alone; the judge is called only through
`support.judging`. Cases fall into categories:

- `context-same`: the quote is in one unit of new, with the same oracle context:
  expected `verified`;
- `context-changed`: the quote is in one unit of new, but a part of its context
  (unit text, outline path, table header, list lead-in, notices) changed: expected
  `context-changed`;
- `reworded`: no unit of new holds the quote, but one keeps ≥ 60% of its words:
  expected `drifted`, with that unit (or its sentences holding the words) as `found`;
- `gone`: nothing close is left: expected stale (`missing` or `drifted`);
- `sub-token`: a quote cut inside a number, version or identifier of old ("5 GPUs"
  from "2.5 GPUs", "CUDA 12" from "CUDA 12.8"), judged against old itself: never
  `verified`;
- `block-boundary`: the last two words of a list item / table row / paragraph glued to
  the first two of the next one, judged against old itself: never `verified`;
- `markup-only`: a quote the judge verifies in a version, after a formatting-only edit
  of that version (`FORMATTING_EDITS` of `support.corpus_replay`) that the oracle
  confirms left the quote's unit and context alone: still `verified`.

`evaluate()` runs it all (cached per process); `bench/judge_history.py` prints it and
`tests/replay/test_judgement_history.py` asserts the targets.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from random import Random

from claimcheck.models import Verdict
from support import paths
from support.history_oracle import (
    JOINERS,
    TOKEN,
    Document,
    Expectation,
    Unit,
    expect,
    normalize,
    read_markdown,
    words,
)
from support.judging import judge_bodies, make_claim

CORPUS = paths.CORPUS
SEED = "claimcheck-history-1"

SAME = "context-same"
CHANGED = "context-changed"
REWORDED = "reworded"
GONE = "gone"
SUBTOKEN = "sub-token"
BOUNDARY = "block-boundary"
MARKUP = "markup-only"
CATEGORIES = (SAME, CHANGED, REWORDED, GONE, SUBTOKEN, BOUNDARY, MARKUP)
_BY_EXPECTATION = {"verified": SAME, "context-changed": CHANGED, "drifted": REWORDED}

MAX_WHOLE_WORDS = 60
_NUMBER = re.compile(r"\d")
_WORD_SPAN = re.compile(r"\S+")
_VERSION = re.compile(r"\d[.,]\d")
_DATE = re.compile(r"[\d/:-]+")
_ABBREVIATIONS = frozenset({"e.g", "i.e", "a.k.a", "n.b"})


@dataclass(frozen=True)
class Plan:
    """How many cases to draw: bounded so a whole run stays well under a minute."""

    pairs_per_engine: int | None = 8
    per_pair: tuple[tuple[str, int], ...] = ((CHANGED, 4), (SAME, 2), (REWORDED, 2), (GONE, 1))
    tries_per_bucket: int = 30
    subtoken_per_version: int = 2
    boundary_per_version: int = 1
    markup_quotes: int = 1


PLAN = Plan()


@dataclass(frozen=True)
class Version:
    """One distinct README text of an engine, named by the date of its file."""

    name: str
    text: str


@dataclass(frozen=True)
class Case:
    """One quote to judge: its category, where it comes from and what is expected."""

    category: str
    engine: str
    where: str
    quote: str
    baseline: str = field(repr=False)
    now: str = field(repr=False)
    expectation: Expectation


@dataclass(frozen=True)
class Outcome:
    """The judge's answer on a case; `verdict` is None when the judge raised (see
    `reason`), and `skipped` marks a markup-only quote not verified before its edit."""

    case: Case
    verdict: Verdict | None
    found: str | None = None
    reason: str = ""
    skipped: bool = False

    @property
    def found_expected(self) -> bool:
        """The `found` text is one the oracle expects (whitespace and case aside)."""
        want = {_comparable(f) for f in self.case.expectation.found}
        return self.found is not None and _comparable(self.found) in want

    @property
    def agrees(self) -> bool:
        """Whether the verdict is what the oracle expects for the case's category."""
        if self.verdict is None:
            return False
        category = self.case.category
        if category in (SAME, MARKUP):
            return self.verdict is Verdict.VERIFIED
        if category == CHANGED:
            return self.verdict is Verdict.CONTEXT_CHANGED
        if category == REWORDED:
            return self.verdict is Verdict.DRIFTED and self.found_expected
        if category == GONE:
            return self.verdict.is_stale
        return self.verdict is not Verdict.VERIFIED


def _comparable(text: str) -> str:
    return normalize(text).casefold()


# -- the corpus --------------------------------------------------------------------------


def engine_versions(folder: Path) -> list[Version]:
    """An engine's distinct README texts in history order (index.json), oldest first."""
    found: list[Version] = []
    for entry in json.loads((folder / "index.json").read_text(encoding="utf-8")):
        name = entry.get("file")
        if not name:
            continue
        text = (folder / name).read_text(encoding="utf-8")
        if not found or found[-1].text != text:
            found.append(Version(Path(name).stem, text))
    return found


def engines(root: Path = CORPUS) -> list[Path]:
    """The corpus engine folders, by name."""
    return sorted(p for p in root.iterdir() if p.is_dir())


# -- quotes ---------------------------------------------------------------------------------


def _substantial(quote: str) -> bool:
    """At least two words that carry meaning (a number, or three letters or more)."""
    return sum(1 for w in words(quote) if len(w) >= 3 or _NUMBER.search(w)) >= 2


def span_quote(text: str, rng: Random) -> str | None:
    """A sub-span of 4–14 words cut at whitespace, preferring one holding a number."""
    parts = text.split(" ")
    if len(parts) < 6:
        return None
    size = rng.randint(4, min(14, len(parts) - 1))
    starts = range(len(parts) - size + 1)
    numeric = [i for i in starts if any(_NUMBER.search(p) for p in parts[i : i + size])]
    start = rng.choice(numeric or list(starts))
    return " ".join(parts[start : start + size])


def unit_quotes(unit: Unit, rng: Random) -> list[str]:
    """Quotes a claim could take from a unit: the whole unit and a sub-span of it."""
    quotes = []
    if len(unit.text.split(" ")) <= MAX_WHOLE_WORDS:
        quotes.append(unit.text)
    span = span_quote(unit.text, rng)
    if span is not None:
        quotes.append(span)
    rng.shuffle(quotes)
    return [q for q in quotes if _substantial(q)]


def _bucket(unit: Unit, after: dict[str, Unit]) -> int:
    """0: the unit's text is in new with another context; 1: its text is not in new
    (edited or removed); 2: it is there with the same context."""
    same = after.get(unit.text)
    if same is None:
        return 1
    return 2 if same.context == unit.context else 0


def pair_cases(engine: str, old: Version, new: Version, plan: Plan = PLAN) -> list[Case]:
    """Quotes of old judged against new, drawn per category up to the plan's quotas.

    Units are tried by bucket (new context, edited or gone, unchanged), each with its
    own bounded number of tries, so the rarer categories are found when they exist.
    """
    rng = Random(f"{SEED}:{engine}:{old.name}:{new.name}")
    before, after = read_markdown(old.text), read_markdown(new.text)
    texts = {u.text: u for u in after.units}
    buckets: list[list[Unit]] = [[], [], []]
    for unit in before.units:
        buckets[_bucket(unit, texts)].append(unit)
    quota = dict(plan.per_pair)
    picked: list[Case] = []
    for bucket in buckets:
        rng.shuffle(bucket)
        for quote, expectation, category in _draw(bucket, before, after, quota, rng, plan):
            where = f"{old.name} -> {new.name}"
            picked.append(Case(category, engine, where, quote, old.text, new.text, expectation))
    return picked


def _draw(
    units: list[Unit],
    before: Document,
    after: Document,
    quota: dict[str, int],
    rng: Random,
    plan: Plan,
) -> Iterator[tuple[str, Expectation, str]]:
    """Quotes of these units with their expectation and category, while quotas last."""
    quotes = (q for unit in units for q in unit_quotes(unit, rng))
    for quote in itertools.islice(quotes, plan.tries_per_bucket):
        if not any(quota.values()):
            return
        if not before.is_unique(quote):
            continue
        expectation = expect(quote, before, after)
        category = _BY_EXPECTATION.get(expectation.verdict)
        category = GONE if expectation.verdict == "stale" else category
        if category is not None and quota.get(category):
            quota[category] -= 1
            yield quote, expectation, category


def _cut_inside(text: str, token: re.Match[str], rng: Random) -> str:
    """A quote whose one end falls inside `token` (at a joiner), with 1–2 words beside."""
    spans = [m.span() for m in _WORD_SPAN.finditer(text)]
    at = next(i for i, (s, e) in enumerate(spans) if s <= token.start() < e)
    joints = [token.start() + i for i, c in enumerate(token.group()) if c in JOINERS]
    joint = rng.choice(joints)
    extra = rng.randint(1, 2)
    if rng.random() < 0.5:  # drop the token's head: "2.5 GPUs" -> "5 GPUs"
        last = min(len(spans) - 1, at + extra)
        return text[joint + 1 : max(spans[last][1], token.end())]
    first = max(0, at - extra)  # drop its tail: "CUDA 12.8" -> "CUDA 12"
    return text[spans[first][0] : joint]


def token_class(token: str) -> int | None:
    """What a joined token is, for cutting inside it: 0 a number or version (`2.5`,
    `v0.6.3`, `1,100,000`, `CUDA 12.8`), 1 an identifier (`MIT-0`, `llama.cpp`,
    `TensorRT-LLM`), 2 another token with a digit (a date such as `2024/04`); None for
    a hyphenated word (`easy-to-use`), an abbreviation (`e.g`) or a plain word."""
    if not any(c in JOINERS for c in token) or token.casefold() in _ABBREVIATIONS:
        return None
    if _VERSION.search(token):
        return 0
    if _DATE.fullmatch(token):
        return 2
    named = any(c.isupper() or c.isdigit() for p in re.split(r"[-/]", token) for c in p[1:])
    return 1 if named or any(c in ".:" for c in token) else None


def subtoken_quotes(document: Document, rng: Random, count: int) -> list[str]:
    """Quotes cut inside a number, version or identifier of the page, never occurring in
    it on whole tokens: numbers and versions first, then identifiers, then dates."""
    found: list[list[str]] = [[], [], []]
    units = list(document.units)
    rng.shuffle(units)
    for unit in units:
        if len(found[0]) >= count and len(found[1]) >= count:
            break
        for token in TOKEN.finditer(unit.text):
            kind = token_class(token.group())
            if kind is None or len(found[kind]) >= count:
                continue
            quote = normalize(_cut_inside(unit.text, token, rng))
            if len(quote.split(" ")) >= 2 and _absent(document, quote):
                found[kind].append(quote)
                break
    mixed = [q for row in itertools.zip_longest(*found) for q in row if q]
    return mixed[:count]


def _absent(document: Document, quote: str) -> bool:
    """The quote has a word and is in no unit of the page, nor across two."""
    return bool(words(quote)) and not document.holders(quote) and not document.across(quote)


def boundary_quotes(document: Document, rng: Random, count: int) -> list[str]:
    """The last two words of a unit glued to the first two of the next one of its kind."""
    pairs = [
        (a, b)
        for a, b in itertools.pairwise(document.units)
        if a.kind == b.kind and a.kind in ("li", "tr", "p")
    ]
    rng.shuffle(pairs)
    found: list[str] = []
    for a, b in pairs:
        head, tail = a.text.split(" "), b.text.split(" ")
        if len(head) < 2 or len(tail) < 2:
            continue
        quote = " ".join(head[-2:] + tail[:2])
        if _substantial(quote) and not document.holders(quote) and document.across(quote):
            found.append(quote)
        if len(found) >= count:
            break
    return found


def version_cases(engine: str, version: Version, plan: Plan = PLAN) -> list[Case]:
    """Adversarial quotes of a version, judged against the version itself."""
    rng = Random(f"{SEED}:{engine}:{version.name}:adversarial")
    document = read_markdown(version.text)
    not_verified = Expectation("stale")
    cases = [
        Case(SUBTOKEN, engine, version.name, q, version.text, version.text, not_verified)
        for q in subtoken_quotes(document, rng, plan.subtoken_per_version)
    ]
    cases += [
        Case(BOUNDARY, engine, version.name, q, version.text, version.text, not_verified)
        for q in boundary_quotes(document, rng, plan.boundary_per_version)
    ]
    return cases


def formatting_edits() -> dict[str, Callable[[str], str]]:
    """The formatting-only edits of the corpus replay, imported only when needed: that
    module imports the judge, and while the judge is reworked it may not import. Then
    no markup-only case is drawn (the coverage test says why: `formatting_edits_error`)."""
    try:
        from support.corpus_replay import FORMATTING_EDITS
    except ImportError:
        return {}
    return dict(FORMATTING_EDITS)


def formatting_edits_error() -> str | None:
    """Why the formatting-only edits cannot be imported, if they cannot."""
    try:
        from support.corpus_replay import FORMATTING_EDITS  # noqa: F401
    except ImportError as error:
        return f"{type(error).__name__}: {error}"
    return None


def markup_cases(engine: str, version: Version, plan: Plan = PLAN) -> list[Case]:
    """Quotes of a version after each formatting-only edit the oracle deems harmless."""
    rng = Random(f"{SEED}:{engine}:{version.name}:markup")
    before = read_markdown(version.text)
    cases: list[Case] = []
    for name, edit in formatting_edits().items():
        edited = edit(version.text)
        if edited == version.text:
            continue
        after = read_markdown(edited)
        where = f"{version.name} ({name})"
        harmless = Expectation("verified")
        cases += [
            Case(MARKUP, engine, where, quote, version.text, edited, harmless)
            for quote in _harmless_quotes(before, after, rng, plan.markup_quotes)
        ]
    return cases


def _harmless_quotes(before: Document, after: Document, rng: Random, count: int) -> list[str]:
    """Quotes of `before` whose unit and context the oracle finds unchanged in `after`."""
    units = list(before.units)
    rng.shuffle(units)
    found: list[str] = []
    for quote in (q for unit in units for q in unit_quotes(unit, rng)):
        if len(found) >= count:
            break
        if before.is_unique(quote) and expect(quote, before, after).verdict == "verified":
            found.append(quote)
    return found


def sampled_pairs(
    engine: str, versions: list[Version], plan: Plan
) -> list[tuple[Version, Version]]:
    """The consecutive version pairs to replay: all, or a seeded sample spread over time."""
    pairs = list(itertools.pairwise(versions))
    wanted = plan.pairs_per_engine
    if wanted is None or len(pairs) <= wanted:
        return pairs
    picked = Random(f"{SEED}:{engine}:pairs").sample(range(len(pairs)), wanted)
    return [pairs[i] for i in sorted(picked)]


def engine_cases(folder: Path, plan: Plan = PLAN) -> list[Case]:
    """Every case of one engine: its sampled pairs, their versions, one markup version."""
    engine = folder.name
    pairs = sampled_pairs(engine, engine_versions(folder), plan)
    used = list({v.name: v for pair in pairs for v in pair}.values())
    cases: list[Case] = []
    for old, new in pairs:
        cases += pair_cases(engine, old, new, plan)
    for version in used:
        cases += version_cases(engine, version, plan)
    if used:
        cases += markup_cases(engine, Random(f"{SEED}:{engine}:markup").choice(used), plan)
    return cases


# -- judging ---------------------------------------------------------------------------------


def judge_case(case: Case) -> Outcome:
    """The judge's verdict on a case, through `support.judging` only."""
    claim = make_claim(case.quote)
    try:
        if case.category == MARKUP:
            before = judge_bodies(claim, case.baseline, baseline=case.baseline)
            if before.verdict is not Verdict.VERIFIED:
                return Outcome(case, before.verdict, before.found, before.reason, skipped=True)
        result = judge_bodies(claim, case.now, baseline=case.baseline)
    except Exception as error:  # a crash is a result to report, not a reason to stop
        return Outcome(case, None, None, f"error: {type(error).__name__}: {error}")
    return Outcome(case, result.verdict, result.found, result.reason)


@dataclass(frozen=True)
class Figure:
    """One measured figure and its target."""

    name: str
    value: float
    numerator: int
    denominator: int
    target: str
    met: bool
    percent: bool = True

    @property
    def shown(self) -> str:
        if not self.percent:
            return str(self.numerator)
        if not self.denominator:
            return "n/a"
        return f"{self.value:.1f}% ({self.numerator}/{self.denominator})"


@dataclass
class Evaluation:
    """All outcomes of a run, with the figures computed from them."""

    outcomes: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0

    def __repr__(self) -> str:
        return f"Evaluation({len(self.outcomes)} outcomes, {self.seconds:.1f} s)"

    def of(self, *categories: str) -> list[Outcome]:
        """The judged (not skipped) outcomes of these categories."""
        return [o for o in self.outcomes if o.case.category in categories and not o.skipped]

    def skipped(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.skipped]

    def figures(self) -> list[Figure]:
        """The figures with their targets, in the order they are reported."""
        return figures(self)


def _count(name: str, hits: Iterable[Outcome]) -> Figure:
    n = sum(1 for _ in hits)
    return Figure(name, float(n), n, n, "0", n == 0, percent=False)


def _share(name: str, hits: int, total: int, target: str, met: Callable[[float], bool]) -> Figure:
    value = 100.0 * hits / total if total else 0.0
    return Figure(name, value, hits, total, target, bool(total) and met(value))


def figures(run: Evaluation) -> list[Figure]:
    """The targets: adversarial, context, stale, markup and rewording figures."""
    changed, same = run.of(CHANGED), run.of(SAME)
    stale, reworded = run.of(REWORDED, GONE), run.of(REWORDED)
    return [
        _count("sub-token quotes verified", (o for o in run.of(SUBTOKEN) if _verified(o))),
        _count("block-boundary quotes verified", (o for o in run.of(BOUNDARY) if _verified(o))),
        _share(
            "context changed: judged context-changed",
            sum(1 for o in changed if o.verdict is Verdict.CONTEXT_CHANGED),
            len(changed),
            ">= 95%",
            lambda v: v >= 95.0,
        ),
        _share(
            "context same: judged context-changed",
            sum(1 for o in same if o.verdict is Verdict.CONTEXT_CHANGED),
            len(same),
            "<= 2%",
            lambda v: v <= 2.0,
        ),
        _share(
            "stale quotes caught (drifted/missing)",
            sum(1 for o in stale if o.verdict is not None and o.verdict.is_stale),
            len(stale),
            "100%",
            lambda v: v >= 100.0,
        ),
        _count("markup-only alarms", (o for o in run.of(MARKUP) if not _verified(o))),
        _share(
            "reworded: drifted with the expected found",
            sum(1 for o in reworded if o.agrees),
            len(reworded),
            ">= 80%",
            lambda v: v >= 80.0,
        ),
        _count("judge errors", (o for o in run.outcomes if o.verdict is None)),
    ]


def _verified(outcome: Outcome) -> bool:
    return outcome.verdict is Verdict.VERIFIED


def changed_parts(run: Evaluation) -> dict[str, tuple[int, int]]:
    """Per changed context part: (cases, judged context-changed)."""
    table: dict[str, tuple[int, int]] = {}
    for outcome in run.of(CHANGED):
        for part in outcome.case.expectation.changed:
            n, hit = table.get(part, (0, 0))
            table[part] = (n + 1, hit + (outcome.verdict is Verdict.CONTEXT_CHANGED))
    return table


def verdict_counts(run: Evaluation, category: str) -> Counter[str]:
    """How often each verdict was given in a category."""
    return Counter(str(o.verdict) if o.verdict else "error" for o in run.of(category))


def disagreements(run: Evaluation, category: str) -> Iterator[Outcome]:
    """The outcomes of a category where the judge and the oracle disagree."""
    return (o for o in run.of(category) if not o.agrees)


def run_evaluation(plan: Plan = PLAN, root: Path = CORPUS) -> Evaluation:
    """Build every case of every engine and judge it."""
    started = time.perf_counter()
    run = Evaluation()
    for folder in engines(root):
        run.outcomes += [judge_case(case) for case in engine_cases(folder, plan)]
    run.seconds = time.perf_counter() - started
    return run


@functools.cache
def evaluate() -> Evaluation:
    """The evaluation with the default plan, once per process."""
    return run_evaluation()
