"""The judge measured on real README history against an independent oracle.

The first half shows the oracle (`support.history_oracle`) correct on its own, on small
hand-written Markdown: its units, heading chains, header rows, lead-ins and notices, and
the expected verdicts it derives. The second half runs the evaluation
(`support.history_eval`, printed by `bench/judge_history.py`) and asserts each target.
"""

from __future__ import annotations

import ast
from pathlib import Path
from random import Random

import pytest

from claimcheck.models import Verdict
from claimcheck.untrusted import clean_text, shorten
from support import history_eval as he
from support.history_oracle import (
    Context,
    Document,
    Expectation,
    Unit,
    expect,
    expected_found,
    occurrences,
    read_html,
    read_markdown,
)

# Slow: judges the whole README-history corpus.
pytestmark = pytest.mark.slow

# -- the oracle on hand-written pages ----------------------------------------------------


def units(markdown: str) -> list[tuple[str, str]]:
    return [(u.kind, u.text) for u in read_markdown(markdown).units]


def unit(markdown: str, text: str) -> Unit:
    found = [u for u in read_markdown(markdown).units if u.text == text]
    assert len(found) == 1, [u.text for u in read_markdown(markdown).units]
    return found[0]


def test_each_block_a_reader_sees_is_one_unit() -> None:
    page = (
        "# Title\n\nA *para*graph\nover two lines.\n\n- one\n- two\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n```sh\npip  install x\n```\n\n> quoted\n> text\n"
    )
    assert units(page) == [
        ("heading", "Title"),
        ("p", "A paragraph over two lines."),
        ("li", "one"),
        ("li", "two"),
        ("tr", "a b"),
        ("tr", "1 2"),
        ("pre", "pip install x"),
        ("p", "quoted text"),  # a quote's paragraphs are paragraphs
    ]


def test_a_list_item_is_its_own_text_without_nested_lists() -> None:
    page = "- parent item\n  - child one\n  - child two\n- next\n"
    assert units(page) == [
        ("li", "parent item"),
        ("li", "child one"),
        ("li", "child two"),
        ("li", "next"),
    ]


def test_a_loose_items_first_paragraph_is_its_text_and_code_blocks_cut_it() -> None:
    page = "1. Install:\n\n   with pip\n\n   ```sh\n   pip install x\n   ```\n\n   Then run it.\n"
    assert units(page) == [
        ("li", "Install:"),
        ("p", "with pip"),
        ("pre", "pip install x"),
        ("p", "Then run it."),
    ]
    assert units("- tight item\n- next\n") == [("li", "tight item"), ("li", "next")]


def test_invisible_content_is_no_text_and_images_are_their_alt_text() -> None:
    page = (
        "Shown ![Build: passing](b.svg)text <!-- a comment -->\n\n"
        '<p>seen<span hidden>hidden</span><span aria-hidden="true">aria</span>'
        '<span style="color: red; display: none">none</span><svg><text>svg</text></svg></p>\n\n'
        "<div>loose <b>words</b></div>\n"
    )
    assert units(page) == [
        ("p", "Shown text"),
        ("img", "Build: passing"),  # a picture in a paragraph is a unit of its own
        ("p", "seen"),
        ("text", "loose words"),
    ]
    html = "<p>kept<script>x()</script><style>p {}</style><template>t</template></p>"
    assert [u.text for u in read_html(html).units] == ["kept"]


def test_a_script_tag_in_markdown_is_shown_as_text_as_github_does() -> None:
    # GFM's tagfilter escapes <script>, <style>, <title>...: the reader sees them as text.
    assert units("a <script>x()</script> b\n") == [("p", "a <script>x()</script> b")]


def test_text_is_nfkc_folded_with_single_spaces() -> None:
    assert units("ﬁne\u00a0tuning  on\u200b ２ GPUs — “fast”\n") == [
        ("p", 'fine tuning on 2 GPUs - "fast"')
    ]


def test_the_heading_chain_is_the_outline_path() -> None:
    page = "# Top\n\n## Install\n\n### Linux\n\nrun a\n\n## Use\n\nrun b\n\n#### Deep\n\nrun c\n"
    assert unit(page, "run a").context.headings == ("Top", "Install", "Linux")
    assert unit(page, "run b").context.headings == ("Top", "Use")
    assert unit(page, "run c").context.headings == ("Top", "Use", "Deep")
    assert unit(page, "Use").context.headings == ("Top",)


