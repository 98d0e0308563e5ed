"""Units and contexts: what can change a verbatim quote's meaning, and what cannot."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimcheck.judge.anchor import locate_anchor, read_alike
from claimcheck.judge.context import Context, changes, locate_context
from claimcheck.judge.tokens import is_pictograph
from claimcheck.judge.units import read_page
from claimcheck.models import Anchor, MediaType

QUOTE = Anchor(quote="CANN Ascend NPU")
BASE = """\
# Engine

[Docs](https://d.example) | [Roadmap](https://r.example)

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
    found = locate_context(anchor, read_page(markdown, MediaType.MARKDOWN))
    assert found is not None
    return found


SAME = {
    "reordered-rows": BASE.replace(
        "| Metal | Apple Silicon |\n| CUDA | Nvidia GPU |",
        "| CUDA | Nvidia GPU |\n| Metal | Apple Silicon |",
    ),
    "emphasis-and-links": BASE.replace(
        "| CANN | Ascend NPU |", "| **CANN** | [Ascend](https://n.example) NPU |"
    ),
    "other-section-edited": BASE.replace("Run `make`.", "Run `cmake --build`, then install."),
    "rewrapped-intro": BASE.replace("Some intro text.", "Some intro\ntext."),
    "intro-reworded": BASE.replace("Some intro text.", "The backends we test nightly."),
    "nbsp": BASE.replace("Ascend NPU", "Ascend\u00a0NPU"),
    "cell-padding": BASE.replace("| CANN | Ascend NPU |", "|   CANN   |   Ascend NPU   |"),
    # Siblings are not context: another row says nothing new about this one.
    "row-added": BASE.replace("| CANN | Ascend NPU |", "| CANN | Ascend NPU |\n| HIP | AMD GPU |"),
    "row-removed": BASE.replace("| CUDA | Nvidia GPU |\n", ""),
    "nav-link-removed": BASE.replace(" | [Roadmap](https://r.example)", ""),
    # Headings are compared as quotes are matched: case-folded, emoji at the ends aside.
    "heading-case": BASE.replace("## Supported backends", "## Supported Backends"),
    "heading-emoji-gained": BASE.replace("## Supported backends", "## ✅ Supported backends"),
    "title-emoji-gained": BASE.replace("# Engine", "# 🚀 Engine 🎉"),
    "heading-full-width-case": BASE.replace(
        "## Supported backends", "## ＳＵＰＰＯＲＴＥＤ backends"
    ),
}
CHANGED = {
    "warning-above-in-its-section": (
        BASE.replace("Some intro text.", "> **Warning** This table is outdated."),
        "a notice was added above it",
    ),
    "caution-at-the-top-of-the-page": (
        BASE.replace("# Engine\n", "# Engine\n\n> [!CAUTION]\n> This project is archived.\n"),
        "a notice was added at the top of the page",
    ),
    "heading-renamed": (
        BASE.replace("## Supported backends", "## Removed backends"),
        "the section heading changed",
    ),
    "heading-word-added-beside-an-emoji": (
        BASE.replace("## Supported backends", "## 🚀 Formerly supported backends"),
        "the section heading changed",
    ),
    "heading-emoji-between-its-words": (
        BASE.replace("## Supported backends", "## Supported ❌ backends"),
        "the section heading changed",
    ),
    "header-row-renamed": (
        BASE.replace("| Backend | Target devices |", "| Backend | Dropped devices |"),
        "its table's header row changed",
    ),
    "its-own-row-changed": (
        BASE.replace("| CANN | Ascend NPU |", "| CANN | Ascend NPU (deprecated) |"),
        "its table row changed",
    ),
}


@pytest.mark.parametrize("markdown", SAME.values(), ids=SAME.keys())
def test_formatting_siblings_and_far_edits_keep_the_context(markdown: str) -> None:
    assert changes(context(BASE), context(markdown)) == []


@pytest.mark.parametrize(("markdown", "said"), CHANGED.values(), ids=CHANGED.keys())
def test_what_can_change_the_meaning_is_named(markdown: str, said: str) -> None:
    found = changes(context(BASE), context(markdown))
    assert len(found) == 1
    assert found[0].startswith(said)


EMOJI_BASE = BASE.replace("# Engine", "# 🚀 Engine")


def test_a_heading_that_lost_its_emoji_is_the_same_heading() -> None:
    assert changes(context(EMOJI_BASE), context(BASE)) == []


def test_a_heading_that_changed_only_in_case_or_emoji_is_not_named() -> None:
    """Only the heading whose words changed is named, not one beside it that changed
    only in case: "Usage on MacOS" -> "Usage on macOS" says the same."""
    before = BASE.replace("## Supported backends", "## Usage on MacOS")
    after = EMOJI_BASE.replace("# 🚀 Engine", "# Runtime").replace(
        "## Supported backends", "## Usage on macOS"
    )
    found = changes(context(before), context(after))
    assert found == ["the section heading changed from “Engine” to “Runtime”"]


@pytest.mark.parametrize(
    ("old", "new", "alike"),
    [
        ("Usage on MacOS", "Usage on macOS", True),
        ("🔥 Hot Topics", "Hot topics", True),
        ("News", "News 🎉", True),
        ("❤️ Sponsors", "Sponsors", True),  # an emoji with its variation selector
        ("👍🏽 Thanks", "Thanks", True),  # and with a skin tone
        ("Get “started”", 'Get "Started"', True),  # typographic quotes fold as in quotes
        ("News 🎉", "Latest News 🎉", False),
        ("Supported backends", "Removed backends", False),
        ("Supported ✅ backends", "Supported ❌ backends", False),  # among the words
        ("Built with ❤️ here", "Built with here", False),
        ("Install → run", "Install run", False),  # an arrow is not an emoji
        ("Linux & WSL2", "Linux", False),
        ("CUDA 12", "CUDA 12.8", False),
        ("🔥", "🎉", True),  # nothing but decoration on both sides
    ],
)
def test_headings_read_alike(old: str, new: str, alike: bool) -> None:
    assert read_alike(old, new) is alike
    assert read_alike(new, old) is alike


@pytest.mark.parametrize(
    ("token", "pictograph"),
    [
        ("🔥", True),
        ("✅", True),
        ("©", True),
        ("\ufe0f", True),
        ("🏽", True),
        ("→", False),
        ("^", False),
        ("a", False),
        ("12", False),
        ("#", False),
        ("中", False),
    ],
)
def test_what_is_a_pictograph(token: str, pictograph: bool) -> None:
    assert is_pictograph(token) is pictograph


_WORDS = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzAB0123456789", min_size=1, max_size=8),
    min_size=1,
    max_size=5,
)
_EMOJI = st.lists(st.sampled_from(["🔥", "🎉", "🚀", "✅", "❤️", "👍🏽"]), max_size=2)


