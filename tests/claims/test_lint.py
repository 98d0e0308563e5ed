"""Lint rules, occurrence finding, context proposals and re-baselining, as plain values."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimcheck.claims.lint import (
    Finding,
    Level,
    NotRebased,
    Rebased,
    Rule,
    find_occurrences,
    findings_from_problems,
    lint_claims,
    lint_exit_code,
    propose_context,
    rebase_anchor,
    summarize,
)
from claimcheck.judge.anchor import locate_anchor, normalize_text, verbatim_spans
from claimcheck.judge.verdict import (
    NoSnapshot,
    Observed,
    SourceState,
    Thresholds,
    judge_claim,
    page_text,
)
from claimcheck.models import Anchor, Claim, ExitCode, MediaType, Snapshot, Verdict

URL = "https://example.org/page"
PAGE = normalize_text(
    "Engines. It runs on CUDA and Metal GPUs for local use. "
    "The server also runs on CUDA and Metal GPUs in a cluster. "
    "License: MIT. Quantization: 1.5-bit to 8-bit integer quantization is supported."
)


def claim(
    quote: str | None = "integer quantization is supported",
    *,
    absent: tuple[str, ...] = (),
    **anchor: str,
) -> Claim:
    return Claim(
        id="c",
        page="p",
        claim="a claim",
        source=URL if quote or absent else None,
        anchor=Anchor(quote=quote, **anchor) if quote else None,
        checked=dt.date(2026, 10, 20),
        cited=None if quote or absent else "a talk",
        absent=absent,
        file="claims/p.yaml",
        line=7,
    )


def observed(text: str = PAGE) -> Observed:
    snapshot = Snapshot(
        key="example.org/page",
        url=URL,
        final_url=URL,
        fetched_at=dt.datetime(2026, 11, 1, tzinfo=dt.UTC),
        status=200,
        sha256="0" * 64,
        media=MediaType.TEXT,
        file="2026-11-01T000000Z-00000000.txt",
    )
    return Observed(snapshot=snapshot, text=text, live=False)


def rules(found: list[Finding]) -> list[Rule]:
    return [f.rule for f in found]


CASES: dict[str, tuple[Claim, SourceState | None, list[Rule]]] = {
    "clean": (claim(), observed(), []),
    "citation-needed-is-not-linted": (claim(None), None, []),
    "no-snapshot": (claim(), NoSnapshot(), [Rule.NO_SNAPSHOT]),
    "no-state-at-all": (claim(), None, [Rule.NO_SNAPSHOT]),
    "missing": (claim("runs on quantum annealers only"), observed(), [Rule.QUOTE_NOT_FOUND]),
    "reworded": (
        claim("1.5-bit to 8-bit integer quantization is fully supported"),
        observed(),
        [Rule.QUOTE_NOT_FOUND],
    ),
    "context-mismatch": (
        claim("runs on CUDA and Metal GPUs", prefix="nothing like"),
        observed(),
        [Rule.CONTEXT_MISMATCH],
    ),
    "ambiguous": (claim("runs on CUDA and Metal GPUs"), observed(), [Rule.AMBIGUOUS_QUOTE]),
    "ambiguous-but-pinned": (
        claim("runs on CUDA and Metal GPUs", suffix="in a cluster"),
        observed(),
        [],
    ),
    "short-words": (claim("License: MIT"), observed(), [Rule.SHORT_QUOTE]),
    "short-characters": (claim("It runs on"), observed(), [Rule.SHORT_QUOTE]),
    "short-and-missing": (claim("HiCache"), observed(), [Rule.SHORT_QUOTE, Rule.QUOTE_NOT_FOUND]),
    # An absence claim is linted as verify judges it: an error once the page says it.
    "absent-not-said": (claim(None, absent=("multi-tenant",)), observed(), []),
    "absent-said": (claim(None, absent=("license: MIT",)), observed(), [Rule.ABSENT_FOUND]),
    "absent-said-beside-a-quote": (
        claim(absent=("Metal GPUs",)),
        observed(),
        [Rule.ABSENT_FOUND],
    ),
    "absent-said-and-quote-missing": (
        claim("runs on quantum annealers only", absent=("CUDA",)),
        observed(),
        [Rule.QUOTE_NOT_FOUND, Rule.ABSENT_FOUND],
    ),
    "absent-without-snapshot": (claim(None, absent=("CUDA",)), NoSnapshot(), [Rule.NO_SNAPSHOT]),
}


@pytest.mark.parametrize(("subject", "state", "expected"), CASES.values(), ids=CASES.keys())
def test_lint_rules(subject: Claim, state: SourceState | None, expected: list[Rule]) -> None:
    states = {URL: state} if state is not None else {}
    assert rules(lint_claims([subject], states, min_score=70)) == expected


def test_findings_name_file_line_claim_and_rule() -> None:
    (finding,) = lint_claims(
        [claim("runs on CUDA and Metal GPUs")], {URL: observed()}, min_score=70
    )
    text = finding.render()
    assert text.startswith("claims/p.yaml:7: warning: claim 'c': the quote occurs 2 times")
    assert text.endswith("[ambiguous-quote]")
    assert "prefix: 'It', suffix: 'for'" in text  # the first occurrence's


def test_an_absent_text_said_names_the_text_and_the_unit_that_says_it() -> None:
    page = "Status\nThis project is now in maintenance mode.\nInstall with pip."
    subject = claim(None, absent=("active development", "now in maintenance mode"))

    (finding,) = lint_claims([subject], {URL: observed(page)}, min_score=70)

    assert finding.level is Level.ERROR
    assert finding.render() == (
        "claims/p.yaml:7: error: claim 'c': the source now says 'now in maintenance mode' "
        "(snapshot of 2026-11-01), which the claim says it does not: review the claim; it "
        "says: 'This project is now in maintenance mode.' [absent-found]"
    )


ABSENT_WORDS = st.sampled_from(["a", "b", "c", "d", "zz"])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(ABSENT_WORDS, min_size=1, max_size=5).map(" ".join), min_size=1, max_size=5),
    st.lists(st.lists(ABSENT_WORDS, min_size=1, max_size=2).map(" ".join), min_size=1, max_size=3),
    st.sampled_from([None, "a b", "zz"]),
)
def test_lint_finds_an_absent_text_exactly_when_verify_calls_the_claim_contradicted(
    lines: list[str], absent: list[str], quote: str | None
) -> None:
    page = "\n".join(lines)
    subject = claim(quote, absent=tuple(dict.fromkeys(absent)))
    state = observed(page)

    found = Rule.ABSENT_FOUND in rules(lint_claims([subject], {URL: state}, min_score=70))
    verdict = judge_claim(subject, state, Thresholds(max_age_days=None)).verdict

    assert found == (verdict is Verdict.CONTRADICTED)


def test_reworded_quote_shows_the_closest_text() -> None:
    reworded = claim("1.5-bit to 8-bit integer quantization is fully supported")
    (finding,) = lint_claims([reworded], {URL: observed()}, min_score=70)
    assert "1.5-bit to 8-bit integer quantization is supported" in finding.message
    assert "(2026-11-01)" in finding.message


def test_parser_problems_become_findings_in_the_parsers_words() -> None:
    problems = [
        "claims/p.yaml:7: claim 'quant': qoute: unknown key",
        "claims/q.yaml:3: claim 'a': id: duplicate id, first defined at claims/p.yaml:4",
        "claims/r.yaml:2: invalid YAML: mapping values are not allowed here",
        "claims/s.yaml: no such claim file or folder",
    ]
    found = findings_from_problems(problems)
    assert [f.render() for f in found] == [
        "claims/p.yaml:7: error: claim 'quant': qoute: unknown key [schema]",
        "claims/q.yaml:3: error: claim 'a': id: duplicate id, first defined at claims/p.yaml:4"
        " [duplicate-id]",
        "claims/r.yaml:2: error: invalid YAML: mapping values are not allowed here [schema]",
        "claims/s.yaml: no such claim file or folder: error: cannot be read [schema]",
    ]


def test_problems_name_their_files_as_shown_even_a_name_inside_another() -> None:
    shown = {"a.yaml": "site/a.yaml", "claims/a.yaml": "site/claims/a.yaml"}
    problems = [
        "a.yaml:3: claim 'x': id: duplicate id, first defined at claims/a.yaml:4",
        "claims/a.yaml:9: claim 'y': qoute: unknown key",
    ]

    found = findings_from_problems(problems, shown)

    assert [(f.file, f.line, f.message) for f in found] == [
        ("site/a.yaml", 3, "id: duplicate id, first defined at site/claims/a.yaml:4"),
        ("site/claims/a.yaml", 9, "qoute: unknown key"),
    ]


@pytest.mark.parametrize(
    ("found", "code"),
    [
        ([], ExitCode.OK),
        ([Rule.SHORT_QUOTE, Rule.AMBIGUOUS_QUOTE], ExitCode.OK),
        ([Rule.SHORT_QUOTE, Rule.NO_SNAPSHOT], ExitCode.STALE),
        ([Rule.QUOTE_NOT_FOUND, Rule.SCHEMA], ExitCode.BAD_INPUT),
        ([Rule.DUPLICATE_ID], ExitCode.BAD_INPUT),
    ],
    ids=["clean", "warnings-only", "error", "unparseable-wins", "duplicate-id"],
)
def test_exit_codes(found: list[Rule], code: ExitCode) -> None:
    assert lint_exit_code(Finding("f", 1, rule, "m") for rule in found) is code


def test_levels_of_every_rule() -> None:
    warnings = {r for r in Rule if r.level is Level.WARNING}
    assert warnings == {Rule.SHORT_QUOTE, Rule.AMBIGUOUS_QUOTE}


def test_summary() -> None:
    assert summarize([], 3, 1) == "lint: clean (3 claims in 1 file)"
    assert summarize([], 1, 2) == "lint: clean (1 claim in 2 files)"
    found = [Finding("f", 1, Rule.SCHEMA, "m"), Finding("f", 2, Rule.SHORT_QUOTE, "m")]
    assert summarize(found, 3, 1) == "lint: 1 error, 1 warning (3 claims in 1 file)"


# -- occurrences and context proposals -------------------------------------------------


def test_find_occurrences_lists_every_exact_occurrence() -> None:
    spans = find_occurrences(Anchor(quote="runs on cuda and metal gpus"), PAGE)
    assert [PAGE[s:e] for s, e in spans] == ["runs on CUDA and Metal GPUs"] * 2
    assert find_occurrences(Anchor(quote="not there at all"), PAGE) == []
    assert len(find_occurrences(Anchor(quote="on"), "on on on")) == 3


@pytest.mark.parametrize("index", [0, 1])
def test_each_proposal_picks_its_own_occurrence(index: int) -> None:
    anchor = Anchor(quote="runs on CUDA and Metal GPUs")
    span = find_occurrences(anchor, PAGE)[index]
    proposal = propose_context(anchor, PAGE, span)
    assert proposal is not None
    prefix, suffix = proposal
    pinned = anchor.model_copy(update={"prefix": prefix, "suffix": suffix})
    match = locate_anchor(pinned, PAGE, min_score=101)
    assert match is not None
    assert match.context_ok
    assert match.start == span[0]


def test_a_proposal_grows_until_it_is_unique() -> None:
    text = "a b x c d. a e x c f. a b x c g."
    anchor = Anchor(quote="x")
    spans = find_occurrences(anchor, text)
    assert propose_context(anchor, text, spans[0]) == ("a b", "c d.")
    assert propose_context(anchor, text, spans[1]) == ("e", "c")


def test_a_proposal_reaches_into_the_units_around_the_quote() -> None:
    """A quote that is a whole unit (a paragraph under each heading) is told apart by
    the headings around it: the context crosses the unit break, as a reader's does."""
    text = "Install\nLinux\nRun the installer.\nmacOS\nRun the installer.\nThen restart."
    anchor = Anchor(quote="Run the installer.")
    spans = find_occurrences(anchor, text)
    assert [propose_context(anchor, text, span) for span in spans] == [
        ("Linux", "macOS"),
        ("macOS", "Then"),
    ]
    two_words = "Setup\nA\nRun it now.\nSetup\nB\nRun it now.\nEnd"
    runs = Anchor(quote="Run it now.")
    first, second = find_occurrences(runs, two_words)
    assert propose_context(runs, two_words, first) == ("A", "Setup")
    assert propose_context(runs, two_words, second) == ("B", "End")


