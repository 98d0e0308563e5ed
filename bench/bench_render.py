"""Time a rendered fetch (`render = "browser"`) against a plain one, per page, on loopback.

    python bench/bench_render.py [--pages 5]

The Docusaurus-shaped fixture page of `tests/data/rendered` (its HTML, then the script
that writes its article) is served on 127.0.0.1 by the tests' own site
(`support/render_site.py`). Each page is fetched `--pages` times the plain way (the
fetcher, over the connection guard) and rendered as many times in headless Chromium
behind the guarded proxy, one after the other, as a run does. Printed, per page: the
wall time and the CPU time (this process and its children: Chromium's processes are
reaped by each render, so their CPU is counted), the median over the pages, for each
way and their ratio.

Import convention: the script puts `tests/` on `sys.path` itself (as pytest does with
`pythonpath = ["tests"]`), so `support.*` imports need no PYTHONPATH.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from claimcheck.sources.addresses import AddressPolicy
from claimcheck.sources.fetch import Fetched, Fetcher, FetchRequest, FetchSettings
from claimcheck.sources.render import Rendered, find_browser, render_page
from support.render_site import render_site

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=5, help="pages fetched each way")
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
            page = render_page(
                url,
                policy=AddressPolicy.parse(allowed),
                timeout=60,
                max_bytes=settings.max_bytes,
                browser=browser,
            )
            if not isinstance(page, Rendered) or QUOTE not in page.dom.decode():
                raise SystemExit(f"the render lacks the article: {page}")

        plain_wall, plain_cpu = measure(plain, args.pages)
        loop.run_until_complete(fetcher.aclose())
        loop.close()
        render_wall, render_cpu = measure(rendered, args.pages)
    print(f"{args.pages} pages each way, one at a time, medians per page ({browser})")
    print(f"plain fetch:    wall {plain_wall * 1000:8.1f} ms   CPU {plain_cpu * 1000:8.1f} ms")
    print(f"rendered fetch: wall {render_wall * 1000:8.1f} ms   CPU {render_cpu * 1000:8.1f} ms")
    print(
        f"rendered / plain: wall ×{render_wall / plain_wall:.0f}, "
        f"CPU ×{render_cpu / max(plain_cpu, 1e-6):.0f}"
    )


if __name__ == "__main__":
    main()