@given(_WORDS, st.lists(st.booleans(), min_size=44, max_size=44), _EMOJI, _EMOJI)
def test_a_heading_reads_alike_exactly_when_the_quote_of_its_words_is_found(
    words: list[str], upper: list[bool], lead: list[str], trail: list[str]
) -> None:
    """Heading comparison and quote matching agree: a heading whose case changed and
    that gained emoji at its ends reads alike, and its old words are found verbatim
    in the new heading as a quote."""
    old = " ".join(words)
    recased = "".join(c.upper() if up else c.lower() for c, up in zip(old, upper, strict=False))
    new = " ".join([*lead, recased, *trail])
    assert read_alike(old, new)
    found = locate_anchor(Anchor(quote=old), new, min_score=101.0)
    assert found is not None
    assert found.exact


@given(_WORDS, _WORDS)
def test_a_heading_whose_words_changed_never_reads_alike(old: list[str], new: list[str]) -> None:
    """Headings read alike only when each, as a quote, is the whole of the other."""
    a, b = " ".join(old), " ".join(new)
    if read_alike(a, b):
        exact = locate_anchor(Anchor(quote=a), b, min_score=101.0)
        assert exact is not None
        assert (exact.start, exact.end) == (0, len(b))
    else:
        assert a.casefold() != b.casefold()


