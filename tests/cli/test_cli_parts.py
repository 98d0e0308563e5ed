"""`--part` on the commands that work on one source, and `accept` of a link in an article:
the real CLI over real README history stored from tests/data/corpus.

A comparison row rests on vLLM's README and llama.cpp's; llama.cpp's README of 2026-07-31
no longer has the quoted server line, so the row's second part is missing. Expected
lines, commits and texts are found in the corpus files by plain string search.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from urllib.parse import unquote

import pytest
from typer.testing import CliRunner, Result

from claimcheck.cli.app import app
from claimcheck.store.store import Store
from support.corpus_snapshots import CORPUS, import_history, versions
from support.replay_server import ReplayServer

LLAMA = "https://github.com/ggml-org/llama.cpp"
VLLM = "https://github.com/vllm-project/vllm"
SERVER = "A lightweight, OpenAI API compatible, HTTP server for serving LLMs"
NEW_QUOTE = "Visit https://llama.app and follow the instructions"  # new on 2026-07-31
CLAIMS = f"""\
page: comparison
checked: 2026-06-30
claims:
  # The row the comparison table opens with.
  - id: openai-row
    claim: Both ship an OpenAI-compatible server
    sources:
      - source: {VLLM}
        quote: OpenAI-compatible API server   # the feature list's bullet
      - source: {LLAMA}
        quote: "{SERVER}"
"""
runner = CliRunner()


def store_history(folder: Path, upto: str) -> Store:
    store = Store(folder / "snapshots")
    through = dt.date.fromisoformat(upto)  # what history vouched for, as of `upto`
    for name in ("vllm-project__vllm", "ggml-org__llama.cpp"):
        stored = [v for v in versions(CORPUS / name) if v.committed.date() <= through]
        snapshot = import_history(store, stored, through=through)[-1]
        store.note_history(snapshot.key, snapshot.url, readme_path="README.md")
    return store


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "row.yaml").write_text(CLAIMS, encoding="utf-8")
    (tmp_path / "claimcheck.toml").write_text("[verdict]\nmax_age_days = 0\n")
    store_history(tmp_path, upto="2026-07-31")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


@pytest.mark.parametrize("command", ["diff", "explain", "cite", "blame", "accept"])
def test_without_part_the_refusal_names_the_parts_to_choose_from(site: Path, command: str) -> None:
    result = run(command, "openai-row")

    assert result.exit_code == 2
    assert f"hint: name the part with --part K (1 to 2) or --part URL (1: {VLLM}; 2: {LLAMA})" in (
        result.stderr
    )


@pytest.mark.parametrize("command", ["diff", "explain", "cite", "blame", "accept"])
def test_a_part_that_is_not_there_is_bad_input(site: Path, command: str) -> None:
    result = run(command, "openai-row", "--part", "3")

    assert result.exit_code == 2
    assert "error: claim 'openai-row' has no part '3'" in result.stderr


def test_explain_and_diff_of_a_part_by_number_or_by_url_are_the_same(site: Path) -> None:
    by_number = run("explain", "openai-row", "--part", "2")
    by_url = run("explain", "openai-row", "--part", LLAMA + "/")
    diff = run("diff", "openai-row", "--part", "2")

    assert by_number.exit_code == by_url.exit_code == 0, by_number.output
    assert by_number.stdout == by_url.stdout
    assert "missing" in by_number.stdout
    assert diff.exit_code == 0, diff.output
    assert "HTTP server for serving LLMs" in diff.stdout  # the baseline side still has it


def test_cite_of_a_part_links_that_part_at_its_commit(site: Path) -> None:
    stored = versions(CORPUS / "vllm-project__vllm")
    newest = next(v for v in stored if v.path.read_bytes() == stored[-1].path.read_bytes())
    lines = newest.path.read_text(encoding="utf-8").splitlines()
    (line,) = [n for n, text in enumerate(lines, 1) if "OpenAI-compatible API server" in text]

    result = run("cite", "openai-row", "--part", "1", "--offline", "--style", "json")

    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["permalink"] == (
        f"https://github.com/vllm-project/vllm/blob/{newest.commit}/README.md#L{line}"
    )


def test_accept_of_a_part_rewrites_only_that_parts_quote(site: Path) -> None:
    path = site / "claims" / "row.yaml"
    before = path.read_text(encoding="utf-8").splitlines()

    result = run("accept", "openai-row", "--part", "2", "--quote", NEW_QUOTE)

    assert result.exit_code == 0, result.output
    assert "accepted openai-row (part 2, https://github.com/ggml-org/llama.cpp)" in result.stdout
    after = path.read_text(encoding="utf-8").splitlines()
    changed = [n for n, (a, b) in enumerate(zip(before, after, strict=True), 1) if a != b]
    assert changed == [11]  # the second part's quote line, nothing else (comments kept)
    assert after[10] == f'        quote: "{NEW_QUOTE}"'
    report = json.loads(run("verify", "--offline", "--format", "json").stdout)
    (row,) = report["results"]
    assert [p["verdict"] for p in row["parts"]] == ["verified", "verified"]
    assert row["checked"] == "2026-06-30"  # every part's baseline date stays


PLAIN = "Plain%20C/C%2B%2B%20implementation%20without%20any%20dependencies"
OLD = "A%20lightweight%2C%20OpenAI%20API%20compatible%2C%20HTTP%20server%20for%20serving%20LLMs"
ARTICLE = f"""\
---
page: engines
checked: 2026-06-30
---

