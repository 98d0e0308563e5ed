"""Side by side: claimcheck, curl, lychee and urlwatch fetching the same sources.

    python bench/side_by_side.py [--sources 1000] [--claims-per-source 10]
        [--latency 0.02[,0.1,...]] [--concurrency 32] [--runs 3]
        [--tools curl,lychee,urlwatch,claimcheck] [--no-history] [--distinct]
        [--require-peers]
        [--json FILE] [--claimcheck PATH]

One loopback server (`bench/loopback_github.py`, in its own process, so its CPU time is
not the measured tool's) serves N README-sized sources (real README texts of the
history corpus, about 16 KB each) shaped like GitHub's REST API, each answer after
`--latency` seconds. The corpus has a few hundred texts, so by default sources share
bodies (each about three times at 1,000 sources); `--distinct` gives every source a
body of its own, as on a real desk, where a cache keyed by body finds nothing twice.
Every tool runs as a subprocess at `--concurrency` requests in
flight and with no politeness delay, fetching the same URLs (the README API URLs with
the raw media type); it is timed by the wall clock, its peak RSS and its CPU time (user
+ system, its worker processes included) are read from `os.wait4`'s rusage (taken by a
small launcher process, so that the tool's figure does not start at this script's own
RSS), and the server counts the requests, body bytes, connections and its own CPU
seconds of each phase. The tables print the CPU time as seconds and as milliseconds a
source. The figures are medians of `--runs`
runs; the ratio to lychee is taken within each run, then its median is printed.

Rows, each a tool and a phase:

- bound: N × latency / concurrency, the time no tool at that concurrency can beat.
- curl `-Z --parallel-max C`: every URL once, bodies to /dev/null (no cache: cold only).
- lychee `--max-concurrency C --host-concurrency C --host-request-interval 0s`, no
  cache (cold only).
- urlwatch: cold is its first run with an empty cache, warm the second, which sends
  conditional requests. It has no concurrency setting: it runs its fixed thread pool
  (`urlwatch.worker.MAX_WORKERS`).
- claimcheck: cold is `claimcheck verify` into an empty snapshots/ folder (each claim's
  baseline backfilled from the commits API); warm the second `verify`, nothing changed;
  offline `verify --offline`, judging only (then again, every verdict kept, and then as
  on a fresh clone: without `snapshots/.cache`, every page read and every claim judged).
  `--no-history` adds a cold and a warm run against a second server whose commits API
  answers 404. Its config caps `per_host` (16 today); the cap is used and noted.
  `--claimcheck PATH` measures another build.

Given several latencies (`--latency 0.02,0.1`), it measures each in turn, the same
sources and claims against a server started for it, and times `claimcheck --help` five
times (its median is printed). After the tables it prints the performance issue's
targets, a column per latency, each met or not; a target set at one latency (the lychee
ratios at 100 ms, the urlwatch ones at 20 ms) is judged in that column only.

For claimcheck it also prints the verdict counts of each phase (its JSON report), and
how many files under the project its warm and offline runs wrote (paths, mtimes and
sizes compared before and after). Claims quote verbatim lines of their source's visible
text, so every verdict should be `verified`. The exit code is 1 when a tool exited with
anything but 0 (a failed fetch, a stale claim), else 0.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import loopback_github
from pydantic import ValidationError

from claimcheck.config import FetchConfig
from claimcheck.forges.github import RAW_MEDIA_TYPE
from claimcheck.judge.verdict import page_text
from claimcheck.models import MediaType

BENCH = Path(__file__).resolve().parent
SERVER_SCRIPT = BENCH / "loopback_github.py"
PEERS = ("curl", "lychee", "urlwatch")
TOOLS = (*PEERS, "claimcheck")
CLAIMS_PER_FILE = 200  # the claim-file parser caps a file's size; 200 claims fit well
QUOTE_MIN, QUOTE_MAX = 40, 200
TOOL_TIMEOUT = 3600.0
KIB = 1024.0 if sys.platform == "darwin" else 1.0  # ru_maxrss: bytes on macOS, KiB on Linux

ROWS: tuple[tuple[str, str], ...] = (
    ("bound", "cold"),
    ("bound", "warm"),
    ("curl", "cold"),
    ("lychee", "cold"),
    ("urlwatch", "cold"),
    ("urlwatch", "warm"),
    ("claimcheck", "cold"),
    ("claimcheck", "warm"),
    ("claimcheck", "offline"),
    ("claimcheck", "offline again"),
    ("claimcheck", "offline, fresh clone"),
    ("claimcheck --no-history", "cold"),
    ("claimcheck --no-history", "warm"),
)

CLAIMCHECK_PHASES = ("cold", "warm", "offline", "offline again", "offline, fresh clone")
FRESH_CLONE = "offline, fresh clone"
"""`verify --offline` without `snapshots/.cache` (never committed): a CI gate's run on a
fresh checkout, which reads every page and judges every claim."""
"""offline again: the same offline run a second time, when the verdicts of the first are
kept (a first offline run judges: its verdicts say "in the snapshot of ...", not "now")."""


@dataclass
class Phase:
    """One tool's run of one phase: what the clock, the kernel and the server saw."""

    tool: str
    phase: str
    wall_s: float
    peak_rss_kib: float
    exit_code: int
    cpu_s: float = math.nan  # user + system time of the tool's process (and its children)
    requests: int = 0
    body_bytes: int = 0
    connections: int = 0
    server_cpu_s: float = 0.0
    by_endpoint: dict[str, int] = field(default_factory=dict)
    by_status: dict[str, int] = field(default_factory=dict)
    verdicts: dict[str, int] | None = None
    files_written: list[str] | None = None
    tool_says: str | None = None


