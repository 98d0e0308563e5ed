"""Where a quote stands in a Markdown file, and the links a citation is made of.

The Markdown is written here with its line numbers known by construction.
"""

from __future__ import annotations

from claimcheck.judge.permalink import github_blob_url, quote_lines
from claimcheck.judge.units import read_page
from claimcheck.models import Anchor, MediaType

README = """\
# Engine

Fast inference
for **every** model.

- 4-bit and
  8-bit quantization
- CUDA

| Backend | Target |
| --- | --- |
| Metal | Apple Silicon |

```sh
make -j
```
"""


def lines(markdown: str, anchor: Anchor, media: MediaType = MediaType.MARKDOWN) -> object:
    return quote_lines(read_page(markdown, media), anchor, lambda: markdown)


def test_a_quote_is_placed_on_its_blocks_lines_however_the_markdown_writes_it() -> None:
    assert lines(README, Anchor(quote="fast inference for every model")) == (3, 4)
    assert lines(README, Anchor(quote="8-bit quantization")) == (6, 7)
    assert lines(README, Anchor(quote="CUDA")) == (8, 8)
    assert lines(README, Anchor(quote="Apple Silicon")) == (12, 12)
    assert lines(README, Anchor(quote="make -j")) == (14, 16)
    assert lines(README, Anchor(quote="not in the file")) is None


def test_a_quote_said_twice_is_placed_where_its_prefix_and_suffix_put_it() -> None:
    markdown = (
        "# Engine\n\n"
        "Supports 4-bit quantization on CUDA.\n\n"
        "## Apple\n\n"
        "- Supports 4-bit quantization on Metal.\n"
    )
    quote = "Supports 4-bit quantization"
    assert lines(markdown, Anchor(quote=quote)) == (3, 3)  # the first, as the judge takes
    assert lines(markdown, Anchor(quote=quote, suffix="on Metal")) == (7, 7)
    assert lines(markdown, Anchor(quote=quote, suffix="on CUDA")) == (3, 3)
    # No occurrence between them: the first, as the judge reports it (context changed).
    assert lines(markdown, Anchor(quote=quote, suffix="on Vulkan")) == (3, 3)


def test_a_quote_is_placed_only_where_it_stands_on_token_edges() -> None:
    # "5 GPUs" is inside "2.5 GPUs" on line 3 (a different number, which the judge does
    # not take for the quote) and stands as written on line 5.
    markdown = "# Scale\n\nOn 2.5 GPUs.\n\nRuns on 5 GPUs.\n"
    assert lines(markdown, Anchor(quote="5 GPUs")) == (5, 5)


def test_a_range_quote_runs_from_its_start_to_its_end() -> None:
    anchor = Anchor(quote="Fast inference", quote_end="CUDA")
    assert lines(README, anchor) == (3, 8)


def test_the_links() -> None:
    assert github_blob_url("o", "r", "abc123", "docs/READ ME.md", (3, 4)) == (
        "https://github.com/o/r/blob/abc123/docs/READ%20ME.md#L3-L4"
    )
    assert github_blob_url("o", "r", "abc123", "README.md", (8, 8)).endswith("#L8")
    assert github_blob_url("o", "r", "abc123", "README.md", None).endswith("/README.md")


def test_a_loose_items_text_is_placed_on_its_paragraph_not_on_its_nested_list() -> None:
    markdown = "- Supports CUDA\n\n  - on Linux\n  - on Windows\n\n- Supports Metal\n"
    assert lines(markdown, Anchor(quote="Supports CUDA")) == (1, 1)
    assert lines(markdown, Anchor(quote="on Windows")) == (4, 4)
    assert lines(markdown, Anchor(quote="Supports Metal")) == (6, 6)


def test_a_tight_items_text_is_placed_on_the_whole_item() -> None:
    # cmark places no paragraph inside a tight item: its text is on the item's lines,
    # which run over the nested list (as on GitHub, whose renderer this is).
    markdown = "- Supports CUDA\n  - on Linux\n- Supports Metal\n"
    assert lines(markdown, Anchor(quote="Supports CUDA")) == (1, 2)
    assert lines(markdown, Anchor(quote="on Linux")) == (2, 2)


def test_pictures_and_alerts_are_placed_as_a_reader_sees_them() -> None:
    markdown = (
        "Intro.\n\n[![License: MIT](badge.svg)](LICENSE)\n\n> [!WARNING]\n> In maintenance mode.\n"
    )
    assert lines(markdown, Anchor(quote="License: MIT")) == (3, 3)
    assert lines(markdown, Anchor(quote="Warning In maintenance mode.")) == (5, 6)


def test_a_cards_lines_count_its_front_matter() -> None:
    card = "---\nlicense: mit\ntags:\n- llm\n---\n\n# Model\n\nQuantized to 4 bits.\n"
    assert lines(card, Anchor(quote="Quantized to 4 bits."), MediaType.CARD) == (9, 9)
    assert lines(card, Anchor(quote="license: mit"), MediaType.CARD) is None


def test_a_position_written_into_the_readmes_own_html_past_its_end_is_no_position() -> None:
    markdown = '<p data-sourcepos="1:1-999:9">Written by hand.</p>\n\nPlaced.\n'
    page = read_page(markdown, MediaType.MARKDOWN)
    assert quote_lines(page, Anchor(quote="Written by hand.")) is None  # not cmark's
    # Read from the file, it is where it was written, not where it says it is.
    assert lines(markdown, Anchor(quote="Written by hand.")) == (1, 1)
    assert lines(markdown, Anchor(quote="Placed.")) == (3, 3)


