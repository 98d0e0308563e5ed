"""Time reading pages into units, Lexbor against the html5lib reader it replaced.

    python bench/bench_read_pages.py [--repeat 3] [--pages N] [--profile]

Every README version of `tests/data/corpus/readme-history/` is read by `read_page` (the
judge's reader: cmark-gfm, then Lexbor) and by `support.html5lib_reader.read_page` (the
old reader, frozen in the tests as the parity oracle), and both are checked to give the
same pages. Printed: pages/s and MB/s of Markdown for each, the ratio, and the share of
the time cmark-gfm's rendering takes (common to both). Each figure is the best of
`--repeat` runs, since this machine's speed varies. `--profile` then profiles the Lexbor
reader over the corpus with cProfile and prints its top costs.

Import convention: the script puts `tests/` on `sys.path` itself (as pytest does with
`pythonpath = ["tests"]`), so `support.*` imports need no PYTHONPATH.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import cmarkgfm

from claimcheck.judge.units import read_page
from claimcheck.models import MediaType
from claimcheck.page import Page
from support import html5lib_reader, paths

Reader = Callable[[str, MediaType], Page]


def corpus(limit: int | None) -> list[str]:
    """The corpus's README versions, as text, in a fixed order."""
    files = sorted(paths.CORPUS.glob("*/*.md"))
    if not files:
        raise SystemExit(f"no README versions under {paths.CORPUS}")
    return [f.read_bytes().decode("utf-8") for f in files[:limit]]


def best_time(run: Callable[[], object], repeat: int) -> float:
    """The fastest of `repeat` runs, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def read_all(reader: Reader, bodies: list[str]) -> list[Page]:
    return [reader(body, MediaType.MARKDOWN) for body in bodies]


def render_all(bodies: list[str]) -> None:
    for body in bodies:
        cmarkgfm.github_flavored_markdown_to_html(body, options=cmarkgfm.Options.CMARK_OPT_UNSAFE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (best is kept)")
    parser.add_argument("--pages", type=int, default=None, help="read only the first N versions")
    parser.add_argument("--profile", action="store_true", help="profile the Lexbor reader")
    args = parser.parse_args()

    bodies = corpus(args.pages)
    megabytes = sum(len(body.encode("utf-8")) for body in bodies) / 1e6
    differing = sum(
        old != new
        for old, new in zip(
            read_all(html5lib_reader.read_page, bodies), read_all(read_page, bodies), strict=True
        )
    )
    print(f"{len(bodies)} README versions, {megabytes:.1f} MB of Markdown")
    print(f"pages read differently by the two readers: {differing}")

    render = best_time(lambda: render_all(bodies), args.repeat)
    timings = {
        "html5lib + bs4": best_time(
            lambda: read_all(html5lib_reader.read_page, bodies), args.repeat
        ),
        "lexbor": best_time(lambda: read_all(read_page, bodies), args.repeat),
    }
    print(f"{'reader':<16} {'seconds':>8} {'pages/s':>9} {'MB/s':>7} {'cmark share':>12}")
    for name, seconds in timings.items():
        print(
            f"{name:<16} {seconds:>8.3f} {len(bodies) / seconds:>9.1f} "
            f"{megabytes / seconds:>7.2f} {100 * render / seconds:>11.1f}%"
        )
    old, new = timings.values()
    print(f"speed-up: {old / new:.1f}x (cmark-gfm rendering alone: {render:.3f} s)")
    if differing:
        raise SystemExit("the readers disagree: run tests/judge/test_parser_parity.py")

    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(read_all, read_page, bodies)
        pstats.Stats(profile).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