def test_a_row_has_its_tables_header_row() -> None:
    page = "| Model | GPUs |\n|---|---|\n| Llama | 2 |\n"
    assert unit(page, "Llama 2").context.header == "Model GPUs"
    assert unit(page, "Model GPUs").context.header is None
    html = (
        "<table><tr><th>Name</th><th>Size</th></tr><tr><td>A</td><td>1B</td></tr></table>"
        "<table><tr><td>plain</td><td>first</td></tr><tr><td>B</td><td>2B</td></tr></table>"
    )
    by_text = {u.text: u.context.header for u in read_html(html).units}
    assert by_text == {"Name Size": None, "A 1B": "Name Size", "plain first": None, "B 2B": None}


def test_items_in_a_table_cell_carry_the_header_row() -> None:
    html = "<table><tr><th>LLMs</th></tr><tr><td><ul><li>Llama (7B)</li></ul></td></tr></table>"
    item = next(u for u in read_html(html).units if u.kind == "li")
    assert (item.text, item.context.header) == ("Llama (7B)", "LLMs")


def test_a_list_has_a_lead_in_only_right_after_a_paragraph_ending_with_a_colon() -> None:
    assert unit("Supported backends:\n\n- CUDA\n", "CUDA").context.lead_in == "Supported backends:"
    assert unit("Some backends.\n\n- CUDA\n", "CUDA").context.lead_in is None
    assert unit("Backends:\n\n## Head\n\n- CUDA\n", "CUDA").context.lead_in is None
    nested = "Platforms:\n\n- Linux\n  - CUDA 12.8\n"
    assert unit(nested, "CUDA 12.8").context.lead_in == "Linux"
    assert unit(nested, "Linux").context.lead_in == "Platforms:"


def test_notices_cover_the_top_of_the_page_and_their_own_section() -> None:
    page = (
        "# Tool\n\n> [!WARNING]\n> Alpha software.\n\n## A\n\n> **Note**: needs CUDA.\n\n"
        "a text\n\n### A.1\n\na1 text\n\n## B\n\n> Just a quote.\n\nb text\n"
    )
    top, note = "Warning Alpha software.", "Note: needs CUDA."
    assert unit(page, "a text").context.notices == (top, note)
    assert unit(page, "a1 text").context.notices == (top, note)  # an enclosing section's
    assert unit(page, "b text").context.notices == (top,)  # not a sibling section's
    assert unit(page, "Tool").context.notices == ()
    assert [u.text for u in read_markdown(page).units if u.is_notice] == [top, note]


def test_every_alert_kind_and_the_older_bold_style_are_notices() -> None:
    kinds = ["[!NOTE]", "[!TIP]", "[!IMPORTANT]", "[!WARNING]", "[!CAUTION]", "[!note]"]
    bold = ["**Note**", "**Warning:**", "**Caution**", "**Important**"]
    for lead in kinds + bold:
        assert unit(f"> {lead}\n> Careful.\n\nafter\n", "after").context.notices, lead
    for lead in ["**Output**:", "Note that", "*Note*"]:
        assert not unit(f"> {lead} x\n\nafter\n", "after").context.notices, lead


def test_an_alert_reads_as_github_shows_it() -> None:
    # The marker alone on the first line becomes the alert's title; on a line with
    # text, GitHub shows no alert and the marker stays literal (still a notice).
    assert units("> [!IMPORTANT]\n> Use v2.\n") == [("p", "Important Use v2.")]
    assert units("> [!NOTE] Use v2.\n") == [("p", "[!NOTE] Use v2.")]


def test_without_an_h2_the_top_of_the_page_ends_at_the_first_heading_below_the_title() -> None:
    page = (
        "# Tool\n\n> [!NOTE]\n> Top.\n\n### Install\n\n> [!NOTE]\n> Inner.\n\n### Use\n\nuse it\n"
    )
    assert unit(page, "use it").context.notices == ("Note Top.",)
    lead_h2 = "## News\n\n> [!NOTE]\n> Inner.\n\n# Intro\n\nintro text\n"
    assert unit(lead_h2, "intro text").context.notices == ()


def test_tokens_are_never_cut_when_a_quote_is_looked_for() -> None:
    text = "Runs on 2.5 GPUs with CUDA 12.8, serves 1,100,000 users, MIT-0 licensed, via llama.cpp."
    for quote in ["5 GPUs", "CUDA 12", "100,000 users", "MIT", "llama", "cpp."]:
        assert occurrences(quote, text) == [], quote
    for quote in ["2.5 GPUs", "CUDA 12.8", "CUDA 12.8,", "1,100,000 users", "MIT-0", "llama.cpp."]:
        assert len(occurrences(quote, text)) == 1, quote
    assert len(occurrences("runs ON", text)) == 1  # case does not matter


def doc(markdown: str) -> Document:
    return read_markdown(markdown)


def test_expectation_verified_when_unit_and_context_are_the_same() -> None:
    old = "# T\n\nSupported:\n\n- Llama on 2 GPUs\n- Qwen\n"
    new = "# T\n\nSupported:\n\n- **Llama** on 2 GPUs\n- Qwen\n- Mistral (a new sibling)\n"
    assert expect("Llama on 2 GPUs", doc(old), doc(new)).verdict == "verified"