# Engines

llama.cpp is a [plain C/C++ implementation]({LLAMA}#:~:text={PLAIN}) (no dependencies).

It serves models [over HTTP]({LLAMA}#:~:text={OLD})<!-- claim: server -->.
"""


def test_accept_in_an_article_rewrites_the_links_directive_and_nothing_else(site: Path) -> None:
    article = site / "engines.md"
    article.write_text(ARTICLE, encoding="utf-8")
    assert run("verify", "--offline", "engines.md").exit_code == 1  # the server line is gone

    result = run("accept", "server", "engines.md", "--quote", "(author: ggerganov) — x")
    assert result.exit_code == 1  # not on the page: nothing written
    assert article.read_text(encoding="utf-8") == ARTICLE
    result = run("accept", "server", "engines.md", "--quote", NEW_QUOTE)

    assert result.exit_code == 0, result.output
    edited = article.read_text(encoding="utf-8")
    head, tail = ARTICLE.split(OLD)
    assert edited.startswith(head)
    assert edited.endswith(tail)
    directive = edited[len(head) : len(edited) - len(tail)]
    assert unquote(directive) == NEW_QUOTE
    report = json.loads(run("verify", "--offline", "engines.md", "--format", "json").stdout)
    assert [(r["id"], r["verdict"]) for r in report["results"]][1] == ("server", "verified")


def test_blame_of_a_part_names_the_commit_that_removed_its_quote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer
) -> None:
    # The llama.cpp quantization bullet of 2024-02-15, gone from the README by 2024-03-15.
    quote = "2-bit, 3-bit, 4-bit, 5-bit, 6-bit and 8-bit integer quantization support"
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "row.yaml").write_text(
        f"page: row\nchecked: 2024-02-15\nclaims:\n  - id: quant-row\n    claim: Both quantize\n"
        f"    sources:\n      - source: {VLLM}\n        quote: quantization\n"
        f"      - source: {LLAMA}\n        quote: {quote}\n",
        encoding="utf-8",
    )
    (tmp_path / "claimcheck.toml").write_text("[fetch]\nper_host_interval = 0\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    replay.as_of = dt.date(2024, 3, 15)
    # The oracle: the oldest corpus commit after the check date whose README lacks it.
    later = sorted(
        (e for e in replay.commits_of("ggml-org/llama.cpp") if e.date > dt.date(2024, 2, 15)),
        key=lambda e: e.commit_date,
    )
    first = next(e for e in later if quote.encode() not in (e.file.read_bytes() if e.file else b""))

    result = run("blame", "quant-row", "--part", "2")

    assert result.exit_code == 0, result.output
    assert f"https://github.com/ggml-org/llama.cpp/commit/{first.commit}" in result.stdout
    assert not replay.requests_to("/repos/vllm-project/")  # the other part is not asked
