"""Markdown and GitHub workflow commands: the change shown, links, levels, and no injection."""

from __future__ import annotations

import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from claimcheck.models import Verdict
from claimcheck.report.formats import OutputFormat, render
from claimcheck.report.formats.common import (
    Level,
    level_of,
    needing_attention,
    safe_url,
    source_link,
)
from claimcheck.report.formats.github import escape_data, escape_property
from support.sample_reports import BLAME, RICH, evidence, report, result

HOSTILE = (
    '<script>alert(1)</script> "><img src=x onerror=alert(1)> [x](javascript:alert(1)) '
    "@admin #12 https://evil.example/ <!-- \x1b[2J \u202e"
)


@pytest.mark.parametrize(
    ("verdict", "level"),
    [
        (Verdict.DRIFTED, Level.ERROR),
        (Verdict.MISSING, Level.ERROR),
        (Verdict.SOURCE_GONE, Level.ERROR),
        (Verdict.CONTEXT_CHANGED, Level.WARNING),
        (Verdict.EXPIRED, Level.WARNING),
        (Verdict.MOVED, Level.NOTICE),
        (Verdict.UNREACHABLE, Level.NOTICE),
        (Verdict.UNVERIFIED, Level.NOTICE),
        (Verdict.VERIFIED, Level.NONE),
    ],
    ids=str,
)
def test_levels(verdict: Verdict, level: Level) -> None:
    assert level_of(verdict) is level


def test_attention_lists_stale_then_review_then_notices_without_verified() -> None:
    ordered = [r.verdict for r in needing_attention(RICH)]
    assert Verdict.VERIFIED not in ordered
    assert [level_of(v) for v in ordered] == sorted(
        (level_of(v) for v in ordered), key=[Level.ERROR, Level.WARNING, Level.NOTICE].index
    )


def test_source_link_opens_at_the_text_found_on_the_page() -> None:
    drifted = evidence(Verdict.DRIFTED)
    assert source_link(drifted) == (
        "https://github.com/o/r#:~:text=2%2Dbit%2C%203%2Dbit%20and%204%2Dbit%20quantization"
    )
    gone = evidence(Verdict.SOURCE_GONE)
    assert source_link(gone) == "https://github.com/o/r"


def test_source_link_keeps_prefix_and_suffix_only_while_the_quote_holds() -> None:
    base = result(Verdict.VERIFIED, quote="q")
    anchor = base.claim.anchor
    assert anchor is not None
    claim = base.claim.model_copy(
        update={"anchor": anchor.model_copy(update={"prefix": "before", "suffix": "after"})}
    )
    held = base.model_copy(update={"claim": claim, "found": "q"})
    assert source_link(held) == "https://github.com/o/r#:~:text=before-,q,-after"
    drifted = held.model_copy(update={"verdict": Verdict.DRIFTED, "found": "p"})
    assert source_link(drifted) == "https://github.com/o/r#:~:text=p"


@pytest.mark.parametrize(
    ("url", "safe"),
    [
        ("javascript:alert(1)", None),
        ("data:text/html,x", None),
        ("https://x.example/a b)<c>\"'", "https://x.example/a%20b%29%3Cc%3E%22'"),
        ("https://x.example/é", "https://x.example/%C3%A9"),
        ("", None),
    ],
    ids=["javascript", "data", "breakout", "unicode", "empty"],
)
def test_safe_url(url: str, safe: str | None) -> None:
    assert safe_url(url) == safe


def test_markdown_marks_the_change_and_gives_the_evidence() -> None:
    text = render(RICH, OutputFormat.MARKDOWN)
    assert "~~1.5-bit, 2-bit~~ **2-bit, 3-bit** and 4-bit quantization (88% match)" in text
    assert "Backends: ~~CUDA, Metal.~~ **CUDA.**" in text
    assert "(https://github.com/o/r#:~:text=2%2Dbit%2C%203%2Dbit" in text
    assert "baseline snapshot 2026-09-01" in text
    assert "[abcdef1 on 2026-10-01 by Ada: Drop 1.5-bit from the list]" in text
    assert f"({BLAME.url})" in text
    assert "| 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 2 |" in text
    assert "<details><summary>All 12 claims</summary>" in text
    one = render(report(result(Verdict.DRIFTED)), OutputFormat.MARKDOWN)
    assert "<details><summary>All 1 claim</summary>" in one
    # Sections in order of urgency; verified claims only in the folded list.
    assert text.index("#### `claim-drifted`") < text.index("#### `claim-context-changed`")
    assert "#### `claim-verified`" not in text


