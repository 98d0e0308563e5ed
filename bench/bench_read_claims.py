"""Benchmark reading claim files (`parse_claims`) and print the figures.

    python bench/bench_read_claims.py [--claims 10000] [--per-file 200] [--runs 7]
                                      [--old RUNS] [--profile]

It writes claims in files of `--per-file` (a claim file has a size limit; the desk's
pages have a few dozen claims each) in the shapes real claim files use: plain, double-
and single-quoted and block scalars, quotes with `quote_end`, `prefix` and `suffix`,
text-fragment URLs, per-claim check dates, citation-needed claims, comments, and text
outside ASCII. It times `parse_claims` over all of them (the median of `--runs` runs,
wall and CPU time, since a shared machine's speed varies), with `--old N` the ruamel
reader it replaced too (tests/support/ruamel_claims.py), then the same files written to
disk and read as a run reads them when none changed since its last read (`load_claims`,
which takes what each file gave from the snapshots' `.cache`), and with `--profile`
profiles one run and sums the time by where it is spent: libyaml, building values from
its nodes, pydantic, the field validators, text normalization, text fragments, the
parser itself.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import functools
import json
import pstats
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from claimcheck.claims.fragment import build_text_fragment
from claimcheck.claims.parse import parse_claims
from claimcheck.claims.yaml_read import read_document

TODAY = dt.date(2026, 10, 21)
PHRASE = (
    "the engine supports quantization of weights to 4-bit and 8-bit integers with "
    "continuous batching paged attention speculative decoding on CUDA ROCm Metal and "
    "Vulkan backends; it serves an OpenAI-compatible API (v1) for chat completions"
)
WORDS = PHRASE.split()
WORLD = ["café", "naïve", "서빙", "엔진", "推理", "—", "“quoted”", "C/C++", "🚀", "½"]
SOURCES = [
    "https://github.com/ggml-org/llama.cpp",
    "https://github.com/vllm-project/vllm",
    "https://github.com/sgl-project/sglang/blob/main/README.md",
    "https://docs.example.org/guide/install.html",
    "https://example.com/blog/2026/10/release-notes?lang=en",
]


def sentence(rng: random.Random, low: int = 4, high: int = 16) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words)), rng.choice(WORLD))
    return " ".join(words)


def scalar(text: str, rng: random.Random, indent: str = "    ") -> str:
    """`text` written as a YAML scalar in one of the styles claim files use."""
    style = rng.random()
    if style < 0.4:
        return json.dumps(text, ensure_ascii=rng.random() < 0.5)
    if style < 0.6:
        return "'" + text.replace("'", "''") + "'"
    if style < 0.75:
        return f">-\n{indent}  {text}"
    plain_safe = (
        not any(c in text for c in ":#'\"[]{},&*!|>%@`")
        and text.strip() == text
        and text[0] not in "-?"
    )
    return text if plain_safe else json.dumps(text, ensure_ascii=False)


def claim_lines(n: int, rng: random.Random) -> list[str]:
    """The lines of one claim entry: a varied mix of the fields and styles."""
    lines = [f"  - id: claim-{n}", f"    claim: {scalar(sentence(rng), rng)}"]
    kind = rng.random()
    if kind < 0.1:
        lines.append(f"    cited: {scalar('the vendor datasheet, p. ' + str(n % 40), rng)}")
    elif kind < 0.3:
        url = build_text_fragment(
            f"{rng.choice(SOURCES)}#section-{n % 7}",
            sentence(rng, 3, 8),
            prefix=sentence(rng, 1, 3) if rng.random() < 0.5 else None,
            suffix=sentence(rng, 1, 3) if rng.random() < 0.5 else None,
        )
        lines.append(f"    source: {url}")
    else:
        lines.append(f"    source: {rng.choice(SOURCES)}")
        lines.append(f"    quote: {scalar(sentence(rng), rng)}")
        if rng.random() < 0.15:
            lines.append(f"    quote_end: {scalar(sentence(rng, 2, 5), rng)}")
        if rng.random() < 0.2:
            lines.append(f"    prefix: {scalar(sentence(rng, 1, 3), rng)}")
        if rng.random() < 0.2:
            lines.append(f"    suffix: {scalar(sentence(rng, 1, 3), rng)}")
    if rng.random() < 0.3:
        day = dt.date(2026, 1, 1) + dt.timedelta(days=rng.randrange(290))
        lines.append(f"    checked: {day.isoformat()}")
    if rng.random() < 0.1:
        lines[1] += "   # as the page words it"
    if rng.random() < 0.05:
        lines.insert(0, "  # ------------------------------------------------ next section")
    return lines


def build_files(count: int = 10_000, per_file: int = 200, seed: int = 7) -> list[tuple[str, str]]:
    """(name, text) of `count` claims in files of `per_file` claims, the same for a seed."""
    rng = random.Random(seed)
    files: list[tuple[str, str]] = []
    for first in range(0, count, per_file):
        page = len(files)
        lines = [
            f"# Claims of the bench page {page}: generated, in the shapes real files use.",
            f"page: bench-{page}",
            f"title: {scalar(f'Bench page {page}: {sentence(rng, 2, 6)}', rng, '')}",
            "checked: 2026-10-20   # the default check date of the claims below",
            "claims:",
        ]
        for n in range(first, min(first + per_file, count)):
            lines += claim_lines(n, rng)
        files.append((f"claims/bench-{page}.yaml", "\n".join(lines) + "\n"))
    return files


def time_runs(
    read: Callable[..., object], files: list[tuple[str, str]], runs: int
) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of each run (this machine is shared: CPU time varies less)."""
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        read(files, today=TODAY)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return walls, cpus


