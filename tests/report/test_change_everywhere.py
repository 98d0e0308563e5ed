"""Every format shows the change `claimcheck diff` computes: the same words marked.

The results come from the real judge on generated pages (a sentence around a quote,
then the sentence reworded); each format is rendered and read back the way a person
reads it (Markdown's struck and bold words, the HTML's `<del>` and `<ins>`, the
`[-…-]{+…+}` lines of the github annotations, SARIF, JUnit and the JSON report), and
the words marked removed and added must be those of the change `diff` prints.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from xml.etree import ElementTree as ET

from bs4 import BeautifulSoup
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from claimcheck.judge.change import parse_diff
from claimcheck.judge.closest import diff_change
from claimcheck.models import ClaimResult
from claimcheck.report.build import build_report
from claimcheck.report.formats import OutputFormat, render
from support.judging import judge_bodies, make_claim

Marked = tuple[list[str], list[str]]
WORDS = st.sampled_from(
    ["alpha", "beta", "gamma", "runs", "on", "and", "4-bit", "8-bit,", "GPUs", "Metal."]
)


def from_text(diff: str | None) -> Marked:
    """The removed and added words of a `[-…-]{+…+}` line."""
    words = parse_diff(diff or "")
    return [w for k, w in words if k == "removed"], [w for k, w in words if k == "added"]


def line_after(text: str, *labels: str) -> str | None:
    """The rest of the first line that starts with one of `labels`."""
    for line in text.splitlines():
        for label in labels:
            if line.startswith(label):
                return line[len(label) :]
    return None


def from_markdown(text: str) -> Marked:
    shown = r"- \*\*(Now|The quote in its context|Its block)"
    line = next((x for x in text.splitlines() if re.match(shown, x)), "")
    body = line.split(":**", 1)[1] if ":**" in line else ""
    return (
        [w for run in re.findall(r"~~(.+?)~~", body) for w in run.split()],
        [w for run in re.findall(r"\*\*(.+?)\*\*", body) for w in run.split()],
    )


def from_html(text: str) -> Marked:
    page = BeautifulSoup(text, "html.parser")
    return (
        [w for tag in page.select(".sides .then del") for w in tag.get_text().split()],
        [w for tag in page.select(".sides .now ins") for w in tag.get_text().split()],
    )


def from_github(text: str) -> Marked:
    message = text.splitlines()[0].split("::", 2)[-1]
    return from_text(
        line_after(message.replace("%0A", "\n").replace("%25", "%"), "diff: ", "block diff: ")
    )


def from_sarif(text: str) -> Marked:
    results = json.loads(text)["runs"][0]["results"]
    message = results[0]["message"]["text"] if results else ""
    return from_text(line_after(message, "Change: ", "Block change: "))


def from_junit(text: str) -> Marked:
    case = ET.fromstring(text).find(".//testcase")
    assert case is not None
    body = "".join(case.itertext())
    return from_text(line_after(body, "diff: ", "block diff: "))


def from_json(text: str) -> Marked:
    entry = json.loads(text)["results"][0]
    return from_text(entry["diff"] or entry["block_diff"])


READERS = {
    OutputFormat.MARKDOWN: from_markdown,
    OutputFormat.HTML: from_html,
    OutputFormat.GITHUB: from_github,
    OutputFormat.SARIF: from_sarif,
    OutputFormat.JUNIT: from_junit,
    OutputFormat.JSON: from_json,
}


def judged(lead: list[str], quote: list[str], tail: list[str], now: list[str]) -> ClaimResult:
    """The judge's result on a claim quoting `quote` from `lead quote tail`, the page now
    saying `now`."""
    claim = make_claim(" ".join(quote))
    baseline = "# Engine\n\n" + " ".join([*lead, *quote, *tail]) + "\n"
    return judge_bodies(claim, "# Engine\n\n" + " ".join(now) + "\n", baseline=baseline)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lead=st.lists(WORDS, max_size=3),
    quote=st.lists(WORDS, min_size=3, max_size=6),
    tail=st.lists(WORDS, max_size=3),
    edits=st.lists(st.tuples(st.integers(0, 5), st.sampled_from(["drop", "add"]), WORDS)),
    new_lead=st.lists(WORDS, max_size=3),
    new_tail=st.lists(WORDS, max_size=3),
)
def test_every_format_marks_the_words_diff_marks(
    lead: list[str],
    quote: list[str],
    tail: list[str],
    edits: list[tuple[int, str, str]],
    new_lead: list[str],
    new_tail: list[str],
) -> None:
    reworded = list(quote)
    for at, how, word in edits:
        if how == "drop" and reworded:
            del reworded[at % len(reworded)]
        else:
            reworded.insert(at % (len(reworded) + 1), word)
    result = judged(lead, quote, tail, [*lead, *new_lead, *reworded, *new_tail, *tail])
    report = build_report([result], now=dt.datetime(2026, 12, 1, tzinfo=dt.UTC), offline=True)

    change = diff_change(result, None)
    event(f"{result.verdict.value} {None if change is None else change.what}")
    expected: Marked = ([], []) if change is None else from_text(change.text)
    if change is not None:
        assert expected == (change.marked("removed"), change.marked("added"))
    for fmt, read in READERS.items():
        assert read(render(report, fmt)) == expected, fmt
