"""Blocks and contexts: what counts as a change around a verbatim quote, and what not."""

from __future__ import annotations

import pytest

from claimcheck.judge.blocks import Context, locate_context, split_blocks
from claimcheck.models import Anchor, MediaType

QUOTE = Anchor(quote="CANN Ascend NPU")
BASE = """\
# Engine

## Supported backends

Some intro text.

| Backend | Target devices |
| --- | --- |
| Metal | Apple Silicon |
| CUDA | Nvidia GPU |
| CANN | Ascend NPU |

## Install

Run `make`.
"""


def context(markdown: str, anchor: Anchor = QUOTE) -> Context:
    found = locate_context(anchor, split_blocks(markdown, MediaType.MARKDOWN))
    assert found is not None
    return found


SAME = {
    "reordered-rows": BASE.replace(
        "| Metal | Apple Silicon |\n| CUDA | Nvidia GPU |",
        "| CUDA | Nvidia GPU |\n| Metal | Apple Silicon |",
    ),
    "emphasis-and-links": BASE.replace(
        "| CUDA | Nvidia GPU |", "| **CUDA** | [Nvidia](https://n.example) GPU |"
    ),
    "other-section-edited": BASE.replace("Run `make`.", "Run `cmake --build`, then install."),
    "rewrapped-intro": BASE.replace("Some intro text.", "Some intro\ntext."),
    "nbsp": BASE.replace("Nvidia GPU", "Nvidia\u00a0GPU"),
    "cell-padding": BASE.replace("| CANN | Ascend NPU |", "|   CANN   |   Ascend NPU   |"),
}
CHANGED = {
    "row-added": BASE.replace("| CANN | Ascend NPU |", "| CANN | Ascend NPU |\n| HIP | AMD GPU |"),
    "row-removed": BASE.replace("| CUDA | Nvidia GPU |\n", ""),
    "warning-above": BASE.replace("Some intro text.", "> **Warning** This table is outdated."),
    "heading-renamed": BASE.replace("## Supported backends", "## Backends (deprecated)"),
}


@pytest.mark.parametrize("markdown", SAME.values(), ids=SAME.keys())
def test_formatting_and_far_edits_keep_the_context(markdown: str) -> None:
    assert context(BASE).same_as(context(markdown))


@pytest.mark.parametrize("markdown", CHANGED.values(), ids=CHANGED.keys())
def test_real_changes_around_the_quote_change_the_context(markdown: str) -> None:
    assert not context(BASE).same_as(context(markdown))


def test_a_list_item_extended_changes_the_context() -> None:
    before = "- 4-bit quantization\n- CUDA kernels\n"
    after = "- 4-bit quantization\n- CUDA kernels (experimental, may be removed)\n"
    anchor = Anchor(quote="4-bit quantization")
    assert not context(before, anchor).same_as(context(after, anchor))
    assert context(before, anchor).same_as(context(before.replace("- ", "* "), anchor))


def test_the_block_above_counts_only_within_the_section() -> None:
    page = "## A\n\nUnrelated paragraph.\n\n## B\n\nThe quoted sentence is here.\n"
    found = context(page, Anchor(quote="quoted sentence"))
    assert found.above is None
    assert found.block.heading == "B"


def test_context_text_shows_rows_and_items_on_their_own_lines() -> None:
    text = context(BASE).text
    assert text.startswith("§ Supported backends\n")
    assert "| CANN Ascend NPU" in text.splitlines()


def test_broken_raw_html_is_parsed_as_a_browser_would() -> None:
    """`<table>` where `</table>` was meant must not swallow the rest of the page."""
    page = (
        '<table align="center">\n<tr><td>picture</td></tr>\n<table>\n\n'
        "## Description\n\n- the quote\n"
    )
    found = context(page, Anchor(quote="the quote"))
    assert found.block.kind == "list"
    assert found.block.heading == "Description"