@dataclass
class Server:
    """A running loopback server process."""

    process: subprocess.Popen[bytes]
    base_url: str
    banner: str

    def stats(self, *, reset: bool = False) -> dict[str, Any]:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        url = f"{self.base_url}/__stats" + ("?reset=1" if reset else "")
        with opener.open(url, timeout=30) as answer:
            stats: dict[str, Any] = json.loads(answer.read())
        return stats

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# -- the sources and their claims --------------------------------------------------------


def quotes_of(path: Path) -> list[str]:
    """Lines of the README's visible text a claim can quote verbatim: one unit each,
    40–200 characters, printable, and found only once on the page."""
    lines = page_text(path.read_text(encoding="utf-8"), MediaType.MARKDOWN).split("\n")
    fitting = [
        line
        for line in lines
        if QUOTE_MIN <= len(line) <= QUOTE_MAX and line.isprintable() and line == line.strip()
    ]
    return [line for line in dict.fromkeys(fitting) if fitting.count(line) == 1]


def pick_files(sources: int, per_source: int) -> tuple[list[Path], dict[Path, list[str]]]:
    """The corpus files to take in turn (those with enough quotes), and their quotes."""
    files: list[Path] = []
    quotes: dict[Path, list[str]] = {}
    for path in loopback_github.corpus_cycle():
        if len(files) >= sources:
            break
        found = quotes_of(path)
        if len(found) >= per_source:
            files.append(path)
            quotes[path] = found
    if not files:
        raise SystemExit(f"no corpus README has {per_source} quotable lines")
    return files, quotes