QUOTE = "zz yy"
LINES = st.lists(
    st.lists(st.sampled_from(["a", "b", "c", QUOTE]), min_size=1, max_size=5).map(" ".join),
    min_size=1,
    max_size=6,
).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(LINES)
def test_every_proposal_picks_its_occurrence_and_no_other(text: str) -> None:
    """What `add` proposes is true: the claim written with it resolves, as the judge
    resolves an anchor, to that occurrence alone; and an occurrence whose word before
    is unlike every other occurrence's always gets a proposal."""
    anchor = Anchor(quote=QUOTE)
    spans = find_occurrences(anchor, text)
    for span in spans:
        proposal = propose_context(anchor, text, span)
        before = text[: span[0]].split()[-1:]
        others = [text[: other[0]].split()[-1:] for other in spans if other != span]
        if before and before not in others:
            assert proposal is not None
        if proposal is None:
            continue
        prefix, suffix = proposal
        assert all(part is None or part == " ".join(part.split()) for part in proposal)
        pinned = anchor.model_copy(update={"prefix": prefix, "suffix": suffix})
        match = locate_anchor(pinned, text, min_score=101)
        assert match is not None
        assert match.context_ok
        assert (match.start, match.end) == span
        assert verbatim_spans(pinned, text) == [span]


def test_no_proposal_when_the_text_repeats_whole() -> None:
    text = "same words here. same words here."
    anchor = Anchor(quote="words")
    spans = find_occurrences(anchor, text)
    assert propose_context(anchor, text, spans[1]) == ("here. same", "here.")
    repeated = "x y " * 20
    assert propose_context(Anchor(quote="y"), repeated, (2, 3)) is None


