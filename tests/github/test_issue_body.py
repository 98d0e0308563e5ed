"""Issue bodies: the marker, the finding hash, and third-party text that stays inert."""

from __future__ import annotations

import datetime as dt
import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from claimcheck.github.body import (
    BODY_CAP,
    cap_body,
    comment_recovered,
    comment_reopened,
    comment_verdict_changed,
    finding_hash,
    issue_body,
    issue_title,
    parse_marker,
)
from claimcheck.models import ArchivedCopy, Blame, FieldValue, Verdict
from support.claim_results import FOUND, SOURCE, WHEN, result, snapshot

MARKER = re.compile(r"^<!-- claimcheck:v1 claim=quant hash=sha256:[0-9a-f]{64} -->$")
HOSTILE = "ping @someone about #123 <!-- hidden ```` ``` ![x](https://evil.example/p.png)"


def github_html(markdown: str) -> str:
    """Render as GitHub does: GFM, and raw HTML (comments included) let through."""
    return str(
        cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    )


def test_the_marker_is_the_first_line_and_parses_back() -> None:
    found = result()
    body = issue_body(found)

    assert MARKER.match(body.splitlines()[0])
    marker = parse_marker(body)
    assert marker is not None
    assert (marker.claim_id, marker.hash, marker.verdict) == (
        "quant",
        finding_hash(found),
        Verdict.DRIFTED,
    )


@pytest.mark.parametrize(
    "body",
    [
        None,
        "",
        "a person's issue",
        "text first\n<!-- claimcheck:v1 claim=quant hash=sha256:" + "0" * 64 + " -->",
        "<!-- claimcheck:v1 claim=quant hash=sha256:short -->",
        "<!-- claimcheck:v2 claim=quant hash=sha256:" + "0" * 64 + " -->",
    ],
    ids=["none", "empty", "no-marker", "not-first-line", "bad-hash", "other-version"],
)
def test_only_our_first_line_is_a_marker(body: str | None) -> None:
    assert parse_marker(body) is None


def test_the_hash_is_over_the_finding_not_over_time() -> None:
    base = result()
    later = result(
        reason="reworded reason", snapshot=snapshot(WHEN + dt.timedelta(days=3)), score=92.0
    )
    assert finding_hash(base) == finding_hash(later)
    for changed in (
        result(verdict=Verdict.MISSING),
        result(found=FOUND + " now"),
        result(diff="[-other-]"),
        result(source="https://github.com/other/repo"),
    ):
        assert finding_hash(changed) != finding_hash(base)


def test_title_names_page_and_claim() -> None:
    title = issue_title(result())
    assert "quant" in title
    assert "page" in title
    assert "quote changed" in title


def test_body_has_claim_quote_diff_link_dates_and_how_to() -> None:
    blame = Blame(
        sha="a" * 40,
        date=dt.datetime(2024, 2, 29, tzinfo=dt.UTC),
        author="Georgi",
        title="readme : update quantization",
        url="https://github.com/ggml-org/llama.cpp/commit/" + "a" * 40,
    )
    body = issue_body(
        result(baseline=snapshot(dt.datetime(2026, 10, 20, tzinfo=dt.UTC)), blame=blame)
    )

    assert "the claim quant" in body
    assert "1.5-bit, 2-bit" in body
    assert "[-1.5-bit,-]" in body
    assert "#:~:text=" in body  # the source link opens at the current text
    assert "snapshot of 2026-10-20" in body  # the baseline
    assert "2026-10-20" in body  # checked
    assert "aaaaaaaaaaaa" in body  # blame
    assert "How to accept or fix" in body
    assert "claims/page.yaml" in body


def test_unreachable_body_counts_the_failed_runs() -> None:
    body = issue_body(result(verdict=Verdict.UNREACHABLE, reason="HTTP 503"), failures=3)
    assert "3 consecutive runs" in body


def test_hostile_quote_and_found_text_stay_inert() -> None:
    found = result(
        quote=HOSTILE,
        found=HOSTILE + " -->",
        diff=f"[-{HOSTILE}-]",
        reason="changed: @someone #123 <!-- x -->",
        blame=Blame(
            sha="b" * 40,
            date=WHEN,
            author="@mallory <!--",
            title="fixes #123 ![i](https://evil.example/i.png)",
            url="https://github.com/o/r/commit/" + "b" * 40,
        ),
    )
    body = issue_body(found)
    html = github_html(body)
    shown = re.sub(r"<(?!!--)[^>]*>", "", html)  # what a reader sees: no tags, no hrefs

    assert [line for line in body.splitlines() if "claimcheck:v1" in line] == body.splitlines()[:2]
    assert html.count("<!--") == 2  # our two marker lines, nothing forged or hidden
    assert "How to accept or fix" in html  # nothing after the quote was swallowed
    assert "<img" not in html
    assert "@someone" not in shown
    assert "@mallory" not in shown
    assert not re.search(r"#\d", body)
    assert "@\u200bsomeone" in body


