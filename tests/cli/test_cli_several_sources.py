"""Claims on several sources end to end: `verify --offline` on stored README snapshots.

A comparison row rests on two READMEs: vLLM's "OpenAI-compatible API server" and
llama.cpp's "A lightweight, OpenAI API compatible, HTTP server for serving LLMs", which
llama.cpp's README of 2026-06-30 still has and the one of 2026-07-31 no longer does. The
row holds on the older snapshot, and is stale on the newer with its second part named.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from claimcheck.cli.app import app
from claimcheck.report.load import load_report_document
from claimcheck.report.schema import report_schema
from claimcheck.store.store import Store
from support import docs
from support.corpus_snapshots import CORPUS, import_history, versions

LLAMA = "https://github.com/ggml-org/llama.cpp"
VLLM = "https://github.com/vllm-project/vllm"
CLAIMS = f"""\
page: comparison
checked: 2026-06-30
claims:
  - id: plain
    claim: llama.cpp is plain C/C++
    source: {LLAMA}
    quote: Plain C/C++ implementation without any dependencies
  - id: openai-row
    claim: Both ship an OpenAI-compatible server
    sources:
      - source: {VLLM}
        quote: OpenAI-compatible API server
      - source: {LLAMA}
        quote: A lightweight, OpenAI API compatible, HTTP server for serving LLMs
"""
runner = CliRunner()


def project(folder: Path, *, upto: str) -> Path:
    """vLLM's README versions, and llama.cpp's committed up to `upto`, stored."""
    (folder / "claims").mkdir(parents=True)
    (folder / "claims" / "comparison.yaml").write_text(CLAIMS, encoding="utf-8")
    (folder / "claimcheck.toml").write_text("[verdict]\nmax_age_days = 0\n", encoding="utf-8")
    store = Store(folder / "snapshots")
    through = dt.date.fromisoformat(upto)  # what history vouched for, as of `upto`
    import_history(store, versions(CORPUS / "vllm-project__vllm"), through=through)
    llama = versions(CORPUS / "ggml-org__llama.cpp")
    import_history(store, [v for v in llama if v.committed.date() <= through], through=through)
    return folder


def verify(*options: str) -> tuple[int, str]:
    result = runner.invoke(app, ["verify", "--offline", *options])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout


def test_both_readmes_hold_so_the_row_is_verified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project(tmp_path / "site", upto="2026-06-30"))

    code, out = verify("--format", "json")

    assert code == 0, out
    document = json.loads(out)
    jsonschema.validate(document, report_schema())
    plain, row = document["results"]
    assert plain["parts"] == []
    assert row["verdict"] == "verified"
    assert row["reason"].startswith(f"all 2 sources hold; part 1 of 2 ({VLLM}): the quote is")
    assert [(p["source"], p["verdict"]) for p in row["parts"]] == [
        (VLLM, "verified"),
        (LLAMA, "verified"),
    ]
    assert row["parts"][1]["snapshot"] == "2026-06-30"


def test_the_llama_cpp_part_goes_stale_and_the_report_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project(tmp_path / "site", upto="2026-07-31"))

    code, out = verify("--format", "json")
    _, annotations = verify("--format", "github")

    assert code == 1, out
    document = json.loads(out)
    jsonschema.validate(document, report_schema())
    assert document["counts"]["verified"] == 1
    assert document["counts"]["missing"] == 1
    row = document["results"][1]
    assert (row["id"], row["line"], row["verdict"], row["stale"]) == (
        "openai-row",
        8,
        "missing",
        True,
    )
    assert row["reason"].startswith(f"part 2 of 2 ({LLAMA}): ")
    assert row["source"] == LLAMA  # the part the verdict comes from
    assert row["quote"] == "A lightweight, OpenAI API compatible, HTTP server for serving LLMs"
    assert [p["verdict"] for p in row["parts"]] == ["verified", "missing"]
    # vLLM's newest README (2026-05-19) is the file of 2026-04-30: stored once, then.
    assert row["parts"][0]["snapshot"] == "2026-04-30"
    assert row["parts"][1]["snapshot"] == "2026-07-31"
    assert row["parts"][1]["baseline"] == "2026-06-30"
    assert (
        "::error file=claims/comparison.yaml,line=8,title=stale claim openai-row%3A missing::"
        in (annotations)
    )
    # A report read back (as merging shards does) keeps the parts.
    loaded = load_report_document(document).results[1]
    assert [p.verdict.value for p in loaded.parts] == ["verified", "missing"]
    assert [p.source for p in loaded.claim.parts] == [VLLM, LLAMA]


@pytest.mark.parametrize("fmt", ["table", "markdown", "sarif", "junit", "html"])
def test_every_format_shows_the_row_once_with_its_failing_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    monkeypatch.chdir(project(tmp_path / "site", upto="2026-07-31"))

    code, out = verify("--format", fmt)

    assert code == 1, out
    assert out.count("openai-row") >= 1
    assert "part 2 of 2" in out


@pytest.mark.parametrize("command", ["diff", "explain", "cite", "blame", "accept"])
def test_commands_on_one_source_refuse_a_claim_on_two(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    monkeypatch.chdir(project(tmp_path / "site", upto="2026-07-31"))

    result = runner.invoke(app, [command, "openai-row"])

    assert result.exit_code == 2, result.output
    assert (
        f"claim 'openai-row' rests on 2 sources: `claimcheck {command}` works on a claim "
        "of one source"
    ) in result.output


def test_show_lists_each_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project(tmp_path / "site", upto="2026-07-31"))

    result = runner.invoke(app, ["show", "openai-row"])

    assert result.exit_code == 0, result.output
    assert "sources[1].source:" in result.output
    assert LLAMA in result.output.split("sources[2].source:")[1].splitlines()[0]


@pytest.mark.parametrize(
    ("upto", "verdict"), [("2026-06-30", "verified"), ("2026-07-31", "missing")]
)
def test_the_readme_example_holds_then_names_the_part_that_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, upto: str, verdict: str
) -> None:
    example = docs.block("example:sources")
    folder = project(tmp_path / "site", upto=upto)
    (folder / "claims" / "comparison.yaml").write_text(
        "page: comparison\nchecked: 2026-06-30\nclaims:\n" + example, encoding="utf-8"
    )
    monkeypatch.chdir(folder)

    _, out = verify("--format", "json")

    (row,) = json.loads(out)["results"]
    assert row["verdict"] == verdict
    if verdict == "missing":
        assert row["reason"].startswith("part 2 of 2 (https://github.com/ggml-org/llama.cpp)")