# -- accept: the anchor a reviewed claim gets ------------------------------------------

NOW = normalize_text(
    "Intro. It runs on CUDA, Metal and Vulkan GPUs for local use. "
    "Later: it runs on CUDA, Metal and Vulkan GPUs for local use in a cluster. License: MIT."
)
SENTENCE = "runs on CUDA, Metal and Vulkan GPUs for local use"


def rebase(anchor: Anchor, new_quote: str | None = None) -> Rebased | NotRebased:
    """`accept --span`: the aligned part of the new text, widened to whole tokens."""
    return rebase_anchor(anchor, NOW, new_quote=new_quote, min_score=70, aligned_only=True)


REBASES: dict[str, tuple[Anchor, str | None, Anchor | str]] = {
    "exact-kept-as-written": (Anchor(quote="license:   mit"), None, Anchor(quote="license:   mit")),
    "reworded-takes-found": (
        Anchor(quote="It runs on CUDA and Metal GPUs for local use"),
        None,
        Anchor(quote="It " + SENTENCE),
    ),
    "context-kept-when-it-fits": (
        Anchor(quote=SENTENCE, prefix="Later: it"),
        None,
        Anchor(quote=SENTENCE, prefix="Later: it"),
    ),
    "context-kept-when-it-fits-the-new-quote": (
        Anchor(quote="runs on CUDA and Metal GPUs for local use", suffix="in a cluster"),
        None,
        Anchor(quote=SENTENCE, suffix="in a cluster"),
    ),
    "context-follows-the-occurrence-it-half-fits": (
        Anchor(quote="runs on CUDA and Metal GPUs for local use", prefix="Later: it", suffix="on"),
        None,
        Anchor(quote=SENTENCE, prefix="it", suffix="in"),
    ),
    "context-dropped-when-unique": (
        Anchor(quote="Intro.", suffix="nothing"),
        None,
        Anchor(quote="Intro."),
    ),
    "no-context-gets-none": (
        Anchor(quote="runs on CUDA and Metal GPUs for local use"),
        None,
        Anchor(quote=SENTENCE),
    ),
    "given-quote": (
        Anchor(quote="gone entirely from the page"),
        "License: MIT",
        Anchor(quote="License: MIT"),
    ),
    "given-quote-not-there": (Anchor(quote="License: MIT"), "License: Apache", "--quote is not"),
    "nothing-close": (Anchor(quote="gone entirely from the page"), None, "nothing close"),
    "range-that-holds": (
        Anchor(quote="Intro.", quote_end="local use."),
        None,
        Anchor(quote="Intro.", quote_end="local use."),
    ),
    "range-changed": (Anchor(quote="Intro.", quote_end="remote use today"), None, "range"),
    "range-with-new-quote": (Anchor(quote="Intro.", quote_end="local use."), "Intro.", "range"),
}