@pytest.mark.parametrize("text", ["\u202eevil", "bell\x07", "esc\x1b[31m"])
def test_control_and_bidi_characters_are_removed(text: str) -> None:
    body = issue_body(result(found=text, quote=text))
    assert not re.search(r"[\u202a-\u202e\u2066-\u2069\x00-\x08\x1b]", body)


def test_a_huge_finding_is_cut_under_the_limit_with_a_note() -> None:
    huge = "word " * 40_000
    body = issue_body(result(found=huge, diff=huge, quote=huge))

    assert len(body.encode("utf-16-le")) // 2 <= BODY_CAP
    assert MARKER.match(body.splitlines()[0])
    assert "cut" in body
    assert body.count("```") % 2 == 0


def test_cap_body_closes_an_open_fence() -> None:
    body = "intro\n\n````text\n" + "x" * 100 + "\n" * 500 + "````\n\nend\n"
    cut = cap_body(body, cap=400)
    assert len(cut) <= 400
    assert "````\n" in cut[cut.index("````text") + 4 :]
    assert "size limit" in cut


def test_cap_body_leaves_short_bodies_alone() -> None:
    assert cap_body("short\n") == "short\n"


def test_comment_on_a_changed_verdict_names_both() -> None:
    text = comment_verdict_changed(result(verdict=Verdict.MISSING), Verdict.DRIFTED)
    assert "drifted" in text
    assert "missing" in text


# -- review issues ---------------------------------------------------------------------


REVIEWS = {
    Verdict.CONTEXT_CHANGED: ("text around the quote changed", "claimcheck accept quant"),
    Verdict.MOVED: ("source moved", "point the claim's `source`"),
    Verdict.EXPIRED: ("check date expired", "claimcheck accept quant"),
}


@pytest.mark.parametrize("verdict", list(REVIEWS), ids=lambda v: v.value)
def test_a_review_body_says_what_to_review_and_how_to_settle_it(verdict: Verdict) -> None:
    in_title, step = REVIEWS[verdict]
    found = result(verdict=verdict, moved_to="https://github.com/ggml-org/llama.cpp-new")
    title, body = issue_title(found), issue_body(found)
    assert title.startswith("claimcheck: review, ")
    assert in_title in title
    assert step in body
    assert "closes itself on the first run that finds the claim `verified`" in body
    assert "supported" not in body.split("### How to accept or fix")[1]


def test_a_context_change_shows_the_changed_paragraph_inertly() -> None:
    found = result(
        verdict=Verdict.CONTEXT_CHANGED,
        block_diff="{+> [!CAUTION] see @someone and #123 <!-- x+} " + "1.5-bit, 2-bit",
        reason="the quote is still there, but a caution was added",
    )
    body = issue_body(found)
    html = github_html(body)
    assert "The paragraph around the quote, changed:" in body
    assert "CAUTION" in body
    assert html.count("<!--") == 2
    assert not re.search(r"#\d", body)
    assert "@someone" not in re.sub(r"<[^>]*>", "", html.replace("<!--", ""))


def test_closing_a_review_issue_says_the_claim_was_accepted() -> None:
    text = comment_recovered(result(verdict=Verdict.VERIFIED), Verdict.CONTEXT_CHANGED)
    assert "**verified**" in text
    assert "accepted (`claimcheck accept`)" in text
    assert text.endswith("Closing as completed.")
    stale = comment_recovered(result(verdict=Verdict.VERIFIED), Verdict.DRIFTED)
    assert "support again" in stale
    assert "accepted" not in stale


def test_reopening_a_review_issue_says_how_to_settle_it() -> None:
    text = comment_reopened(result(verdict=Verdict.CONTEXT_CHANGED), review=True)
    assert "still needs a review" in text
    assert "`claimcheck accept quant`" in text
    assert "not planned" in text


