"""`claimcheck verify ARTICLE` and `claimcheck extract ARTICLE`, offline against stored snapshots.

The project holds tests/data/articles/engines.md as content/engines.md and a stored
snapshot of each of its sources; one quote is gone from its source, so that a finding
shows where it points: at the article's own line.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from claimcheck.cli.app import app
from claimcheck.forges.resolve import resolve_source
from claimcheck.models import MediaType
from claimcheck.store.store import Store
from support import docs, paths
from support.claim_files import claim, write_claims

ARTICLES = paths.ROOT / "tests" / "data" / "articles"
SOURCES = {
    "https://github.com/ggml-org/llama.cpp": (
        "# llama.cpp\n\nLLM inference in C/C++\n\n"
        "- Plain C/C++ implementation without any dependencies\n"
        "- Apple silicon is a first-class citizen\n"
        "- 1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization\n",
        MediaType.MARKDOWN,
    ),
    "https://github.com/ggml-org/llama.cpp/blob/master/LICENSE": (
        "MIT License\n\nCopyright (c) 2023-2026 The ggml authors\n",
        MediaType.TEXT,
    ),
    # The OpenAI-compatible server is gone from this page: that claim is missing.
    "https://docs.example.org/vllm.html": (
        "<html><body><h1>vLLM</h1><p>Runs on NVIDIA GPUs and AMD GPUs.</p></body></html>",
        MediaType.HTML,
    ),
}
ENGINES = [
    ("engines-plain-c-c-a3f5b1", 11, "verified"),
    ("vllm-gpus", 13, "verified"),
    ("engines-mit-license-46855b", 18, "verified"),
    ("engines-1-5-bit-142a3b", 18, "verified"),
    ("engines-apple-silicon-is-925e70", 23, "verified"),
    ("engines-openai-compatible-api-5e01b8", 25, "missing"),
]
runner = CliRunner()


def make_project(folder: Path) -> Path:
    (folder / "content").mkdir(parents=True)
    (folder / "claimcheck.toml").write_text("[verdict]\nmax_age_days = 0\n", encoding="utf-8")
    shutil.copy(ARTICLES / "engines.md", folder / "content" / "engines.md")
    store = Store(folder / "snapshots")
    for url, (body, media) in SOURCES.items():
        ref = resolve_source(url)
        store.save(
            key=ref.key,
            url=ref.url,
            final_url=ref.fetch_url,
            status=200,
            body=body.encode("utf-8"),
            media=media,
            fetched_at=dt.datetime(2026, 10, 1, 9, tzinfo=dt.UTC),
        )
    return folder


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = make_project(tmp_path / "site")
    monkeypatch.chdir(folder)
    return folder


def verify(*args: str) -> Result:
    return runner.invoke(app, ["verify", "--offline", *args])


def results(result: Result) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(result.stdout)["results"]
    return rows


def test_verify_reads_an_article_and_points_at_its_lines(project: Path) -> None:
    result = verify("--format", "json", "content/engines.md")

    assert result.exit_code == 1, result.output
    assert [(r["id"], r["line"], r["verdict"]) for r in results(result)] == ENGINES
    assert {r["file"] for r in results(result)} == {"content/engines.md"}
    assert {r["page"] for r in results(result)} == {"engines"}


def test_github_annotations_land_on_the_articles_line(project: Path) -> None:
    result = verify("--format", "github", "content/engines.md")

    assert result.exit_code == 1
    annotations = re.findall(
        r"^::(error|warning|notice) file=([^,]+),line=(\d+)", result.stdout, re.M
    )
    assert annotations == [("error", "content/engines.md", "25")]


def test_extract_then_verify_gives_the_articles_verdicts(project: Path) -> None:
    extracted = runner.invoke(app, ["extract", "content/engines.md", "-o", "claims/engines.yaml"])
    assert extracted.exit_code == 0, extracted.output
    assert extracted.stdout == ""

    from_yaml = verify("--format", "json", "claims/engines.yaml")
    from_article = verify("--format", "json", "content/engines.md")

    assert from_yaml.exit_code == from_article.exit_code == 1
    keys = ("id", "page", "verdict", "reason", "source", "quote")
    assert [{k: r[k] for k in keys} for r in results(from_yaml)] == [
        {k: r[k] for k in keys} for r in results(from_article)
    ]
    assert {r["file"] for r in results(from_yaml)} == {"claims/engines.yaml"}
    text = (project / "claims" / "engines.yaml").read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=")


def test_extract_prints_the_claim_file_without_output(project: Path) -> None:
    result = runner.invoke(app, ["extract", "content/engines.md"])

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[2:5] == [
        "page: engines",
        'title: "Inference engines, side by side"',
        "checked: 2026-10-20",
    ]
    assert [line.removeprefix("  - id: ") for line in lines if line.startswith("  - id: ")] == [
        claim_id for claim_id, _, _ in ENGINES
    ]


def test_extract_of_several_articles_writes_one_file_each_into_a_folder(project: Path) -> None:
    shutil.copy(ARTICLES / "gpus.html", project / "content" / "gpus.html")

    alone = runner.invoke(app, ["extract", "content/engines.md", "content/gpus.html"])
    written = runner.invoke(
        app, ["extract", "content/engines.md", "content/gpus.html", "-o", "claims"]
    )

    assert alone.exit_code == 2
    assert "several articles make several claim files" in alone.stderr
    assert written.exit_code == 0, written.output
    assert sorted(p.name for p in (project / "claims").iterdir()) == [
        "engines.yaml",
        "gpu-support.yaml",
    ]


def test_claim_files_and_articles_in_one_run(project: Path) -> None:
    write_claims(project / "claims", [claim("cited", source=None, quote=None, cited="a book")])

    result = verify("--format", "json", "claims/page.yaml", "content/engines.md")

    assert result.exit_code == 1, result.output
    assert [(r["file"], r["id"]) for r in results(result)] == [
        ("claims/page.yaml", "cited"),
        *[("content/engines.md", claim_id) for claim_id, _, _ in ENGINES],
    ]
    # A folder means its claim files, never the articles in it.
    folder = verify("--format", "json", "claims", "content")
    assert [r["id"] for r in results(folder)] == ["cited"]


def test_an_id_in_both_a_claim_file_and_an_article_is_a_duplicate(project: Path) -> None:
    runner.invoke(app, ["extract", "content/engines.md", "-o", "claims/engines.yaml"])

    result = verify("claims/engines.yaml", "content/engines.md")

    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (
        "error: content/engines.md:11: claim 'engines-plain-c-c-a3f5b1': id: duplicate id, "
        "first defined at claims/engines.yaml:7"
    )


def test_an_articles_problems_are_bad_input_with_file_and_line(project: Path) -> None:
    (project / "content" / "bad.md").write_text(
        "# Bad\n\nIt [says](https://a.example/#:~:text=so).\n", encoding="utf-8"
    )

    result = verify("content/bad.md")
    extracted = runner.invoke(app, ["extract", "content/bad.md"])

    assert result.exit_code == extracted.exit_code == 2
    expected = (
        "error: content/bad.md:3: checked: this link has no check date: give the article one "
        "(front matter `checked: YYYY-MM-DD`, or `<!-- checked: YYYY-MM-DD -->` right after "
        "the link)\n"
    )
    assert result.stderr.startswith(expected)
    assert extracted.stderr.startswith(expected)


@pytest.mark.parametrize(
    "text",
    [
        "# Empty\n\nNothing cited here.\n",
        "---\nchecked: 2026-10-20\n---\n# Plain\n\nSee [the site](https://vllm.ai/).\n",
    ],
    ids=["no-links", "dated-without-highlight-links"],
)
def test_extract_and_verify_agree_that_an_article_without_claims_has_none(
    project: Path, text: str
) -> None:
    (project / "content" / "none.md").write_text(text, encoding="utf-8")

    verified = verify("content/none.md")
    extracted = runner.invoke(app, ["extract", "content/none.md", "-o", "claims/none.yaml"])

    assert verified.exit_code == extracted.exit_code == 2, extracted.output
    assert verified.stderr.startswith("error: no claims found in content/none.md: ")
    assert extracted.stderr.startswith(
        "error: no claims found in content/none.md: no link carries a text directive"
    )
    assert not (project / "claims").exists()


def test_an_articles_problems_hint_at_how_articles_are_read(project: Path) -> None:
    (project / "content" / "bad.md").write_text(
        "# Bad\n\nIt [says](https://a.example/#:~:text=so).\n", encoding="utf-8"
    )

    extracted = runner.invoke(app, ["extract", "content/bad.md"])
    verified = verify("content/bad.md")

    for result in (extracted, verified):
        assert result.exit_code == 2
        hint = result.stderr.splitlines()[-1]
        assert hint.startswith("hint: ")
        assert '"Articles as claim files" in docs/claim-files.md' in hint
        assert "claimcheck schema" not in result.stderr


def test_a_claim_files_problem_beside_an_articles_keeps_the_claim_file_hint(
    project: Path,
) -> None:
    (project / "content" / "bad.md").write_text(
        "# Bad\n\nIt [says](https://a.example/#:~:text=so).\n", encoding="utf-8"
    )
    (project / "claims").mkdir(exist_ok=True)
    (project / "claims" / "bad.yaml").write_text(
        "page: p\nchecked: 2026-01-01\nclaims:\n  - id: a\n    claim: c\n    qoute: q\n",
        encoding="utf-8",
    )

    result = verify("content/bad.md", "claims/bad.yaml")

    assert result.exit_code == 2
    assert "claimcheck schema" in result.stderr.splitlines()[-1]


def test_a_checked_line_with_two_dates_is_bad_input_at_its_line(project: Path) -> None:
    (project / "content" / "two.md").write_text(
        "# Two\n\n(checked 2026-10-19, 2026-10-20)\n\nIt [says](https://a.example/#:~:text=so).\n",
        encoding="utf-8",
    )

    result = verify("content/two.md")

    assert result.exit_code == 2
    assert result.stderr.startswith(
        'error: content/two.md:3: checked: this "checked" line names 2 dates (2026-10-19, '
        "2026-10-20); write the one day its links were checked\n"
    )
    assert result.exception is None or isinstance(result.exception, SystemExit)


def readme_block(marker: str) -> str:
    return docs.block(marker)


def test_the_readme_article_example_extracts_to_the_readme_claim_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "engines.md").write_text(
        readme_block("example:article"), encoding="utf-8"
    )

    result = runner.invoke(app, ["extract", "content/engines.md"])

    assert result.exit_code == 0, result.output
    assert result.stdout == readme_block("example:extract")


def test_accept_of_an_article_link_whose_quote_holds_leaves_the_article_as_it_was(
    project: Path,
) -> None:
    before = (project / "content" / "engines.md").read_bytes()

    result = runner.invoke(app, ["accept", ENGINES[0][0], "content/engines.md"])

    assert result.exit_code == 0, result.output
    assert f"accepted {ENGINES[0][0]} in content/engines.md:11" in result.stdout
    assert "checked: stays 2026-10-20 (the article's" in result.stdout
    assert (project / "content" / "engines.md").read_bytes() == before


def test_extract_names_a_byte_that_is_not_utf8_at_its_line_as_verify_does(project: Path) -> None:
    (project / "content" / "latin.md").write_bytes(
        b"# Latin\n\n(checked 2026-01-01)\n\nIt [says](https://a.example/#:~:text=so) caf\xe9.\n"
    )

    extracted = runner.invoke(app, ["extract", "content/latin.md"])
    verified = verify("content/latin.md")

    for result in (extracted, verified):
        assert result.exit_code == 2
        assert "content/latin.md:5: file: column 45 is byte 0xE9, which is not UTF-8" in (
            result.stderr
        )