@pytest.mark.parametrize(("old", "given_quote", "expected"), REBASES.values(), ids=REBASES.keys())
def test_rebase_anchor(old: Anchor, given_quote: str | None, expected: Anchor | str) -> None:
    result = rebase(old, given_quote)
    if isinstance(expected, Anchor):
        assert result == Rebased(expected)
    else:
        assert isinstance(result, NotRebased)
        assert expected in result.reason
        assert result.usage is ("range" in expected)


def test_accept_takes_the_whole_sentence_that_replaced_the_quote() -> None:
    """Without --span, the new quote is the whole sentence, as the source says it."""
    result = rebase_anchor(
        Anchor(quote="It runs on CUDA and Metal GPUs for local use"), NOW, new_quote=None,
        min_score=70,
    )  # fmt: skip
    assert result == Rebased(Anchor(quote="It " + SENTENCE + "."))


def test_accept_takes_the_whole_list_item_that_replaced_the_quote() -> None:
    page = page_text(
        "## Features\n\n- 1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer"
        " quantization for faster inference and reduced memory use\n- AVX support\n",
        MediaType.MARKDOWN,
    )
    old = Anchor(quote="2-bit, 3-bit, 4-bit, 5-bit, 6-bit and 8-bit integer quantization support")
    result = rebase_anchor(old, page, new_quote=None, min_score=70)
    assert isinstance(result, Rebased)
    assert result.anchor.quote.startswith("1.5-bit, 2-bit")
    assert result.anchor.quote.endswith("for faster inference and reduced memory use")


@pytest.mark.parametrize(
    "given",
    ["000,000 GPUs", "5 GPUs per node", "MIT"],
    ids=["inside-thousands", "inside-a-decimal", "inside-an-identifier"],
)
def test_accept_never_writes_a_quote_that_cuts_a_token(given: str) -> None:
    page = normalize_text("Trained on 1,000,000 GPUs. Uses 2.5 GPUs per node. MIT-0 licence.")
    result = rebase_anchor(Anchor(quote="old text here"), page, new_quote=given, min_score=70)
    assert isinstance(result, NotRebased)
    assert "never cut" in result.reason
