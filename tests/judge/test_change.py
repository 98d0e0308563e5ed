"""The quote's change (`judge.change.quote_change`): the quote against the text now.

Each expected change is read by hand from the two texts: the sentence's words around
the part that corresponds to the quote are context, not insertions; words compare as
quotes are matched (case-folded, without a sentence's final punctuation).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimcheck.judge.change import Change, anchor_change, parse_diff, quote_change
from claimcheck.models import Anchor
from support.judging import judge_bodies, make_claim

CASES = [
    pytest.param(
        "supports 4-bit and 8-bit integer quantization",
        "Engine A supports 4-bit, 5-bit and 8-bit integer quantization for faster inference.",
        "supports [-4-bit-]{+4-bit, 5-bit+} and 8-bit integer quantization",
        ("Engine", "A"),
        ("for", "faster", "inference."),
        id="half-a-sentence-the-rest-is-context",
    ),
    pytest.param(
        "4-bit, 5-bit and 8-bit integer quantization support",
        "1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization for "
        "faster inference and reduced memory use",
        "4-bit, [-5-bit-]{+5-bit, 6-bit,+} and 8-bit integer quantization "
        "[-support-]{+for faster inference and reduced memory use+}",
        ("1.5-bit,", "2-bit,", "3-bit,"),
        (),
        id="words-that-replaced-the-quotes-last-are-the-change",
    ),
    pytest.param(
        "Runs on CUDA and Metal",
        "It now works on CUDA and Metal.",
        "[-Runs-]{+It now works+} on CUDA and Metal.",
        (),
        (),
        id="words-that-replaced-the-quotes-first-are-the-change",
    ),
    pytest.param(
        "Engine A supports 4-bit",
        "engine a supports 4-bit.",
        "engine a supports 4-bit.",
        (),
        (),
        id="case-and-a-final-full-stop-are-no-change",
    ),
    pytest.param(
        "It runs on Linux",
        "It runs on Linux, macOS and Windows",
        "It runs on [-Linux-]{+Linux, macOS and Windows+}",
        (),
        (),
        id="a-comma-is-a-change-and-what-follows-replaced-the-quotes-end",
    ),
    pytest.param(
        "It runs on CUDA and Metal",
        "Today it runs on CUDA, Metal and Vulkan. Many people like it.",
        "it runs on [-CUDA-]{+CUDA, Metal+} and [-Metal-]{+Vulkan.+}",
        ("Today",),
        ("Many", "people", "like", "it."),
        id="what-replaced-the-quotes-end-stops-at-its-sentences-end",
    ),
    pytest.param("a b c", "x y z", "[-a b c-]{+x y z+}", (), (), id="nothing-in-common"),
]


@pytest.mark.parametrize(("quote", "now", "text", "lead", "tail"), CASES)
def test_the_quotes_change_against_the_text_now(
    quote: str, now: str, text: str, lead: tuple[str, ...], tail: tuple[str, ...]
) -> None:
    change = quote_change(quote, now)
    assert (change.text, change.lead, change.tail) == (text, lead, tail)


def test_a_range_quote_changes_at_its_start_and_its_end_the_middle_elided() -> None:
    anchor = Anchor(quote="It runs on CUDA and Metal", quote_end="for local use")
    now = "Today it runs on CUDA, Metal and Vulkan. Many people like it. Built for local use only."
    change = anchor_change(anchor, now)
    assert (
        change.text == "it runs on [-CUDA-]{+CUDA, Metal+} and [-Metal-]{+Vulkan.+} … for local use"
    )
    assert (change.lead, change.tail) == (("Today",), ("only.",))


def test_the_judge_states_a_drifted_claims_diff_as_the_quotes_change() -> None:
    claim = make_claim("supports 4-bit and 8-bit integer quantization")
    result = judge_bodies(
        claim,
        "# A\n\nEngine A supports 4-bit, 5-bit and 8-bit integer quantization for faster "
        "inference.\n",
        baseline="# A\n\nEngine A supports 4-bit and 8-bit integer quantization.\n",
    )
    assert result.verdict.value == "drifted"
    assert result.diff == "supports [-4-bit-]{+4-bit, 5-bit+} and 8-bit integer quantization"


WORDS = st.sampled_from(["Engine", "supports", "4-bit,", "8-bit", "and", "GPUs.", "a", "Metal"])


@given(st.lists(WORDS, max_size=12), st.lists(WORDS, max_size=12))
def test_a_change_reads_back_from_its_text_and_keeps_every_word(
    quote: list[str], now: list[str]
) -> None:
    change = quote_change(" ".join(quote), " ".join(now))
    # Its `[-…-]{+…+}` text gives back its words (the JSON report and issues carry it).
    assert parse_diff(change.text) == change.words
    # The quote's side is the quote; the text now is context, the change, context.
    assert [w for changed, w in change.side("removed")] == quote
    new = [w for changed, w in change.side("added")]
    assert [*change.lead, *new, *change.tail] == now


def test_a_change_with_no_word_removed_or_added_is_no_change() -> None:
    assert not Change("quote", (("same", "a"),)).changed
    assert quote_change("a b", "a b").text == "a b"