def time_kept(files: list[tuple[str, str]], runs: int) -> tuple[list[float], list[float]]:
    """Reading the files from disk as a run does when none changed since the last read:
    `load_claims` with a snapshots folder, whose `.cache` keeps what each file gave."""
    from claimcheck.claims.load import load_claims

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for name, text in files:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text, encoding="utf-8")
        (root / "snapshots").mkdir()
        paths = [root / "claims"]
        # reads, and keeps
        first = load_claims(paths, kept_in=root / "snapshots", read=read_document)
        walls, cpus = [], []
        for _ in range(runs):
            wall, cpu = time.perf_counter(), time.process_time()
            again = load_claims(paths, kept_in=root / "snapshots", read=read_document)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        assert again == first
    return walls, cpus


def report(label: str, count: int, walls: list[float], cpus: list[float]) -> None:
    median = statistics.median(walls)
    print(
        f"{label}: median {median * 1000:.0f} ms (min {min(walls) * 1000:.0f}, "
        f"max {max(walls) * 1000:.0f}; CPU median {statistics.median(cpus) * 1000:.0f}); "
        f"{count / median:,.0f} claims/s; {median * 10_000 / count * 1000:.0f} ms per 10k claims"
    )


def old_reader() -> Callable[..., object]:
    """The ruamel reader as it was (the parity tests' oracle), to time side by side."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from support.ruamel_claims import parse_claims as ruamel_parse_claims

    return ruamel_parse_claims


# Where a profiled function's own time is counted: the first stage whose test its file
# and function pass (a built-in's file is "~"; C code is counted in its Python caller).
COMPOSE_HOOKS = {"_compose", "_descend", "_ascend", "resolve", "get_single_node"}
STAGES: list[tuple[str, Callable[[str, str], bool]]] = [
    ("YAML: ruamel (pure Python)", lambda f, fn: "ruamel" in f),
    (
        "YAML: libyaml parse + compose",
        lambda f, fn: (
            "/yaml/" in f
            or (f.endswith(("yaml_read.py", "yaml_loader.py")) and fn in COMPOSE_HOOKS)
        ),
    ),
    ("YAML: values from nodes", lambda f, fn: f.endswith(("yaml_read.py", "yaml_text.py"))),
    ("pydantic core", lambda f, fn: "pydantic" in f or "validate_python" in fn),
    ("field validators", lambda f, fn: f.endswith("field_checks.py")),
    ("text normalization", lambda f, fn: "normalize.py" in f or "normalize" in fn),
    ("text fragments, URLs", lambda f, fn: "fragment.py" in f or "urllib" in f),
    ("claims/: the parser, its checks, lines", lambda f, fn: "/claims/" in f),
]


def stage_of(filename: str, function: str) -> str:
    return next(
        (stage for stage, test in STAGES if test(filename, function)),
        "built-ins (re, dict, ...), the collector",
    )


def profile(files: list[tuple[str, str]]) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    parse_claims(files, today=TODAY, read=read_document)
    profiler.disable()
    stats = pstats.Stats(profiler)
    raw = stats.stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in raw.values())
    by_stage: dict[str, float] = {}
    for (filename, _, function), entry in raw.items():
        stage = stage_of(filename, function)
        by_stage[stage] = by_stage.get(stage, 0.0) + entry[2]
    print(f"\nprofiled run (cProfile adds overhead): {total * 1000:.0f} ms of own time")
    for stage, spent in sorted(by_stage.items(), key=lambda kv: -kv[1]):
        print(f"  {stage:<28} {spent * 1000:8.1f} ms  {spent / total:6.1%}")
    print()
    stats.sort_stats("tottime").print_stats(12)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--claims", type=int, default=10_000)
    parser.add_argument("--per-file", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--old", type=int, default=0, metavar="RUNS", help="also time the ruamel reader RUNS times"
    )
    args = parser.parse_args()
    files = build_files(args.claims, args.per_file)
    size = sum(len(text.encode()) for _, text in files)
    claims = parse_claims(files, today=TODAY, read=read_document)  # also a warm-up
    assert len(claims) == args.claims
    print(
        f"{len(claims)} claims in {len(files)} files ({size // 1024} KiB of YAML), {args.runs} runs"
    )
    ours = functools.partial(parse_claims, read=read_document)
    report("parse_claims (libyaml)", len(claims), *time_runs(ours, files, args.runs))
    report("the same files kept (load_claims)", len(claims), *time_kept(files, args.runs))
    if args.old:
        report("ruamel reader (before)", len(claims), *time_runs(old_reader(), files, args.old))
    if args.profile:
        profile(files)


if __name__ == "__main__":
    main()
