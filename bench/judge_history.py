"""Measure the judge on real README history against an independent oracle; print the figures.

    .venv/bin/python bench/judge_history.py [--pairs N | --all-pairs] [--examples K]

Quotes are sampled (seeded, so every run draws the same ones) from each corpus engine's
consecutive README versions in `tests/data/corpus/readme-history/`; their expected
verdict comes from `tests/support/history_oracle.py` alone, the judge is called through
`tests/support/judging.py`. The logic lives in `tests/support/history_eval.py`, which
`tests/replay/test_judgement_history.py` asserts; this script only prints it.

Import convention: the script puts `tests/` on `sys.path` itself (as pytest does with
`pythonpath = ["tests"]`), so `support.*` imports need no PYTHONPATH.

The default plan (8 version pairs per engine) is the one the tests assert and runs in
well under a minute; `--all-pairs` replays every pair (several minutes).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from claimcheck.untrusted import clean_text, shorten
from support import history_eval as he

VERDICT_COLUMNS = ("verified", "context-changed", "drifted", "missing")


def show(text: str | None, width: int = 110) -> str:
    """A text from a README made safe for a terminal and cut to `width`."""
    return shorten(clean_text(text or ""), width)


def print_categories(run: he.Evaluation) -> None:
    """Per category: cases, agreement with the oracle, and the verdicts given."""
    print(f"{'category':<16} {'cases':>5} {'agree':>6}  " + "  ".join(VERDICT_COLUMNS) + "  other")
    total = agree = 0
    for category in he.CATEGORIES:
        outcomes = run.of(category)
        hits = sum(1 for o in outcomes if o.agrees)
        total, agree = total + len(outcomes), agree + hits
        counts = he.verdict_counts(run, category)
        other = sum(counts.values()) - sum(counts[v] for v in VERDICT_COLUMNS)
        cells = "  ".join(f"{counts[v]:>{len(v)}}" for v in VERDICT_COLUMNS)
        share = f"{100 * hits / len(outcomes):5.1f}%" if outcomes else "   n/a"
        print(f"{category:<16} {len(outcomes):>5} {share}  {cells}  {other:>5}")
    print(f"{'total':<16} {total:>5} {100 * agree / max(1, total):5.1f}%")
    skipped = len(run.skipped())
    if skipped:
        print(f"({skipped} markup-only quotes skipped: not verified before the edit)")


def print_engines(run: he.Evaluation) -> None:
    """Per engine: how many cases of each category were drawn, and how many agree."""
    names = sorted({o.case.engine for o in run.outcomes})
    short = [c.split("-")[-1][:8] for c in he.CATEGORIES]
    print(f"{'engine (agree/cases)':<40} " + " ".join(f"{s:>9}" for s in short))
    for name in names:
        cells = []
        for category in he.CATEGORIES:
            mine = [o for o in run.of(category) if o.case.engine == name]
            cells.append(f"{sum(o.agrees for o in mine)}/{len(mine)}".rjust(9))
        print(f"{name:<40} " + " ".join(cells))


def print_figures(run: he.Evaluation) -> None:
    """The figures against their targets."""
    print(f"{'figure':<46} {'value':>22}  {'target':>7}  met")
    for figure in run.figures():
        met = "yes" if figure.met else "NO"
        print(f"{figure.name:<46} {figure.shown:>22}  {figure.target:>7}  {met}")
    print("\ncontext changed, by changed part (a case may count under several):")
    for part, (cases, hits) in sorted(he.changed_parts(run).items()):
        print(f"  {part:<10} {cases:>4} cases, {hits:>4} judged context-changed")


def print_examples(run: he.Evaluation, count: int) -> None:
    """A few disagreements per category, so a developer can see why."""
    for category in he.CATEGORIES:
        shown = list(he.disagreements(run, category))
        if not shown:
            continue
        print(f"\n{category}: {len(shown)} disagreements, e.g.")
        for outcome in shown[:count]:
            case, want = outcome.case, outcome.case.expectation
            expected = {he.SUBTOKEN: "not verified", he.BOUNDARY: "not verified"}.get(
                category, want.verdict
            )
            parts = f" ({', '.join(want.changed)} changed)" if want.changed else ""
            print(f"  - {case.engine} {case.where}: {show(case.quote, 90)!r}")
            print(
                f"    expected {expected}{parts}; judged {outcome.verdict}: {show(outcome.reason)}"
            )
            if want.found:
                print(f"    expected found: {show(want.found[-1])!r}")
            if outcome.found is not None and category == he.REWORDED:
                print(f"    judge's found:  {show(outcome.found)!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--pairs", type=int, help="version pairs per engine (default: 8)")
    group.add_argument("--all-pairs", action="store_true", help="replay every version pair")
    parser.add_argument("--examples", type=int, default=4, help="disagreements per category")
    args = parser.parse_args()
    if not he.CORPUS.is_dir():
        sys.exit(f"corpus not found at {he.CORPUS}")
    plan = he.PLAN
    if args.all_pairs or args.pairs is not None:
        plan = dataclasses.replace(plan, pairs_per_engine=None if args.all_pairs else args.pairs)
    run = he.evaluate() if plan == he.PLAN else he.run_evaluation(plan)
    print(
        f"judge vs history oracle: {len(run.outcomes)} cases, "
        f"{plan.pairs_per_engine or 'all'} pairs per engine, {run.seconds:.1f} s\n"
    )
    why = he.formatting_edits_error()
    if why:
        print(f"no markup-only cases: the formatting-only edits do not import ({why})\n")
    print_categories(run)
    print()
    print_engines(run)
    print()
    print_figures(run)
    print_examples(run, args.examples)


if __name__ == "__main__":
    main()