@pytest.mark.parametrize(
    ("new", "part"),
    [
        ("# T\n\nSupported:\n\n- Llama on 2 GPUs, soon\n", "unit"),
        ("# T2\n\nSupported:\n\n- Llama on 2 GPUs\n", "headings"),
        ("# T\n\nDeprecated:\n\n- Llama on 2 GPUs\n", "lead_in"),
        ("# T\n\n> [!CAUTION]\n> Broken.\n\nSupported:\n\n- Llama on 2 GPUs\n", "notices"),
    ],
    ids=["unit", "headings", "lead-in", "notices"],
)
def test_expectation_context_changed_names_the_part(new: str, part: str) -> None:
    old = "# T\n\nSupported:\n\n- Llama on 2 GPUs\n"
    assert expect("Llama on 2 GPUs", doc(old), doc(new)).changed == (part,)


@pytest.mark.parametrize(
    ("old", "new", "quote"),
    [
        (
            "| M | N |\n|---|---|\n| a | 1 |\n",
            "| M | N |\n|---|---|\n| b | 2 |\n| a | 1 |\n",
            "a 1",
        ),
        (
            "First.\n\nSecond para.\n",
            "First, now longer.\n\nSecond para.\n\nThird.\n",
            "Second para.",
        ),
        ("- x\n  - child\n", "- x\n  - new sibling\n  - child\n", "child"),
    ],
    ids=["table-row", "paragraph", "nested-item"],
)
def test_siblings_are_never_context(old: str, new: str, quote: str) -> None:
    assert expect(quote, doc(old), doc(new)).verdict == "verified"


def test_loose_html_text_and_summaries_are_units() -> None:
    page = "<details><summary>Older news</summary>\n\n- [2024/01] v1 out\n</details>\n"
    assert units(page) == [("text", "Older news"), ("li", "[2024/01] v1 out")]


def test_a_changed_table_header_changes_a_rows_context() -> None:
    old, new = (
        "| Works | GPUs |\n|---|---|\n| Llama | 2 |\n",
        "| Broken | GPUs |\n|---|---|\n| Llama | 2 |\n",
    )
    assert expect("Llama 2", doc(old), doc(new)) == Expectation("context-changed", ("header",))


def test_expectation_drifted_points_at_the_rewording_else_stale() -> None:
    old = "Intro.\n\nWe support 12 models on 4 GPUs today.\n"
    new = "Intro.\n\nWe support 15 models on 4 GPUs today.\n\nOther text.\n"
    quote = "We support 12 models on 4 GPUs today."
    expectation = expect(quote, doc(old), doc(new))
    assert expectation.verdict == "drifted"
    assert expectation.found == ("We support 15 models on 4 GPUs today.",)
    assert expect(quote, doc(old), doc("Intro.\n\nNothing alike.\n")).verdict == "stale"


def test_the_found_of_a_long_paragraph_may_be_its_sentence() -> None:
    paragraph = "First we build it. Then it supports 15 models on 4 GPUs. Last we ship."
    unit_ = Unit("p", paragraph, Context(paragraph))
    found = expected_found(unit_, "it supports 12 models on 4 GPUs")
    assert found == (paragraph, "Then it supports 15 models on 4 GPUs.")


def test_a_quote_in_several_units_of_new_is_ambiguous() -> None:
    old, new = "- runs fast\n- other\n", "- runs fast\n- runs fast\n"
    assert expect("runs fast", doc(old), doc(new)).verdict == "ambiguous"