def test_lines_are_where_a_unit_is_not_what_it_says() -> None:
    # A line added above moves every unit; the units (and so verdicts) stay equal.
    before = read_page("# Engine\n\n- Supports CUDA\n", MediaType.MARKDOWN)
    after = read_page("# Engine\n\nNew intro.\n\n- Supports CUDA\n", MediaType.MARKDOWN)
    assert before.units[1] == after.units[2]
    assert before.units[1:] == after.units[2:]
    assert (before.lines_of(1), after.lines_of(2)) == ((3, 3), (5, 5))
    assert before != read_page("# Engine\n\n- Supports Metal\n", MediaType.MARKDOWN)


def test_a_web_pages_units_have_no_lines() -> None:
    page = read_page('<main><p data-sourcepos="1:1-1:5">Hello</p></main>', MediaType.HTML)
    assert page.lines is None
    assert page.lines_of(0) is None
    assert quote_lines(page, Anchor(quote="Hello")) is None
    assert lines("", Anchor(quote="Hello")) is None


HTML_TABLE = """\
# Engine

<!--
Metal 4-bit (a comment: no reader sees it)
-->
<table>
<tr><td>CUDA</td><td>4-bit &amp; 8-bit</td></tr>
<tr><td>Metal</td>
<td>4-bit</td></tr>
</table>

Supported.

<p align="center">Metal 4-bit, again</p>
"""


def test_a_quote_in_raw_html_is_placed_on_the_lines_it_was_written_on() -> None:
    # cmark gives raw HTML no position: the file's own lines are read around it.
    page = read_page(HTML_TABLE, MediaType.MARKDOWN)
    assert lines(HTML_TABLE, Anchor(quote="CUDA 4-bit & 8-bit")) == (7, 7)  # &amp; read
    assert lines(HTML_TABLE, Anchor(quote="Metal 4-bit")) == (8, 9)  # not the comment
    assert lines(HTML_TABLE, Anchor(quote="Metal 4-bit", suffix=", again")) == (14, 14)
    assert lines(HTML_TABLE, Anchor(quote="Supported.")) == (12, 12)
    assert quote_lines(page, Anchor(quote="Metal 4-bit")) is None  # without the file
    assert lines(HTML_TABLE, Anchor(quote="a comment")) is None  # not on the page


SETEXT_THEN_HTML = """<div align="center">

TensorRT-LLM
===========================
<h4> A TensorRT Toolbox for Optimized Large Language Model Inference</h4>

[![Documentation](https://img.shields.io/badge/docs-latest-brightgreen.svg)](https://example.org/docs)

A TensorRT Toolbox, said again in Markdown.
</div>
"""


def test_a_quote_in_html_right_under_a_setext_heading_is_placed_on_its_line() -> None:
    # cmark's position of the heading runs over the <h4>'s line (3-5, as in
    # TensorRT-LLM's README): the heading's edge line is searched when nothing
    # strictly between the neighbours holds the quote, and nothing further.
    page = read_page(SETEXT_THEN_HTML, MediaType.MARKDOWN)
    heading = next(i for i, unit in enumerate(page.units) if unit.text == "TensorRT-LLM")
    assert page.lines_of(heading) == (3, 5)  # the overrun this is about
    quote = "A TensorRT Toolbox for Optimized Large Language Model Inference"
    assert lines(SETEXT_THEN_HTML, Anchor(quote=quote)) == (5, 5)
    assert lines(SETEXT_THEN_HTML, Anchor(quote="TensorRT-LLM")) == (3, 5)
    assert lines(SETEXT_THEN_HTML, Anchor(quote="said again in Markdown")) == (9, 9)


SCOPED_TABLES = """# Backends

Metal 4-bit is the default on a Mac.

<table id="quant">
<tr><td>CUDA</td><td>8-bit</td></tr>
<tr><td>Metal 4-bit</td><td>yes</td></tr>
</table>

| Backend | Notes |
| --- | --- |
| Vulkan | Metal 4-bit is not offered |

<table class="again">
<tr><td>CUDA</td><td>8-bit</td></tr>
</table>
"""


def scoped_lines(markdown: str, scope: str, quote: str) -> object:
    page = read_page(markdown, MediaType.MARKDOWN, scope)
    whole = read_page(markdown, MediaType.MARKDOWN)
    return quote_lines(page, Anchor(quote=quote), lambda: markdown, lambda: whole)


def test_a_scoped_quote_in_raw_html_is_placed_between_its_neighbours_in_the_whole_page() -> None:
    # The scope selects the two HTML tables (no lines from cmark) and none of what lies
    # between them: the raw row is found in the page read whole, by its text, and
    # placed between its neighbours there, not after the paragraph that says it first.
    assert scoped_lines(SCOPED_TABLES, "table#quant", "Metal 4-bit") == (7, 7)
    assert scoped_lines(SCOPED_TABLES, "table", "Metal 4-bit") == (7, 7)
    # A placed unit in scope keeps its own lines (the GFM table's row).
    assert scoped_lines(SCOPED_TABLES, "table", "Metal 4-bit is not offered") == (12, 12)
    # "CUDA 8-bit" is a row of both HTML tables: which one the scope found, its text
    # cannot tell, so it is placed on no line rather than maybe the wrong one.
    assert scoped_lines(SCOPED_TABLES, "table.again", "CUDA 8-bit") is None
    # Without the whole page a scoped raw unit is not placed (as before).
    page = read_page(SCOPED_TABLES, MediaType.MARKDOWN, "table#quant")
    assert quote_lines(page, Anchor(quote="Metal 4-bit")) is None