def spread(items: Sequence[str], count: int) -> list[str]:
    """`count` items spread evenly over `items` (from its start to near its end)."""
    return [items[k * len(items) // count] for k in range(count)]


def write_claims(
    claims_dir: Path,
    files: Sequence[Path],
    quotes: dict[Path, list[str]],
    sources: int,
    per_source: int,
    checked: dt.date,
) -> int:
    """Claim files of at most 200 claims, `per_source` verbatim quotes per source."""
    claims_dir.mkdir(parents=True, exist_ok=True)
    rows: list[str] = []
    count = 0

    def flush() -> None:
        if rows:
            number = count // CLAIMS_PER_FILE - (0 if count % CLAIMS_PER_FILE else 1)
            page = f"bench-{number:04d}"
            head = [f"page: {page}", f"title: Side-by-side bench {number}", f"checked: {checked}"]
            text = "\n".join([*head, "claims:", *rows]) + "\n"
            (claims_dir / f"{page}.yaml").write_text(text, encoding="utf-8")
            rows.clear()

    for index in range(sources):
        path = files[index % len(files)]
        for number, quote in enumerate(spread(quotes[path], per_source)):
            rows += [
                f"  - id: engine-{index}-{number}",
                f"    claim: engine-{index}'s README says line {number}",
                f"    source: https://github.com/{loopback_github.OWNER}/engine-{index}",
                f"    quote: {json.dumps(quote, ensure_ascii=False)}",
            ]
            count += 1
            if count % CLAIMS_PER_FILE == 0:
                flush()
    flush()
    return count


def capped(name: str, wanted: int) -> int:
    """`wanted`, or the largest value claimcheck's config accepts for `[fetch] name`."""
    try:
        FetchConfig.model_validate({name: wanted})
        return wanted
    except ValidationError:
        limits = [getattr(m, "le", None) for m in FetchConfig.model_fields[name].metadata]
        return min([wanted, *(int(x) for x in limits if x is not None)])


def write_config(
    project: Path, base_url: str, concurrency: int, per_host_limit: int | None = None
) -> None:
    per_host = per_host_limit or capped("per_host", concurrency)
    text = f"""\
# Written by bench/side_by_side.py: every request to the loopback server, no delay.
claims = ["claims"]
snapshots = "snapshots"
github_api_url = "{base_url}"
wayback_url = "{base_url}"

[fetch]
concurrency = {capped("concurrency", concurrency)}
per_host = {per_host}
per_host_interval = 0
allow_addresses = ["127.0.0.1"]
"""
    (project / "claimcheck.toml").write_text(text, encoding="utf-8")


# -- running things ----------------------------------------------------------------------


def child_env(**extra: str) -> dict[str, str]:
    """The environment without proxies or a GitHub token, with no colours, and with Python
    free to keep bytecode (a tool installed by pip runs from compiled modules)."""
    drop = {"http_proxy", "https_proxy", "all_proxy", "github_token", "gh_token"}
    drop.add("pythondontwritebytecode")  # an installed tool runs from its compiled modules
    env = {k: v for k, v in os.environ.items() if k.lower() not in drop}
    env.update({"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"})
    env.update({"NO_COLOR": "1", "TERM": "dumb", **extra})
    return env


def start_server(
    sources: int,
    latency: float,
    head: dt.datetime,
    files_list: Path,
    logs: Path,
    history: str,
    *,
    distinct: bool = False,
) -> Server:
    command = [
        sys.executable,
        str(SERVER_SCRIPT),
        "--sources",
        str(sources),
        "--latency",
        str(latency),
        "--history",
        history,
        "--head-date",
        head.isoformat(),
        "--files",
        str(files_list),
        *(["--distinct"] if distinct else []),
    ]
    errors = (logs / f"server-{history}.err").open("wb")
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=errors, stdin=subprocess.DEVNULL, env=child_env()
    )
    errors.close()
    assert process.stdout is not None
    banner = process.stdout.readline().decode().strip()
    if not banner.startswith("http://"):
        process.kill()
        process.wait()
        detail = (logs / f"server-{history}.err").read_text(errors="replace")
        raise SystemExit(f"the loopback server did not start: {banner}\n{detail}")
    return Server(process, banner.split()[0], banner)


LAUNCHER = """
import json, os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execv(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - start
code = os.waitstatus_to_exitcode(status)
with open(sys.argv[1], "w") as out:
    cpu = usage.ru_utime + usage.ru_stime
    json.dump({"wall": wall, "maxrss": usage.ru_maxrss, "cpu": cpu, "code": code}, out)
"""
"""Forks and execs the tool, and reports its wall time and wait4 rusage: peak RSS, and
user + system CPU time, which counts the tool's own child processes too (the workers it
waited for), so a tool that reads pages in worker processes pays for them.

A child's ru_maxrss starts at its parent's RSS (fork copies the address space, and exec
keeps the old one's high-water mark), so the tool is started from this small
interpreter (`-I -S`, about 5 MiB) rather than from the benchmark, which holds
claimcheck's modules (about 60 MiB)."""


@dataclass
class Timed:
    """What the launcher saw of one process: the clock, and wait4's rusage."""

    wall_s: float
    peak_rss_kib: float
    cpu_s: float
    exit_code: int


def timed(command: Sequence[str], *, cwd: Path, env: dict[str, str], out: Path, err: Path) -> Timed:
    """Run `command`; its wall time, peak RSS, CPU time and exit code (wait4's rusage)."""
    executable = shutil.which(command[0]) or command[0]
    figures = out.with_suffix(".rusage")
    launcher = [sys.executable, "-I", "-S", "-c", LAUNCHER, str(figures), executable]
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(
            [*launcher, *command[1:]],
            cwd=cwd,
            env=env,
            stdout=stdout,
            stderr=stderr,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # a timeout ends the launcher's group: it and the tool
        )
        try:
            process.wait(timeout=TOOL_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return Timed(TOOL_TIMEOUT, math.nan, math.nan, -9)
    try:
        found = json.loads(figures.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Timed(math.nan, math.nan, math.nan, process.returncode or 127)
    return Timed(
        float(found["wall"]), float(found["maxrss"]) / KIB, float(found["cpu"]), int(found["code"])
    )


def listing(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under `root`: relative path → (mtime_ns, size)."""
    found = {}
    for path in root.rglob("*"):
        if path.is_file():
            info = path.stat()
            found[path.relative_to(root).as_posix()] = (info.st_mtime_ns, info.st_size)
    return found


def written(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    """Paths created, changed or removed between two listings."""
    changed = [p for p, seen in after.items() if before.get(p) != seen]
    return sorted([*changed, *(f"{p} (removed)" for p in before if p not in after)])


class Bench:
    """The project, the servers and the tools of one side-by-side measurement."""

    def __init__(self, args: argparse.Namespace, root: Path, tools: dict[str, str]) -> None:
        self.args = args
        self.root = root
        self.tools = tools
        self.project = root / "project"
        self.logs = root / "logs"
        self.logs.mkdir()
        self.urls: list[str] = []

    def measure(
        self,
        server: Server,
        tool: str,
        phase: str,
        command: Sequence[str],
        *,
        cwd: Path,
        env: dict[str, str],
    ) -> tuple[Phase, Path, Path]:
        server.stats(reset=True)
        out = self.logs / f"{tool}-{phase}.out".replace(" ", "")
        err = self.logs / f"{tool}-{phase}.err".replace(" ", "")
        seen = timed(command, cwd=cwd, env=env, out=out, err=err)
        stats = server.stats()
        result = Phase(
            tool,
            phase,
            seen.wall_s,
            seen.peak_rss_kib,
            seen.exit_code,
            cpu_s=seen.cpu_s,
            requests=stats["requests"],
            body_bytes=stats["body_bytes"],
            connections=stats["connections"],
            server_cpu_s=stats.get("server_cpu_s", 0.0),
            by_endpoint=stats["by_endpoint"],
            by_status=stats["by_status"],
        )
        return result, out, err

    def api_urls(self, server: Server) -> list[str]:
        owner = loopback_github.OWNER
        return [
            f"{server.base_url}/repos/{owner}/engine-{i}/readme" for i in range(self.args.sources)
        ]

    # -- the peers -----------------------------------------------------------------------

    def curl(self, server: Server) -> list[Phase]:
        folder = self.root / "curl"
        folder.mkdir(exist_ok=True)
        config = folder / "urls.curlrc"
        lines = [f'url = "{u}"\noutput = "/dev/null"' for u in self.api_urls(server)]
        config.write_text("\n".join(lines) + "\n", encoding="utf-8")
        command = [
            self.tools["curl"],
            "-Z",
            "--parallel-max",
            str(self.args.concurrency),
            "-s",
            "-S",
            "-H",
            f"Accept: {RAW_MEDIA_TYPE}",
            "--config",
            str(config),
        ]
        phase, _, _ = self.measure(server, "curl", "cold", command, cwd=folder, env=child_env())
        return [phase]

    def lychee(self, server: Server) -> list[Phase]:
        folder = self.root / "lychee"
        folder.mkdir(exist_ok=True)
        urls = folder / "urls.txt"
        urls.write_text("\n".join(self.api_urls(server)) + "\n", encoding="utf-8")
        concurrency = str(self.args.concurrency)
        command = [
            self.tools["lychee"],
            "--no-progress",
            "--max-concurrency",
            concurrency,
            "--host-concurrency",
            concurrency,
            "--host-request-interval",
            "0s",
            "--header",
            f"Accept: {RAW_MEDIA_TYPE}",
            "--format",
            "json",
            "--",
            str(urls),
        ]
        phase, out, _ = self.measure(server, "lychee", "cold", command, cwd=folder, env=child_env())
        try:
            report = json.loads(out.read_text(encoding="utf-8"))
            phase.tool_says = f"{report.get('total')} links, {report.get('successful')} ok"
        except (ValueError, AttributeError):
            phase.tool_says = None
        return [phase]

    def urlwatch(self, server: Server) -> list[Phase]:
        folder = self.root / "urlwatch"
        shutil.rmtree(folder, ignore_errors=True)
        (folder / "home").mkdir(parents=True)
        jobs = [
            f"name: engine-{i}\nurl: {url}\nheaders:\n  Accept: {RAW_MEDIA_TYPE}\n"
            for i, url in enumerate(self.api_urls(server))
        ]
        (folder / "urls.yaml").write_text("---\n".join(jobs), encoding="utf-8")
        (folder / "urlwatch.yaml").write_text(
            "report:\n  stdout:\n    enabled: true\n    color: false\n", encoding="utf-8"
        )
        command = [
            self.tools["urlwatch"],
            "--urls",
            str(folder / "urls.yaml"),
            "--config",
            str(folder / "urlwatch.yaml"),
            "--hooks",
            str(folder / "hooks.py"),
            "--cache",
            str(folder / "cache.db"),
        ]
        home = str(folder / "home")
        env = child_env(HOME=home, XDG_CONFIG_HOME=home, XDG_CACHE_HOME=home)
        phases = []
        for phase in ("cold", "warm"):
            result, _, _ = self.measure(server, "urlwatch", phase, command, cwd=folder, env=env)
            phases.append(result)
        return phases

    # -- claimcheck ----------------------------------------------------------------------

    def help_times(self) -> list[float]:
        """Wall seconds of `claimcheck --help`, HELP_RUNS times in a row: a user's first
        wait, which start-up alone decides."""
        times = []
        for number in range(HELP_RUNS):
            out = self.logs / f"claimcheck-help-{number}.out"
            seen = timed(
                [self.tools["claimcheck"], "--help"],
                cwd=self.project,
                env=child_env(),
                out=out,
                err=out.with_suffix(".err"),
            )
            times.append(seen.wall_s if seen.exit_code == 0 else math.nan)
        return times

    def claimcheck(self, server: Server, label: str, phases: Sequence[str]) -> list[Phase]:
        write_config(self.project, server.base_url, self.args.concurrency, self.args.per_host)
        snapshots = self.project / "snapshots"
        shutil.rmtree(snapshots, ignore_errors=True)
        snapshots.mkdir()
        env = child_env(
            GITHUB_API_URL=server.base_url,
            WAYBACK_URL=server.base_url,
            CLAIMCHECK_ALLOW_ADDRESSES="127.0.0.1",
        )
        results = []
        for phase in phases:
            command = [
                self.tools["claimcheck"],
                "verify",
                "--format",
                "json",
                "--no-progress",
                "--config",
                "claimcheck.toml",
                "--concurrency",
                str(capped("concurrency", self.args.concurrency)),
            ]
            if phase.startswith("offline"):
                command.append("--offline")
            if phase == FRESH_CLONE:
                shutil.rmtree(snapshots / ".cache", ignore_errors=True)
            before = listing(self.project)
            result, out, err = self.measure(
                server, label, phase, command, cwd=self.project, env=env
            )
            if phase != "cold":
                result.files_written = written(before, listing(self.project))
            try:
                counts = json.loads(out.read_text(encoding="utf-8"))["counts"]
                result.verdicts = {k: v for k, v in counts.items() if v}
            except (ValueError, KeyError, TypeError):
                result.verdicts = None
            says = [
                line
                for line in err.read_text(encoding="utf-8", errors="replace").splitlines()
                if line.strip()
            ]
            result.tool_says = " | ".join(says[-3:]) if says else None
            results.append(result)
        return results


# -- figures -----------------------------------------------------------------------------


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else math.nan


def summarize(
    runs: list[dict[str, Phase]], bound: float, sources: int
) -> dict[str, dict[str, Any]]:
    """Per row: medians over the runs, and the median of the per-run ratio to lychee."""
    summary: dict[str, dict[str, Any]] = {}
    for tool, phase in ROWS:
        key = f"{tool}/{phase}"
        if tool == "bound":
            summary[key] = {"wall_s": bound}
            continue
        seen = [run[key] for run in runs if key in run]
        if not seen:
            continue
        lychee = [
            run[key].wall_s / run["lychee/cold"].wall_s
            for run in runs
            if key in run and "lychee/cold" in run
        ]
        summary[key] = {
            "wall_s": median([p.wall_s for p in seen]),
            "to_lychee": median(lychee) if lychee else None,
            "to_bound": median([p.wall_s for p in seen]) / bound if bound else None,
            "peak_rss_mib": median([p.peak_rss_kib / 1024 for p in seen]),
            "cpu_s": median([p.cpu_s for p in seen]),
            "cpu_ms_per_source": median([p.cpu_s for p in seen]) * 1000 / sources,
            "requests": median([p.requests for p in seen]),
            "body_bytes": median([p.body_bytes for p in seen]),
            "connections": median([p.connections for p in seen]),
            "server_cpu_s": median([p.server_cpu_s for p in seen]),
            "exit_codes": sorted({p.exit_code for p in seen}),
        }
    return summary


def print_table(summary: dict[str, dict[str, Any]], sources: int) -> None:
    header = (
        "tool",
        "phase",
        "wall s",
        "× lychee",
        "× bound",
        "peak RSS MiB",
        "CPU s",
        "CPU ms/source",
        "requests",
        "req/source",
        "body MB",
        "connections",
        "server CPU s",
    )
    rows: list[tuple[str, ...]] = []
    for key, row in summary.items():
        tool, phase = key.split("/")
        if tool == "bound":  # one request per source, nothing else
            wall, blank = f"{row['wall_s']:.2f}", ("",) * (len(header) - 10)
            rows.append((tool, phase, wall, "", "1.0", "", "", "", f"{sources}", "1.00", *blank))
            continue
        rows.append(
            (
                tool,
                phase,
                f"{row['wall_s']:.2f}",
                "" if row["to_lychee"] is None else f"{row['to_lychee']:.2f}",
                "" if row["to_bound"] is None else f"{row['to_bound']:.1f}",
                f"{row['peak_rss_mib']:.0f}",
                f"{row['cpu_s']:.2f}",
                f"{row['cpu_ms_per_source']:.2f}",
                f"{row['requests']:.0f}",
                f"{row['requests'] / sources:.2f}",
                f"{row['body_bytes'] / 1e6:.1f}",
                f"{row['connections']:.0f}",
                f"{row['server_cpu_s']:.2f}",
            )
        )
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        padded = [
            c.ljust(w) if i < 2 else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "| " + " | ".join(padded) + " |"

    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row_cells in rows:
        print(line(row_cells))


def version_of(path: str) -> str:
    try:
        done = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except OSError as exc:
        return f"? ({exc})"
    return (
        (done.stdout or done.stderr).strip().splitlines()[0] if done.stdout or done.stderr else "?"
    )


def compile_claimcheck(executable: str) -> str:
    """Compile the measured claimcheck's own modules to bytecode, once, before any phase.

    pip compiles what it installs, but an editable install (a checkout) holds only the
    bytecode its runs happened to leave, so its runs would also time compiling. Its
    interpreter is the one named on the script's first line."""
    try:
        first = Path(executable).read_bytes().split(b"\n", 1)[0]
    except OSError as exc:
        return f"claimcheck: not compiled ({exc})"
    python = first[2:].decode().strip() if first.startswith(b"#!") else sys.executable
    find = "import claimcheck, os; print(os.path.dirname(claimcheck.__file__))"
    where = subprocess.run(
        [python, "-c", find], capture_output=True, text=True, env=child_env(), check=False
    )
    if where.returncode:
        return f"claimcheck: not compiled ({where.stderr.strip()[-200:]})"
    package = where.stdout.strip()
    subprocess.run([python, "-m", "compileall", "-q", package], env=child_env(), check=False)
    return "claimcheck: its modules compiled to bytecode first"


def find_tools(
    wanted: Sequence[str], require_peers: bool, claimcheck: str | None = None
) -> tuple[dict[str, str], list[str]]:
    """Executables of the wanted tools: next to this Python first, then on PATH."""
    found: dict[str, str] = {}
    notes: list[str] = []
    here = Path(sys.executable).parent
    for tool in wanted:
        if tool == "claimcheck" and claimcheck is not None:
            found[tool] = claimcheck
            continue
        local = here / tool
        path = str(local) if local.is_file() and os.access(local, os.X_OK) else shutil.which(tool)
        if path is None:
            if tool == "claimcheck" or require_peers:
                raise SystemExit(f"error: {tool} not found (next to {sys.executable} or on PATH)")
            notes.append(f"{tool}: not found, its rows are left out")
            continue
        found[tool] = path
    return found, notes


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sources", type=int, default=1000)
    parser.add_argument("--claims-per-source", type=int, default=10)
    parser.add_argument(
        "--latency",
        type=latencies,
        default=[0.02],
        help="seconds per answer; several, comma-separated, measure each in turn and "
        "print the issue's targets at each (0.02,0.05,0.1,0.2)",
    )
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--tools", default=",".join(TOOLS), help=f"comma-separated, of {', '.join(TOOLS)}"
    )
    parser.add_argument(
        "--no-history",
        action="store_true",
        help="also run claimcheck against a server whose commits API answers 404",
    )
    parser.add_argument(
        "--distinct",
        action="store_true",
        help="no two sources share a body (the corpus has a few hundred texts, so by "
        "default a thousand sources repeat each about three times)",
    )
    parser.add_argument(
        "--require-peers", action="store_true", help="a missing peer tool is an error"
    )
    parser.add_argument("--json", type=Path, help="write the figures to this file as JSON")
    parser.add_argument(
        "--keep",
        type=Path,
        help="work in this (new) folder and leave it: the project, its last snapshots and "
        "the server's files, to profile a phase again by hand",
    )
    parser.add_argument(
        "--claimcheck",
        help="the claimcheck executable to measure (default: the one next to this Python)",
    )
    parser.add_argument(
        "--per-host",
        type=int,
        help="claimcheck's [fetch] per_host (default: the concurrency, as high as this "
        "claimcheck allows); for an older claimcheck whose config caps it lower",
    )
    args = parser.parse_args(argv)
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = sorted(set(tools) - set(TOOLS))
    if unknown:
        parser.error(f"unknown tools: {', '.join(unknown)} (known: {', '.join(TOOLS)})")
    if len(set(args.latency)) != len(args.latency):
        parser.error("--latency: each latency once")
    if min(args.sources, args.claims_per_source, args.concurrency, args.runs) < 1:
        parser.error("--sources, --claims-per-source, --concurrency and --runs must be >= 1")
    args.tool_list = tools
    return args


def latencies(text: str) -> list[float]:
    """`--latency`: one or more seconds per answer, comma-separated, each >= 0."""
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not seconds: {text!r}") from None
    if not values or any(not math.isfinite(v) or v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"not seconds >= 0: {text!r}")
    return values


@dataclass
class AtLatency:
    """One latency's measurement: its runs and their medians, and `claimcheck --help`'s
    wall times."""

    latency_s: float
    bound_s: float
    runs: list[dict[str, Phase]]
    summary: dict[str, dict[str, Any]]
    help_s: list[float] = field(default_factory=list)


Reading = Callable[[AtLatency, int], float | None]
"""A target's value from one latency's measurement and the number of sources."""


@dataclass
class Target:
    """One of the performance issue's targets, read from a latency's figures.

    `compare` is how a value meets `limit`: "le" at most, "lt" below, "eq" exactly. A
    target set at one latency (`at_latency`) is judged only in that latency's column;
    the others show its value alone, for comparison."""

    name: str
    limit: float
    shape: str  # how a value is printed, e.g. "×{:.2f}"
    value: Reading
    compare: str = "le"
    at_latency: float | None = None

    def met(self, value: float) -> bool:
        if self.compare == "eq":
            return value == self.limit
        if self.compare == "lt":
            return value < self.limit
        return value <= self.limit

    def judged_at(self, latency: float) -> bool:
        return self.at_latency is None or math.isclose(latency, self.at_latency)

    def shown(self, value: float | None, latency: float) -> str:
        if value is None or math.isnan(value):
            return "n/a"
        if not self.judged_at(latency):
            return self.shape.format(value)
        return f"{self.shape.format(value)} {'met' if self.met(value) else 'NOT met'}"


def _row(key: str, field_name: str) -> Reading:
    def read(at: AtLatency, _: int) -> float | None:
        value = at.summary.get(key, {}).get(field_name)
        return None if value is None else float(value)

    return read


def _per_source(key: str) -> Reading:
    def read(at: AtLatency, sources: int) -> float | None:
        value = at.summary.get(key, {}).get("requests")
        return None if value is None else float(value) / sources

    return read


def _to_peer(key: str, peer: str) -> Reading:
    """claimcheck's wall time over a peer's in the same phase, the median of each run's
    ratio; None when the peer was not run."""

    def read(at: AtLatency, _: int) -> float | None:
        ratios = [
            run[key].wall_s / run[peer].wall_s for run in at.runs if key in run and peer in run
        ]
        return median(ratios) if ratios else None

    return read


def _most_files(key: str) -> Reading:
    def read(at: AtLatency, _: int) -> float | None:
        seen = [run[key].files_written for run in at.runs if key in run]
        return float(max(len(f) for f in seen if f is not None)) if seen else None

    return read


def _most_rss(at: AtLatency, _: int) -> float | None:
    seen = [row["peak_rss_mib"] for key, row in at.summary.items() if key.startswith("claimcheck")]
    return float(max(seen)) if seen else None


def _help(at: AtLatency, _: int) -> float | None:
    return median(at.help_s) if at.help_s else None


TARGETS = (
    Target(
        "at 100 ms: cold ≤ 2.5× lychee",
        2.5,
        "×{:.2f}",
        _row("claimcheck/cold", "to_lychee"),
        at_latency=0.1,
    ),
    Target(
        "at 100 ms: warm ≤ 1.2× lychee",
        1.2,
        "×{:.2f}",
        _row("claimcheck/warm", "to_lychee"),
        at_latency=0.1,
    ),
    Target(
        "CPU a source cold ≤ 4 ms", 4.0, "{:.2f} ms", _row("claimcheck/cold", "cpu_ms_per_source")
    ),
    Target(
        "CPU a source warm ≤ 1 ms", 1.0, "{:.2f} ms", _row("claimcheck/warm", "cpu_ms_per_source")
    ),
    Target(
        "at 20 ms: cold faster than urlwatch cold",
        1.0,
        "×{:.2f}",
        _to_peer("claimcheck/cold", "urlwatch/cold"),
        compare="lt",
        at_latency=0.02,
    ),
    Target(
        "at 20 ms: warm faster than urlwatch warm",
        1.0,
        "×{:.2f}",
        _to_peer("claimcheck/warm", "urlwatch/warm"),
        compare="lt",
        at_latency=0.02,
    ),
    Target("fresh clone ≤ 2 s", 2.0, "{:.2f} s", _row(f"claimcheck/{FRESH_CLONE}", "wall_s")),
    Target("offline again ≤ 2 s", 2.0, "{:.2f} s", _row("claimcheck/offline again", "wall_s")),
    Target("peak RSS ≤ 200 MiB", 200.0, "{:.0f} MiB", _most_rss),
    Target("cold ≤ 2 requests/source", 2.0, "{:.2f}", _per_source("claimcheck/cold")),
    Target("warm 1 request/source", 1.0, "{:.2f}", _per_source("claimcheck/warm"), compare="eq"),
    Target("warm 0 body bytes", 0.0, "{:.0f} B", _row("claimcheck/warm", "body_bytes")),
    Target("warm 0 files written", 0.0, "{:.0f}", _most_files("claimcheck/warm")),
    Target("--help ≤ 0.15 s", 0.15, "{:.3f} s", _help),
)
"""The performance issue's targets, at the issue's size when run with the defaults
(1,000 sources × 10 claims): at a smaller size the offline, CPU and memory targets are
met trivially. The urlwatch targets compare wall times within each run; "n/a" when
urlwatch (or lychee, for the lychee targets) was not run."""

HELP_RUNS = 5
"""How many times `claimcheck --help` is timed at each latency; its median is printed."""


def print_targets(measured: Sequence[AtLatency], sources: int) -> None:
    """The issue's targets at each latency measured, met or not."""
    header = ["target", *(f"{m.latency_s * 1000:g} ms" for m in measured)]
    rows = [
        [t.name, *(t.shown(t.value(m, sources), m.latency_s) for m in measured)] for t in TARGETS
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print()
    print(
        f"the performance targets at each latency, {sources} sources (medians; "
        "ratios taken within each run; a target set at one latency is judged in its column):"
    )
    for cells in [header, ["-" * w for w in widths], *rows]:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |")
    for target in TARGETS:
        if target.at_latency is not None and not any(
            target.judged_at(m.latency_s) for m in measured
        ):
            print(f"note: not judged, {target.at_latency * 1000:g} ms not measured: {target.name}")


def measure_at(
    args: argparse.Namespace,
    bench: Bench,
    latency: float,
    files_list: Path,
    head: dt.datetime,
) -> AtLatency:
    """Every run of every tool against one server answering after `latency` seconds."""
    sources = args.sources
    bound = sources * latency / args.concurrency
    servers = {
        history: start_server(
            sources,
            latency,
            head,
            files_list,
            bench.logs,
            history,
            distinct=args.distinct,
        )
        for history in ("ok", "404")
        if history == "ok" or (args.no_history and "claimcheck" in bench.tools)
    }
    print(f"  server: {servers['ok'].banner}; {load_average()}")
    runs: list[dict[str, Phase]] = []
    try:
        for number in range(args.runs):
            run: dict[str, Phase] = {}
            for step in steps_of(bench, list(bench.tools), servers):
                for phase in step():
                    run[f"{phase.tool}/{phase.phase}"] = phase
                    print(f"  run {number + 1}: {describe(phase, sources)}", flush=True)
            runs.append(run)
    finally:
        for server in servers.values():
            server.stop()
    help_s = bench.help_times() if "claimcheck" in bench.tools else []
    measured = AtLatency(latency, bound, runs, summarize(runs, bound, sources), help_s)
    print()
    print(
        f"{sources} sources × {latency * 1000:g} ms / {args.concurrency} concurrent: "
        f"bound {bound:.2f} s; medians of {len(runs)} run(s), × lychee taken within each run"
    )
    print_table(measured.summary, sources)
    if help_s:
        shown = ", ".join(f"{t:.3f}" for t in help_s)
        print(f"claimcheck --help: median {median(help_s):.3f} s of {len(help_s)} ({shown} s)")
    last = runs[-1] if runs else {}
    for key, phase in last.items():
        if phase.tool.startswith("claimcheck") and phase.requests:
            endpoints = ", ".join(f"{k} {v}" for k, v in phase.by_endpoint.items())
            statuses = ", ".join(f"{k} {v}" for k, v in phase.by_status.items())
            print(f"{key} requests by endpoint: {endpoints}; by status: {statuses}")
    for key, phase in last.items():
        if phase.verdicts is not None:
            print(f"{key} verdicts: {format_counts(phase.verdicts)}")
        if phase.files_written is not None:
            print(f"{key} files written: {len(phase.files_written)}{where(phase.files_written)}")
    return measured


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    tools, notes = find_tools(args.tool_list, args.require_peers, args.claimcheck)
    sources, per_source = args.sources, args.claims_per_source
    now = dt.datetime.now(dt.UTC)
    head = now.replace(hour=12, minute=0, second=0, microsecond=0) - dt.timedelta(days=10)
    checked = (now - dt.timedelta(days=3)).date()
    started = time.perf_counter()
    files, quotes = pick_files(sources, per_source)
    readme_bytes = sum(files[i % len(files)].stat().st_size for i in range(sources))
    shown_latencies = ", ".join(f"{latency * 1000:g}" for latency in args.latency)
    print(
        f"side by side: {sources} sources ({readme_bytes / 1e6:.1f} MB of READMEs, "
        f"{sources if args.distinct else len(files)} distinct texts), {per_source} claims "
        f"each, {shown_latencies} ms "
        f"latency, {args.concurrency} concurrent, {args.runs} run(s)"
    )
    for tool, path in tools.items():
        print(f"  {tool}: {version_of(path)}")
    if "claimcheck" in tools:
        print(f"  {compile_claimcheck(tools['claimcheck'])}")
    per_host = args.per_host or capped("per_host", args.concurrency)
    if "claimcheck" in tools and per_host < args.concurrency:
        notes.append(
            f"claimcheck: [fetch] per_host is capped at {per_host} by its config "
            f"(asked {args.concurrency}); concurrency {capped('concurrency', args.concurrency)}"
        )
    if "urlwatch" in tools:
        notes.append(
            f"urlwatch: no concurrency setting; it runs its fixed thread pool of "
            f"{urlwatch_workers()} (urlwatch.worker.MAX_WORKERS), a new connection per request"
        )
    measured: list[AtLatency] = []
    with contextlib.ExitStack() as stack:
        if args.keep is not None:
            args.keep.mkdir(parents=True)
            root = args.keep.resolve()
        else:
            root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="side-by-side-")))
        bench = Bench(args, root, tools)
        files_list = root / "files.txt"
        corpus = loopback_github.CORPUS
        files_list.write_text(
            "\n".join(f.relative_to(corpus).as_posix() for f in files) + "\n", encoding="utf-8"
        )
        if "claimcheck" in tools:
            count = write_claims(
                bench.project / "claims", files, quotes, sources, per_source, checked
            )
            print(f"  {count} claims in {math.ceil(count / CLAIMS_PER_FILE)} claim files")
        print(f"  setup took {time.perf_counter() - started:.1f} s")
        for latency in args.latency:
            measured.append(measure_at(args, bench, latency, files_list, head))
    if "claimcheck" in tools:
        print_targets(measured, sources)
    notes.append(f"{load_average()} at the end ({os.cpu_count()} CPUs): other load skews times")
    failed = sorted(
        {
            f"{at.latency_s * 1000:g} ms {k} exit {p.exit_code}"
            for at in measured
            for run in at.runs
            for k, p in run.items()
            if p.exit_code
        }
    )
    for note in [*notes, *(f"non-zero exit: {f}" for f in failed)]:
        print(f"note: {note}")
    if args.json is not None:
        document = {
            "config": {
                "sources": sources,
                "claims_per_source": per_source,
                "latencies_s": args.latency,
                "concurrency": args.concurrency,
                "runs": args.runs,
                "tools": list(tools),
                "readme_bytes": readme_bytes,
                "checked": checked.isoformat(),
                "head_commit": head.isoformat(),
                "distinct_bodies": args.distinct,
            },
            "at": [
                {
                    "latency_s": at.latency_s,
                    "bound_s": at.bound_s,
                    "summary": at.summary,
                    "runs": [{k: asdict(p) for k, p in run.items()} for run in at.runs],
                    "help_s": at.help_s,
                    "targets": {t.name: t.value(at, sources) for t in TARGETS},
                }
                for at in measured
            ],
            "notes": notes,
        }
        args.json.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return 1 if failed else 0


def steps_of(
    bench: Bench, tools: Sequence[str], servers: dict[str, Server]
) -> list[Callable[[], list[Phase]]]:
    """One run's steps, in order: each tool's phases (claimcheck's also without history)."""
    ok = servers["ok"]
    steps: list[Callable[[], list[Phase]]] = []
    for tool in tools:
        if tool == "curl":
            steps.append(lambda: bench.curl(ok))
        elif tool == "lychee":
            steps.append(lambda: bench.lychee(ok))
        elif tool == "urlwatch":
            steps.append(lambda: bench.urlwatch(ok))
        elif tool == "claimcheck":
            steps.append(lambda: bench.claimcheck(ok, "claimcheck", CLAIMCHECK_PHASES))
            if "404" in servers:
                no, label = servers["404"], "claimcheck --no-history"
                steps.append(lambda: bench.claimcheck(no, label, ("cold", "warm")))  # noqa: B023
    return steps


def load_average() -> str:
    """The machine's load, since other work on it slows every tool."""
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"


def urlwatch_workers() -> str:
    """urlwatch's fixed number of worker threads, when its package is importable here."""
    try:
        from urlwatch import worker  # type: ignore[import-untyped]
    except ImportError:
        return "?"
    return str(getattr(worker, "MAX_WORKERS", "?"))


def where(paths: Sequence[str]) -> str:
    """Paths written, counted by folder (three levels deep) and by what happened to them."""
    groups: dict[str, Counter[str]] = {}
    for path in paths:
        name, removed = path.removesuffix(" (removed)"), path.endswith(" (removed)")
        folder = "/".join(name.split("/")[:-1][:3]) or "."
        groups.setdefault(folder, Counter())["removed" if removed else "written"] += 1
    parts = [
        f"{folder}/: " + ", ".join(f"{n} {what}" for what, n in sorted(counts.items()))
        for folder, counts in sorted(groups.items())
    ]
    return f" ({'; '.join(parts)})" if parts else ""


def format_counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"


def describe(phase: Phase, sources: int) -> str:
    text = (
        f"{phase.tool} {phase.phase}: {phase.wall_s:.2f} s, {phase.cpu_s:.2f} s CPU, "
        f"{phase.peak_rss_kib / 1024:.0f} MiB, "
        f"{phase.requests} requests ({phase.requests / sources:.2f}/source), "
        f"{phase.body_bytes / 1e6:.1f} MB"
    )
    if phase.exit_code:
        text += f", exit {phase.exit_code}"
    if phase.verdicts is not None:
        text += f"; verdicts: {format_counts(phase.verdicts)}"
    if phase.files_written is not None:
        text += f"; files written: {len(phase.files_written)}"
    return text


if __name__ == "__main__":
    sys.exit(main())