def test_a_contradicted_body_shows_what_must_not_be_said_and_where_it_is_said() -> None:
    """An absence claim: no quote, its `absent` texts, and the sentence that says one."""
    absence = result(quote="", source=SOURCE, verdict=Verdict.CONTRADICTED)
    claim = absence.claim.model_copy(update={"anchor": None, "absent": ("CUDA @team #9",)})
    found = absence.model_copy(
        update={"claim": claim, "found": "Now with CUDA support.", "score": 100.0}
    )
    body = issue_body(found)
    assert "source contradicts it" in issue_title(found)
    assert "### Quote" not in body
    assert "### Must not say" in body
    assert "CUDA @\u200bteam #\u200b9" in body
    assert "Where the source says it now:" in body
    assert "alike" not in body


def test_closing_a_moved_issue_says_the_source_was_repointed() -> None:
    text = comment_recovered(result(verdict=Verdict.VERIFIED), Verdict.MOVED)
    assert "`source` now names the address the page moved to" in text
    unreachable = comment_recovered(result(verdict=Verdict.VERIFIED), Verdict.UNREACHABLE)
    assert "support again" in unreachable


# -- a gone source's last archived copy ---------------------------------------------------

COPY = "https://web.archive.org/web/20240301090000/https://docs.example.org/serving"


def test_a_gone_sources_archived_copy_is_linked_in_its_issue() -> None:
    captured = dt.datetime(2024, 3, 1, 9, tzinfo=dt.UTC)
    gone = result(verdict=Verdict.SOURCE_GONE, archived=ArchivedCopy(url=COPY, captured=captured))

    body = issue_body(gone)

    assert f"| Last archived copy | [the capture of 2024-03-01]({COPY}) |" in body
    assert "or at its last archived copy (above)." in body


def test_a_gone_source_without_a_copy_says_nothing_of_one() -> None:
    body = issue_body(result(verdict=Verdict.SOURCE_GONE))

    assert "archived" not in body
    assert "that supports it.\n" in body


def test_an_archived_copy_that_is_not_a_web_address_is_not_linked() -> None:
    hostile = "javascript:alert(1)//) ![x](https://evil.example/p.png"
    captured = dt.datetime(2024, 3, 1, tzinfo=dt.UTC)
    gone = result(
        verdict=Verdict.SOURCE_GONE, archived=ArchivedCopy(url=hostile, captured=captured)
    )

    html = github_html(issue_body(gone))

    assert "javascript:" not in html
    assert "evil.example" not in html
    assert "Last archived copy" not in html


def test_a_known_archived_copy_is_part_of_the_finding() -> None:
    captured = dt.datetime(2024, 3, 1, tzinfo=dt.UTC)
    without = result(verdict=Verdict.SOURCE_GONE)
    with_copy = result(
        verdict=Verdict.SOURCE_GONE, archived=ArchivedCopy(url=COPY, captured=captured)
    )
    other_day = result(
        verdict=Verdict.SOURCE_GONE,
        archived=ArchivedCopy(url=COPY, captured=captured + dt.timedelta(days=1)),
        reason="another reason",
    )

    assert finding_hash(with_copy) != finding_hash(without)
    assert finding_hash(with_copy) == finding_hash(other_day)  # the link, not its date


def test_a_changed_field_shows_the_field_and_its_values_inertly() -> None:
    base = result(verdict=Verdict.CHANGED)
    claim = base.claim.model_copy(
        update={"anchor": None, "field": FieldValue(path="/license", value="MIT")}
    )
    found = base.model_copy(
        update={
            "claim": claim,
            "reason": "the field '/license' changed",
            "found": HOSTILE,
            "diff": f"[-MIT-]{{+{HOSTILE}+}}",
            "value_then": "MIT",
            "value_now": HOSTILE,
        }
    )

    body = issue_body(found)
    html = github_html(body)
    shown = re.sub(r"<(?!!--)[^>]*>", "", html)

    assert issue_title(found) == "claimcheck: value changed for claim quant on page page"
    assert "**The field this claim is about holds another value on its source. " in body
    assert (
        "### Field\n\n`/license` on the source.\n\nThe claim's value:\n\n```text\nMIT\n```" in body
    )
    assert "Its value on the check date:\n\n```text\nMIT\n```" in body
    assert "### Quote" not in body
    assert "The closest text on the source now" not in body  # the values are above
    assert "run `claimcheck accept quant`, which writes it into the claim's `value`" in body
    assert html.count("<!--") == 2  # our two marker lines, nothing forged or hidden
    assert "<img" not in html
    assert "@someone" not in shown
    assert not re.search(r"#\d", body)