def test_a_list_item_extended_changes_the_context_its_neighbours_do_not() -> None:
    before = "- 4-bit quantization\n- CUDA kernels.\n"
    anchor = Anchor(quote="4-bit quantization")
    extended = "- 4-bit quantization (experimental, may be removed)\n- CUDA kernels.\n"
    assert changes(context(before, anchor), context(extended, anchor))
    neighbour = "- 4-bit quantization\n- CUDA kernels (experimental)\n"
    assert changes(context(before, anchor), context(neighbour, anchor)) == []
    lost_period = "- 4-bit quantization\n- CUDA kernels\n"
    assert changes(context(before, anchor), context(lost_period, anchor)) == []
    restyled = before.replace("- ", "* ")
    assert changes(context(before, anchor), context(restyled, anchor)) == []


def test_a_lead_in_that_introduces_the_list_is_context() -> None:
    before = "## Backends\n\nSupported backends:\n\n- CUDA\n- Metal\n"
    after = before.replace("Supported backends:", "The following backends were removed:")
    anchor = Anchor(quote="CUDA")
    assert context(before, anchor).lead_in == "Supported backends:"
    assert changes(context(before, anchor), context(after, anchor))[0].startswith(
        "its list's lead-in changed"
    )


def test_a_paragraph_that_does_not_introduce_the_list_is_not_its_lead_in() -> None:
    page = "## Backends\n\nWe test these nightly.\n\n- CUDA\n- Metal\n"
    assert context(page, Anchor(quote="CUDA")).lead_in is None


def test_a_nested_item_is_led_in_by_its_parent_item() -> None:
    page = "- Deprecated backends\n  - OpenCL\n  - Vulkan\n"
    assert context(page, Anchor(quote="OpenCL")).lead_in == "Deprecated backends"


def test_a_badge_added_beside_the_licence_badge_is_a_sibling() -> None:
    before = '<p align="center"><img alt="License: MIT" src="l.svg"></p>\n'
    after = (
        '<p align="center"><img alt="License: MIT" src="l.svg"> <img alt="Release" src="r"></p>\n'
    )
    anchor = Anchor(quote="License: MIT")
    assert context(before, anchor).kind == "image"
    assert changes(context(before, anchor), context(after, anchor)) == []


def test_a_notice_in_another_section_is_not_over_the_quote() -> None:
    page = "# E\n\n## A\n\n> [!WARNING]\n> A is slow.\n\n## B\n\nThe quoted sentence is here.\n"
    found = context(page, Anchor(quote="quoted sentence"))
    assert found.notices == ()
    assert found.headings == ("E", "B")


def test_context_text_shows_headings_header_and_unit() -> None:
    text = context(BASE).text
    assert text.splitlines() == [
        "§ Engine › Supported backends",
        "| Backend Target devices",
        "| CANN Ascend NPU",
    ]


def test_broken_raw_html_is_parsed_as_a_browser_would() -> None:
    """`<table>` where `</table>` was meant must not swallow the rest of the page."""
    page = (
        '<table align="center">\n<tr><td>picture</td></tr>\n<table>\n\n'
        "## Description\n\n- the quote\n"
    )
    found = context(page, Anchor(quote="the quote"))
    assert found.kind == "item"
    assert found.headings == ("Description",)


@pytest.mark.parametrize(
    ("markdown", "quote"),
    [
        ("| A | B |\n| --- | --- |\n| CUDA | Nvidia GPU |\n| HIP | AMD GPU |\n", "Nvidia GPU HIP"),
        ("- CUDA\n- Metal\n", "CUDA Metal"),
        ("First paragraph ends here.\n\nSecond one starts here.\n", "ends here. Second one"),
        ("# Title\n\nBody text.\n", "Title Body"),
    ],
    ids=["two-rows", "two-items", "two-paragraphs", "heading-and-paragraph"],
)
def test_a_quote_never_spans_two_units(markdown: str, quote: str) -> None:
    assert locate_context(Anchor(quote=quote), read_page(markdown, MediaType.MARKDOWN)) is None


def test_a_range_quote_may_span_units() -> None:
    page = read_page("- CUDA\n- Metal\n- Vulkan\n", MediaType.MARKDOWN)
    found = locate_context(Anchor(quote="CUDA", quote_end="Vulkan"), page)
    assert found is not None
    assert found.unit == "CUDA Metal Vulkan"
