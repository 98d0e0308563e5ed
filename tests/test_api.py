"""The library API: `import claimcheck` costs nothing, every exported name resolves, and
`claimcheck.verify` gives the report `claimcheck verify` gives, offline on the desk and
online against a page served on 127.0.0.1."""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import claimcheck
from support import paths
from support.cli_runs import run, show


def test_importing_the_package_imports_none_of_its_modules() -> None:
    code = "import sys, claimcheck; print(sorted(m for m in sys.modules if 'claimcheck' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.replace("'", '"')) == ["claimcheck"]


def test_every_exported_name_resolves_and_nothing_else_does() -> None:
    for name in claimcheck.__all__:
        assert getattr(claimcheck, name) is not None, name
    assert set(claimcheck.__all__) <= set(dir(claimcheck))
    with pytest.raises(AttributeError, match="no_such_name"):
        claimcheck.no_such_name  # noqa: B018 - the lookup is the test
    assert issubclass(claimcheck.ClaimFileError, claimcheck.ClaimcheckError)


def test_the_library_page_names_every_exported_name() -> None:
    page = (paths.ROOT / "docs" / "library.md").read_text(encoding="utf-8")
    assert [name for name in claimcheck.__all__ if f"`{name}" not in page] == []


def cli_results(*args: str) -> list[tuple[str, str, str, str | None]]:
    result = run("verify", *args, "--format", "json", "--no-progress")
    assert result.exit_code in (0, 1), show(result)
    return [
        (r["id"], r["verdict"], r["reason"], r.get("found"))
        for r in json.loads(result.stdout)["results"]
    ]


def api_results(report: claimcheck.Report) -> list[tuple[str, str, str, str | None]]:
    return [(r.claim.id, r.verdict.value, r.reason, r.found) for r in report.results]


def test_the_desk_offline_is_the_command_lines_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(paths.ROOT / "claims", tmp_path / "claims")
    shutil.copytree(
        paths.ROOT / "snapshots",
        tmp_path / "snapshots",
        ignore=shutil.ignore_patterns(".cache", ".claimcheck.lock", ".tmp-*"),
    )
    shutil.copy(paths.ROOT / "claimcheck.toml", tmp_path / "claimcheck.toml")
    monkeypatch.chdir(tmp_path)
    report = claimcheck.verify(offline=True)
    assert report.offline
    assert api_results(report) == cli_results("--offline")
    assert Counter(r.verdict.value for r in report.results) == {
        "verified": 40,
        "missing": 13,
        "unverified": 21,
    }
    assert int(claimcheck.exit_code(report)) == 1
    assert [c.id for c in claimcheck.load_claims(["claims"])] == [
        r.claim.id for r in report.results
    ]


PAGE = "# Engine\n\nEngine supports 4-bit and 8-bit quantization.\n\nIt runs on CPUs.\n"
CLAIMS = """\
page: engines
checked: 2026-12-01
claims:
  - id: quant
    claim: Engine supports 4-bit quantization
    source: {url}
    quote: "Engine supports 4-bit and 8-bit quantization."
  - id: gpu
    claim: Engine runs on GPUs
    source: {url}
    quote: "It runs on GPUs."
"""


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "readme.md").write_text(PAGE, encoding="utf-8")
    handler: Any = functools.partial(http.server.SimpleHTTPRequestHandler, directory=site)
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/readme.md"
    finally:
        server.shutdown()
        server.server_close()


def test_an_online_run_stores_and_judges_as_the_command_does(
    served: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / "claims").mkdir(parents=True)
    (project / "claims" / "engines.yaml").write_text(CLAIMS.format(url=served), encoding="utf-8")
    monkeypatch.chdir(project)
    monkeypatch.setenv("CLAIMCHECK_ALLOW_ADDRESSES", "127.0.0.1")
    report = claimcheck.verify()
    # Read off the page by hand: the first quote is on it word for word; the second
    # differs by one word (CPUs, not GPUs): a drift.
    assert [(r.claim.id, r.verdict.value) for r in report.results] == [
        ("quant", "verified"),
        ("gpu", "drifted"),
    ]
    assert not report.offline
    assert any((project / "snapshots").rglob("*.md")), "the page is stored"
    assert api_results(report) == cli_results()
    assert api_results(claimcheck.verify(offline=True)) == cli_results("--offline")
