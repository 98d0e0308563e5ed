"""Benchmark the judging path on the real README corpus and print the figures.

    python bench/bench_verify.py [--claims 2000] [--profile]

It stores the newest README of each corpus engine as a snapshot, makes claims from
sentences of those READMEs (half verbatim, a quarter reworded, a quarter invented), and
times an offline `run_verify` over them, then each stage on its own: rendering the
Markdown to visible text, exact location, fuzzy location. Figures are printed as
absolute times and as ratios to the whole run, since this machine's speed varies.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import json
import pstats
import random
import re
import sys
import tempfile
import time
from pathlib import Path

from claimcheck.claims.parse import parse_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.config import Config
from claimcheck.forges.resolve import resolve_source
from claimcheck.judge.anchor import locate_anchor
from claimcheck.judge.verdict import page_text
from claimcheck.models import Anchor, Claim, MediaType
from claimcheck.pipeline import run_verify
from claimcheck.store.store import Store

PER_FILE = 200
CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "corpus" / "readme-history"


def newest_readmes() -> dict[str, str]:
    """repo URL → newest README text, from each engine's index.json head entry."""
    readmes = {}
    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        entries = json.loads((folder / "index.json").read_text())
        file = next(e["file"] for e in reversed(entries) if e.get("file"))
        owner, repo = folder.name.split("__", 1)
        readmes[f"https://github.com/{owner}/{repo}"] = (folder / file).read_text()
    return readmes


def sentences(text: str) -> list[str]:
    """Sentences of the page's units (paragraphs, items, rows), as claims quote them."""
    parts = [s for unit in page_text(text, MediaType.MARKDOWN).split("\n") for s in _split(unit)]
    return [p for p in parts if 40 <= len(p) <= 200]


def _split(unit: str) -> list[str]:
    return re.split(r"(?<=[.!?])\s+", unit)


def reword(sentence: str, rng: random.Random) -> str:
    words = sentence.split()
    i = rng.randrange(len(words))
    words[i] = "rewritten"
    return " ".join(words)


def build(
    root: Path, count: int, rng: random.Random, pool_file: Path | None
) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """Store the READMEs and write claims on them, in claim files of `PER_FILE` claims
    (a claim file has a size limit; the desk's pages have a few dozen claims each).
    With `pool_file`, the quotes are drawn from the (URL, sentence) pool saved there,
    or saved there when it does not exist yet, so that two versions of claimcheck are
    timed on the same claims."""
    readmes = newest_readmes()
    store = Store(root / "snapshots")
    pool: list[tuple[str, str]] = []
    for url, text in readmes.items():
        ref = resolve_source(url)
        store.save(
            key=ref.key,
            url=url,
            final_url=url,
            status=200,
            body=text.encode(),
            media=MediaType.MARKDOWN,
            fetched_at=dt.datetime(2026, 10, 20, tzinfo=dt.UTC),
        )
        pool.extend((url, s) for s in sentences(text))
    if pool_file is not None:
        if pool_file.exists():
            pool = [(u, s) for u, s in json.loads(pool_file.read_text())]
        else:
            pool_file.write_text(json.dumps(pool))
    files: list[tuple[str, str]] = []
    lines: list[str] = []
    for n in range(count):
        if n % PER_FILE == 0:
            if lines:
                files.append((f"bench-{len(files)}.yaml", "\n".join(lines) + "\n"))
            lines = [f"page: bench-{len(files)}", "checked: 2026-10-20", "claims:"]
        url, sentence = rng.choice(pool)
        kind = n % 4
        if kind == 2:
            sentence = reword(sentence, rng)
        elif kind == 3:
            sentence = f"An invented statement number {n} about nothing in particular at all."
        lines += [
            f"  - id: c{n}",
            "    claim: x",
            f"    source: {url}",
            f"    quote: {json.dumps(sentence)}",
        ]
    if lines:
        files.append((f"bench-{len(files)}.yaml", "\n".join(lines) + "\n"))
    return files, readmes


def timed(label: str, fn, total: float | None = None) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn()
    elapsed = time.perf_counter() - start
    ratio = f"  ({elapsed / total:.2f}× the whole run)" if total else ""
    print(f"{label:<44} {elapsed * 1000:9.1f} ms{ratio}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=2000)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--pool", type=Path, help="quotes pool file (written if absent) to compare versions"
    )
    args = parser.parse_args()
    if not CORPUS.is_dir():
        sys.exit(f"corpus not found at {CORPUS}")
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files, readmes = build(root, args.claims, rng, args.pool)
        claims = parse_claims(files, read=read_document)
        config = Config(root=root)
        print(
            f"{len(claims)} claims over {len(readmes)} sources "
            f"({sum(len(t) for t in readmes.values()) // 1024} KiB of Markdown)"
        )
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
        total = timed(
            "offline run_verify, all claims", lambda: run_verify(claims, config, online=None)
        )
        if args.profile:
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(15)
        texts = {}
        timed(
            "read 10 READMEs into page text",
            lambda: texts.update({u: page_text(t, MediaType.MARKDOWN) for u, t in readmes.items()}),
            total,
        )
        exact = [c for i, c in enumerate(claims) if i % 4 in (0, 1)]
        fuzzy = [c for i, c in enumerate(claims) if i % 4 in (2, 3)]

        def locate(subset: list[Claim]) -> None:
            for c in subset:
                assert c.anchor is not None
                assert c.source is not None
                locate_anchor(Anchor(quote=c.anchor.quote), texts[c.source], min_score=70)

        per = timed(f"locate {len(exact)} verbatim quotes", lambda: locate(exact), total)
        per_f = timed(
            f"locate {len(fuzzy)} changed/absent quotes (fuzzy)", lambda: locate(fuzzy), total
        )
        print(
            f"per verbatim quote: {per / len(exact) * 1e6:.0f} µs; "
            f"per fuzzy quote: {per_f / len(fuzzy) * 1e6:.0f} µs "
            f"(fuzzy/exact ratio {per_f / len(fuzzy) / (per / len(exact)):.0f}×)"
        )


if __name__ == "__main__":
    main()