def test_markdown_when_nothing_needs_attention() -> None:
    text = render(report(result(Verdict.VERIFIED)), OutputFormat.MARKDOWN)
    assert "Every claim's quote is on its source." in text
    assert "####" not in text


def test_markdown_defuses_third_party_text() -> None:
    hostile = evidence(Verdict.DRIFTED).model_copy(
        update={"found": HOSTILE, "reason": HOSTILE, "diff": f"[-{HOSTILE}-]{{+{HOSTILE}+}}"}
    )
    claim = hostile.claim.model_copy(update={"claim": HOSTILE, "page": "p|age"})
    text = render(report(hostile.model_copy(update={"claim": claim})), OutputFormat.MARKDOWN)
    assert "<script>" not in text
    assert "<img" not in text
    assert "<!--" not in text
    assert "](javascript:" not in text
    assert "\x1b" not in text
    assert "\u202e" not in text
    destinations = re.findall(r"\]\(([^)]*)\)", text)
    assert all(re.fullmatch(r"https://[^\s()<>]+", d) for d in destinations), destinations
    prose = re.sub(r"\]\([^)]*\)", "]", text)
    assert "@admin" not in prose  # a zero-width space stops the mention
    assert "#12" not in prose
    assert "https://evil" not in prose
    assert "p\\|age" in text  # a pipe cannot split the table cell
    # As GitHub would render it (raw HTML allowed): no tag, link or image from the page.
    html = cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)
    assert "<script" not in html
    assert "<img" not in html
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert hrefs
    assert all(h.startswith("https://github.com/o/r") for h in hrefs), hrefs


def test_github_annotations_point_at_the_claim_line_with_levels() -> None:
    lines = render(RICH, OutputFormat.GITHUB).splitlines()
    commands = [line for line in lines if line.startswith("::") and "file=" in line]
    assert [c.split(" ", 1)[0] for c in commands] == [
        "::error",
        "::error",
        "::error",
        "::error",
        "::error",
        "::warning",
        "::warning",
        "::notice",
        "::notice",
        "::notice",
        "::notice",
    ]
    first = commands[0]
    assert first.startswith(
        "::error file=claims/page.yaml,line=7,title=stale claim claim-drifted%3A drifted::"
    )
    assert "%0Anow: “2-bit, 3-bit and 4-bit quantization”" in first
    assert "upstream commit: abcdef1" in first
    assert "::group::12 claims:" in lines[len(commands)]
    assert lines[-1] == "::endgroup::"


def test_github_escaping_follows_the_actions_docs() -> None:
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_github_output_cannot_start_a_workflow_command_of_its_own() -> None:
    payload = "x\n::set-output name=a::b\r\n::add-mask::y %0A"
    hostile = evidence(Verdict.DRIFTED).model_copy(update={"reason": payload, "found": payload})
    claim = hostile.claim.model_copy(update={"id": "id\n::error::forged", "file": "a,b:c.yaml"})
    text = render(report(hostile.model_copy(update={"claim": claim})), OutputFormat.GITHUB)
    commands = [line for line in text.splitlines() if line.lstrip().startswith("::")]
    assert [c.split(" ", 1)[0].split("::")[1] for c in commands] == ["error", "group", "endgroup"]
    assert "file=a%2Cb%3Ac.yaml," in commands[0]
    assert "%250A" in commands[0]  # a literal "%0A" stays text, not a line break
    assert re.search(r"[\r\x1b]", text) is None


def test_the_text_that_contradicts_an_absence_claim_is_bold_only_where_escaping_allows() -> None:
    def contradicted(unit: str, absent: str) -> str:
        base = result(Verdict.CONTRADICTED)
        claim = base.claim.model_copy(update={"anchor": None, "absent": (absent,)})
        contradicting = base.model_copy(update={"claim": claim, "found": unit})
        text = render(report(contradicting), OutputFormat.MARKDOWN)
        return next(line for line in text.splitlines() if line.startswith("- **Says now:**"))

    assert contradicted("It offers multi-tenant serving.", "multi-tenant serving") == (
        "- **Says now:** “It offers **multi-tenant serving**.”"
    )
    # Cut at "@", the mention would escape its defusing: the unit is shown whole, defused.
    assert contradicted("ping @bob now", "bob") == "- **Says now:** “ping @\u200bbob now”"