def test_the_oracle_shares_no_code_with_the_judge() -> None:
    source = Path(he.__file__).with_name("history_oracle.py").read_text(encoding="utf-8")
    imported = {
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert not any(str(m).startswith("claimcheck") for m in imported), imported
    parsers = [
        node.args[1].value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "BeautifulSoup"
        and isinstance(node.args[1], ast.Constant)
    ]
    assert parsers == ["html.parser"]


# -- the evaluation's own pieces -----------------------------------------------------


@pytest.mark.parametrize(
    ("token", "kind"),
    [
        ("2.5", 0),
        ("v0.6.3", 0),
        ("1,100,000", 0),
        ("MIT-0", 1),
        ("llama.cpp", 1),
        ("TensorRT-LLM", 1),
        ("2024/04", 2),
        ("easy-to-use", None),
        ("e.g", None),
        ("GPUs", None),
    ],
)
def test_tokens_worth_cutting(token: str, kind: int | None) -> None:
    assert he.token_class(token) == kind


def test_adversarial_quotes_never_occur_in_the_page() -> None:
    page = doc(
        "Needs 2.5 GPUs and CUDA 12.8 under MIT-0.\n\n- first item ends here\n- second item\n"
    )
    for seed in range(5):
        quotes = he.subtoken_quotes(page, Random(seed), 3)
        assert quotes
        for quote in quotes:
            assert not page.holders(quote), quote
            assert not page.across(quote), quote
    glued = he.boundary_quotes(page, Random(0), 1)
    assert glued == ["ends here second item"]


def test_the_sampling_is_deterministic() -> None:
    folder = min(he.engines(), key=lambda f: sum(p.stat().st_size for p in f.glob("*.md")))
    first, second = he.engine_cases(folder), he.engine_cases(folder)
    assert [(c.category, c.where, c.quote) for c in first] == [
        (c.category, c.where, c.quote) for c in second
    ]


# -- the targets, on the corpus ---------------------------------------------------------


@pytest.fixture(scope="module")
def run() -> he.Evaluation:
    if not he.CORPUS.is_dir():
        pytest.skip("README history corpus not present")
    return he.evaluate()


def examples(outcomes: list[he.Outcome], count: int = 5) -> str:
    """A few failing outcomes for the assertion message, safe to print."""
    lines = []
    for o in outcomes[:count]:
        quote = shorten(clean_text(o.case.quote), 80)
        reason = shorten(clean_text(o.reason), 100)
        lines.append(f"{o.case.engine} {o.case.where}: {quote!r} -> {o.verdict}: {reason}")
    return "\n".join(lines)


def figure(run: he.Evaluation, name: str) -> he.Figure:
    return next(f for f in run.figures() if f.name == name)


def test_the_sample_covers_every_category(run: he.Evaluation) -> None:
    minimum = {he.SAME: 100, he.CHANGED: 80, he.REWORDED: 80, he.GONE: 30, he.MARKUP: 40}
    for category in he.CATEGORIES:
        why = he.formatting_edits_error() if category == he.MARKUP else None
        assert len(run.of(category)) >= minimum.get(category, 100), (category, why)
    assert {o.case.engine for o in run.outcomes} == {f.name for f in he.engines()}


def test_the_judge_never_raises(run: he.Evaluation) -> None:
    errors = [o for o in run.outcomes if o.verdict is None]
    assert errors == [], examples(errors)


def test_a_quote_cut_inside_a_number_version_or_identifier_is_never_verified(
    run: he.Evaluation,
) -> None:
    verified = [o for o in run.of(he.SUBTOKEN) if o.verdict is Verdict.VERIFIED]
    assert not verified, f"{len(verified)}/{len(run.of(he.SUBTOKEN))}\n{examples(verified)}"


def test_a_quote_glued_across_two_units_is_never_verified(run: he.Evaluation) -> None:
    verified = [o for o in run.of(he.BOUNDARY) if o.verdict is Verdict.VERIFIED]
    assert not verified, f"{len(verified)}/{len(run.of(he.BOUNDARY))}\n{examples(verified)}"


def test_a_changed_context_is_flagged(run: he.Evaluation) -> None:
    shown = figure(run, "context changed: judged context-changed")
    missed = [o for o in run.of(he.CHANGED) if o.verdict is not Verdict.CONTEXT_CHANGED]
    assert shown.value >= 95.0, f"{shown.shown}\n{examples(missed)}"


def test_an_unchanged_context_is_not_flagged(run: he.Evaluation) -> None:
    shown = figure(run, "context same: judged context-changed")
    flagged = [o for o in run.of(he.SAME) if o.verdict is Verdict.CONTEXT_CHANGED]
    assert shown.value <= 2.0, f"{shown.shown}\n{examples(flagged)}"


def test_every_stale_quote_is_caught(run: he.Evaluation) -> None:
    stale = run.of(he.REWORDED, he.GONE)
    missed = [o for o in stale if o.verdict is None or not o.verdict.is_stale]
    assert stale
    assert missed == [], f"{len(missed)}/{len(stale)}\n{examples(missed)}"


def test_markup_only_edits_never_alarm(run: he.Evaluation) -> None:
    alarms = [o for o in run.of(he.MARKUP) if o.verdict is not Verdict.VERIFIED]
    assert alarms == [], examples(alarms)


def test_a_reworded_quote_drifts_to_the_expected_text(run: he.Evaluation) -> None:
    shown = figure(run, "reworded: drifted with the expected found")
    wrong = [o for o in run.of(he.REWORDED) if not o.agrees]
    detail = "\n".join(
        f"{shorten(clean_text(o.found or ''), 70)!r} != "
        f"{shorten(clean_text(o.case.expectation.found[-1]), 70)!r}"
        for o in wrong[:5]
    )
    assert shown.value >= 80.0, f"{shown.shown}\n{detail}"
