"""Time a rendered fetch (`render = "browser"`) against a plain one, per page, on loopback.

    python bench/bench_render.py [--pages 5] [--run 8 --jobs 4 --repeat 3]

The Docusaurus-shaped fixture page of `tests/data/rendered` (its HTML, then the script
that writes its article) is served on 127.0.0.1 by the tests' own site
(`support/render_site.py`). Each page is fetched `--pages` times three ways, one after
the other: the plain way (the fetcher, over the connection guard); rendered in a
headless Chromium started for that page alone; and rendered in one browser kept for
all the pages (`render.Renderer`, as a run renders), each page in a context of its
own. Printed, per page: the wall time and the CPU time (this process and its reaped
children: a browser's CPU is counted once it stops, so the kept browser's figures are
its whole session, launch included, divided by the pages), medians for the first two
ways, and the ratios. With `--run N`, also a whole cold `claimcheck verify` over N
sources to render (the same page under N URLs), with one browser (`--jobs 0`) and with
as many side by side as `--jobs J` gives (`render.browsers_to_use`: one for every two
workers), alternating, `--repeat` times each: the medians and their ratio.

Import convention: the script puts `tests/` on `sys.path` itself (as pytest does with
`pythonpath = ["tests"]`), so `support.*` imports need no PYTHONPATH.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from claimcheck.net.addresses import AddressPolicy
from claimcheck.net.fetch import Fetched, FetchRequest
from claimcheck.net.fetcher import Fetcher, FetchSettings
from claimcheck.render.render import (
    Rendered,
    Renderer,
    RenderOutcome,
    browsers_to_use,
    find_browser,
    render_page,
)
from support.claim_files import write_claims
from support.render_site import RenderSite, render_site

QUOTE = "Tidewater routes each request to the least loaded inference worker."


def cpu_seconds() -> float:
    """CPU time of this process and of its reaped children, user and system."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(step: Callable[[], None], pages: int) -> tuple[float, float]:
    """Median wall and CPU seconds of one page, over `pages` pages."""
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(pages):
        wall, cpu = time.perf_counter(), cpu_seconds()
        step()
        walls.append(time.perf_counter() - wall)
        cpus.append(cpu_seconds() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def has_article(page: RenderOutcome) -> None:
    """Stop the benchmark unless the render holds the script's article."""
    if not isinstance(page, Rendered) or QUOTE not in page.dom.decode():
        raise SystemExit(f"the render lacks the article: {page}")


def time_runs(site: RenderSite, sources: int, jobs: int, repeat: int) -> dict[int, list[float]]:
    """Wall seconds of cold `claimcheck verify` runs over `sources` pages to render, with
    `--jobs 0` and `--jobs jobs`, alternating."""
    url = site.url("docusaurus-client.html")
    today = dt.datetime.now(dt.UTC).date().isoformat()
    claimcheck = str(Path(sys.executable).parent / "claimcheck")
    env = {**os.environ, "CLAIMCHECK_ALLOW_ADDRESSES": site.origin, "NO_COLOR": "1"}
    walls: dict[int, list[float]] = {0: [], jobs: []}
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        (project / "claimcheck.toml").write_text(
            "[fetch]\nper_host_interval = 0\n\n[verdict]\nmax_age_days = 0\n"
        )
        claims = [
            {
                "id": f"page-{n}",
                "claim": f"the page says {QUOTE}",
                "source": f"{url}?copy={n}",
                "quote": QUOTE,
                "render": "browser",
            }
            for n in range(sources)
        ]
        write_claims(project / "claims", claims, checked=today)
        for _ in range(repeat):
            for count in walls:
                shutil.rmtree(project / "snapshots", ignore_errors=True)
                started = time.perf_counter()
                done = subprocess.run(
                    [claimcheck, "verify", "--no-progress", "--jobs", str(count)],
                    cwd=project,
                    env=env,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                walls[count].append(time.perf_counter() - started)
                if done.returncode != 0:
                    raise SystemExit(
                        f"verify --jobs {count} exited {done.returncode}: {done.stderr}"
                    )
    return walls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=5, help="pages fetched each way")
    parser.add_argument(
        "--run", type=int, default=0, metavar="N", help="also time whole runs over N pages"
    )
    parser.add_argument(
        "--jobs", type=int, default=4, help="--jobs of the side-by-side runs in --run"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs each way in --run")
    args = parser.parse_args()
    browser = find_browser()
    if browser is None:
        raise SystemExit("no headless Chromium on PATH (Debian: apt-get install chromium)")
    with render_site() as (site, _):
        url = site.url("docusaurus-client.html")
        allowed = (site.origin,)
        settings = FetchSettings(per_host_interval=0, allow_addresses=allowed)

        loop = asyncio.new_event_loop()
        fetcher = Fetcher(settings)  # one fetcher for all pages, as a run has

        def plain() -> None:
            outcome = loop.run_until_complete(fetcher.fetch(FetchRequest(url)))
            if not isinstance(outcome, Fetched) or QUOTE in outcome.body.decode():
                raise SystemExit(f"the plain fetch is not the script's shell: {outcome}")

        def rendered() -> None:
            has_article(
                render_page(
                    url,
                    policy=AddressPolicy.parse(allowed),
                    timeout=60,
                    max_bytes=settings.max_bytes,
                    browser=browser,
                )
            )

        def kept() -> None:
            with Renderer(
                policy=AddressPolicy.parse(allowed),
                timeout=60,
                max_bytes=settings.max_bytes,
                binary=browser,
            ) as renderer:
                for _ in range(args.pages):
                    has_article(renderer.render(url))

        plain_wall, plain_cpu = measure(plain, args.pages)
        loop.run_until_complete(fetcher.aclose())
        loop.close()
        render_wall, render_cpu = measure(rendered, args.pages)
        # The browser's CPU is counted once it is reaped: all pages in one kept browser,
        # its launch and stop included, divided by the pages.
        kept_wall, kept_cpu = (seconds / args.pages for seconds in measure(kept, 1))
        runs = time_runs(site, args.run, args.jobs, args.repeat) if args.run else {}
    print(f"{args.pages} pages each way, one at a time, medians per page ({browser})")
    print(f"plain fetch:    wall {plain_wall * 1000:8.1f} ms   CPU {plain_cpu * 1000:8.1f} ms")
    print(f"browser a page: wall {render_wall * 1000:8.1f} ms   CPU {render_cpu * 1000:8.1f} ms")
    print(f"kept browser:   wall {kept_wall * 1000:8.1f} ms   CPU {kept_cpu * 1000:8.1f} ms")
    print(
        f"a browser a page / plain: wall ×{render_wall / plain_wall:.0f}, "
        f"CPU ×{render_cpu / max(plain_cpu, 1e-6):.0f}; kept browser / plain: "
        f"wall ×{kept_wall / plain_wall:.0f}, CPU ×{kept_cpu / max(plain_cpu, 1e-6):.0f}"
    )
    print(
        f"kept browser / a browser a page: wall ×{kept_wall / render_wall:.2f}, "
        f"CPU ×{kept_cpu / max(render_cpu, 1e-6):.2f}"
    )
    if runs:
        one, many = (statistics.median(runs[count]) for count in (0, args.jobs))
        print(f"cold verify over {args.run} rendered pages, medians of {args.repeat}:")
        print(f"  one browser at a time (--jobs 0): {one:6.2f} s")
        at_once = browsers_to_use(args.jobs)
        side = f"{at_once} at a time (--jobs {args.jobs}):"
        print(f"  {side:<33} {many:6.2f} s   ×{many / one:.2f}")


if __name__ == "__main__":
    main()
