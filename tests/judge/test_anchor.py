"""Tests of text normalization, anchor location (exact and fuzzy) and word diffs."""

from __future__ import annotations

import time
from pathlib import Path
from random import Random

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from claimcheck.judge.anchor import AnchorMatch, diff_words, locate_anchor, normalize_text
from claimcheck.judge.verdict import page_text
from claimcheck.models import Anchor, MediaType
from support import paths

CORPUS = paths.CORPUS
MIN_SCORE = 80.0


def locate(quote: str, text: str, **fields: str) -> AnchorMatch | None:
    return locate_anchor(Anchor(quote=quote, **fields), normalize_text(text), min_score=MIN_SCORE)


def in_markdown(markdown: str) -> str:
    return page_text(markdown, MediaType.MARKDOWN)


# --- normalize_text -------------------------------------------------------------

NORMALIZE_CASES = [
    ("nfkc-ligature", "e\ufb03cient", "efficient"),
    ("nfkc-fullwidth", "ＡＢＣ１", "ABC1"),
    ("nfkc-composes", "cafe\u0301", "café"),
    ("zero-width-space", "zero\u200bwidth", "zerowidth"),
    ("zero-width-joiners", "a\u200c\u200db\u2060c\ufeffd", "abcd"),
    ("zero-width-before-combining", "e\u200b\u0301", "é"),
    ("soft-hyphen", "hy\u00adphen", "hyphen"),
    ("single-quotes", "‘it’s’ ‚x‛ ′", "'it's' 'x' '"),
    ("double-quotes", "“a” „b‟ ″ «c»", '"a" "b" " "c"'),
    ("dashes", "a‐b‑c‒d–e—f―g−h", "a-b-c-d-e-f-g-h"),
    ("no-break-space", "a\u00a0b\u202fc", "a b c"),
    ("whitespace-runs", "  a \t\n\n b\r\n c  ", "a b c"),
    ("ideographic-space", "a\u3000b", "a b"),
    ("empty", " \n\t", ""),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [case[1:] for case in NORMALIZE_CASES],
    ids=[case[0] for case in NORMALIZE_CASES],
)
def test_normalize_text(text: str, expected: str) -> None:
    assert normalize_text(text) == expected


@given(st.text())
def test_normalize_is_idempotent(text: str) -> None:
    once = normalize_text(text)
    assert normalize_text(once) == once


@given(st.text())
def test_normalize_leaves_single_inner_spaces(text: str) -> None:
    normal = normalize_text(text)
    assert normal == normal.strip()
    assert "  " not in normal
    assert all(not c.isspace() or c == " " for c in normal)


# --- locate_anchor: exact ---------------------------------------------------------


def test_exact_match_reports_span_and_page_case() -> None:
    text = "Fast inference. LLaMA runs on a MacBook with 4-bit weights."
    match = locate("llama runs on a macbook", text)
    assert match == AnchorMatch(
        exact=True,
        start=16,
        end=39,
        found="LLaMA runs on a MacBook",
        score=100.0,
        occurrences=1,
        context_ok=True,
    )


EXACT_CASES: list[tuple[str, str, dict[str, str], str]] = [
    ("smart-quotes-in-quote", "It's “fast”.", {}, 'It\'s "fast"'),
    ("smart-quotes-in-page", "It’s \u201cfast\u201d.", {}, 'It\'s "fast"'),
    ("en-dash-vs-hyphen", "runs 2–3× faster", {}, "runs 2-3× faster"),
    ("nbsp-and-newline-in-page", "runs\u00a0on\nmany   GPUs", {}, "runs on many GPUs"),
    ("quote-has-punctuation-edge", "(see the docs)", {}, "see the docs)"),
    ("quote-after-a-symbol", "(v2.0-beta) is out", {}, "v2.0-beta) is"),
    ("sentence-period-after-a-number", "with a context length of 128K.", {}, "length of 128K"),
    ("comma-after-a-version", "Released v0.6.3, then v0.7.", {}, "Released v0.6.3"),
    ("version-as-a-whole", "Needs CUDA 12.8 or later", {}, "CUDA 12.8"),
    ("cjk-inside-sentence", "这是一个快速的推理引擎。", {}, "快速的推理"),
    ("casefold-expands", "Die Straße ist breit", {}, "STRASSE ist"),
]


@pytest.mark.parametrize(
    ("text", "fields", "quote"),
    [case[1:] for case in EXACT_CASES],
    ids=[case[0] for case in EXACT_CASES],
)
def test_exact_matches(text: str, fields: dict[str, str], quote: str) -> None:
    match = locate(quote, text, **fields)
    assert match is not None
    assert match.exact
    assert match.score == 100.0
    assert normalize_text(text)[match.start : match.end] == match.found


def test_casefold_expansion_maps_back_to_page_text() -> None:
    match = locate("strasse", "Die Straße ist breit")
    assert match is not None
    assert match.found == "Straße"


WORD_BOUNDARY_CASES = [
    ("inside-word", "we concatenate strings", "cat"),
    ("word-prefix", "catalogue of models", "cat"),
    ("word-suffix", "a bobcat appeared", "cat"),
    ("underscore-joins-words", "set LLAMA_CUDA=1", "CUDA"),
    # Tokens are atoms: a number, version or identifier is never cut (issue: a quote
    # verified inside a longer number is the worst error the judge can make).
    ("inside-a-version-token", "v2.0-beta is out", "0-beta is"),
    ("decimal-fraction", "We use 2.5 GPUs per node.", "5 GPUs per node"),
    ("thousands-separators", "over 1,100,000 GPUs", "100,000 GPUs"),
    ("licence-identifier", "It is licensed under MIT-0.", "licensed under MIT"),
    ("minor-version", "Needs CUDA 12.8 or later", "CUDA 12"),
    ("dotted-name", "Built on llama.cpp today", "llama"),
    ("c-plus-plus", "Written in C/C++ only", "Written in C"),
    ("plus-plus-suffix", "Written in C++ only", "Written in C"),
]


@pytest.mark.parametrize(
    ("text", "quote"),
    [case[1:] for case in WORD_BOUNDARY_CASES],
    ids=[case[0] for case in WORD_BOUNDARY_CASES],
)
def test_exact_match_respects_word_boundaries(text: str, quote: str) -> None:
    match = locate_anchor(Anchor(quote=quote), normalize_text(text), min_score=101.0)
    assert match is None


def test_prefix_and_suffix_pick_an_occurrence() -> None:
    text = "Backend: CUDA support. Frontend: CUDA support is planned."
    match = locate("CUDA support", text, prefix="Frontend:", suffix="is")
    assert match is not None
    assert (match.start, match.occurrences, match.context_ok) == (33, 2, True)


def test_prefix_must_end_on_a_word_boundary() -> None:
    text = "theme CUDA support and the CUDA support"
    match = locate("CUDA support", text, prefix="the")
    assert match is not None
    assert match.start == text.rindex("CUDA")


def test_context_not_satisfied_returns_first_occurrence() -> None:
    text = "CUDA support. Also CUDA support."
    match = locate("CUDA support", text, prefix="Metal")
    assert match is not None
    assert (match.exact, match.start, match.occurrences, match.context_ok) == (True, 0, 2, False)


def test_range_anchor_spans_to_first_end_after_start() -> None:
    text = "Intro. Step one: build. Step two: run. The end. Another end."
    match = locate("Step one", text, quote_end="end")
    assert match is not None
    assert match.exact
    assert match.found == "Step one: build. Step two: run. The end"


def test_range_anchor_end_must_follow_start() -> None:
    text = "the end comes before the start here"
    match = locate_anchor(
        Anchor(quote="the start", quote_end="the end"), normalize_text(text), min_score=100.0
    )
    assert match is None


def test_empty_quote_is_never_found() -> None:
    assert locate(" \u200b ", "some text") is None
    assert locate("some", "") is None


def test_blank_optional_fields_are_ignored() -> None:
    match = locate("some text", "here is some text", prefix=" ", suffix="\u200b", quote_end="")
    assert match is not None
    assert (match.found, match.context_ok) == ("some text", True)


def test_suffix_may_follow_without_space() -> None:
    match = locate("CUDA support", "(CUDA support) and more", prefix="(", suffix=")")
    assert match is not None
    assert match.context_ok


# --- locate_anchor: fuzzy -----------------------------------------------------------


def test_reworded_sentence_is_found_fuzzily() -> None:
    old = "vLLM is fast with state-of-the-art serving throughput"
    new = "Intro. vLLM is fast with best-in-class serving throughput and more. Outro."
    match = locate(old, new)
    assert match is not None
    assert not match.exact
    assert MIN_SCORE <= match.score < 100
    assert match.occurrences == 0
    assert match.found.startswith("vLLM is fast with best-in-class serving throughput")


def test_word_inserted_into_sentence_reports_whole_sentence() -> None:
    old = "Plain C/C++ implementation without dependencies"
    new = "- Plain C/C++ implementation without any dependencies\n- Apple silicon first"
    match = locate_anchor(Anchor(quote=old), in_markdown(new), min_score=MIN_SCORE)
    assert match is not None
    assert match.found == "Plain C/C++ implementation without any dependencies"


def test_fuzzy_match_reports_its_context() -> None:
    text = "Backends: vLLM is fast with best serving throughput. Done."
    match = locate("vLLM is fast with great serving throughput", text, prefix="Backends:")
    assert match is not None
    assert not match.exact
    assert match.context_ok
    match = locate("vLLM is fast with great serving throughput", text, prefix="Frontends:")
    assert match is not None
    assert not match.context_ok


def test_deleted_sentence_is_not_found() -> None:
    text = "The project supports many models. Install it with pip. Run the server."
    assert locate("Quantization reduces memory use on small GPUs", text) is None


SHORT_QUOTE_CASES = [
    ("one-word", "HiCache", "Supports hierarchical KV Cache on CPU."),
    ("one-word-near-miss", "DSpark", "Runs on H100/A100/Spark/5090."),
    ("two-words", "SGLang Router", "Fast serving with SGLang Runtime."),
    ("range-end-too-short", "Step one: build it", "Step 1: build it now. Done."),
]


@pytest.mark.parametrize(
    ("quote", "text"),
    [case[1:] for case in SHORT_QUOTE_CASES],
    ids=[case[0] for case in SHORT_QUOTE_CASES],
)
def test_short_quotes_are_never_fuzzy(quote: str, text: str) -> None:
    """A word or two has no reworded form: it is there or it is missing."""
    quote_end = {"Step one: build it": "Finished"}.get(quote)
    anchor = Anchor(quote=quote, quote_end=quote_end)
    assert locate_anchor(anchor, normalize_text(text), min_score=50.0) is None


def test_fuzzy_range_anchor() -> None:
    text = "Intro. Step one: build it. Step two: run it. The finish. Outro."
    match = locate("Step 1: build it", text, quote_end="and the finish")
    assert match is not None
    assert not match.exact
    assert match.found.startswith("Step one: build it")
    assert match.found.endswith("The finish.")  # whole sentences, as the source says


def test_fuzzy_is_fast_on_a_long_text() -> None:
    filler = " ".join(f"word{i % 997} token{i % 13}" for i in range(9000))
    assert len(filler) > 100_000
    text = normalize_text(filler + " The quick brown fox jumps over the lazy dog. " + filler)
    anchor = Anchor(quote="The quick brown cat jumps over the lazy dog")
    started = time.perf_counter()
    match = locate_anchor(anchor, text, min_score=MIN_SCORE)
    elapsed = time.perf_counter() - started
    assert match is not None
    assert match.found == "The quick brown fox jumps over the lazy dog"
    assert elapsed < 1.0


# --- locate_anchor: code blocks -----------------------------------------------------

VOCABULARY_CODE = sorted(
    {"serve", "models", "paged", "attention", "GPUs", "quantized", "weights", "faster"}
    | {"inference", "cloud", "servers", "streaming", "outputs", "batching", "prefix"}
)

CODE_PAGE = (
    "# Pull a prebuilt container docker run --rm -it runtime:1.0.1 "
    "# Inside the container - start frontend and worker python3 -m dynamo.frontend &\n"
    "Install from PyPI\n"
    "Then start the frontend and a worker as shown above."
)
CODE_UNITS = frozenset({0})


@pytest.mark.parametrize(
    ("from_code", "found"),
    [
        (False, "Then start the frontend and a worker as shown above."),
        (None, "Then start the frontend and a worker as shown above."),
    ],
    ids=["quote-was-prose", "origin-unknown"],
)
def test_a_code_block_holding_the_words_does_not_replace_prose(
    from_code: bool | None, found: str
) -> None:
    """The words of "Start the frontend:" all stand in the code block above, scattered:
    it scores as high as the sentence that replaced the line, but only the sentence
    may replace a quote that was prose (or whose origin is unknown)."""
    anchor = Anchor(quote="Start the frontend:")
    match = locate_anchor(
        anchor, CODE_PAGE, min_score=MIN_SCORE, code=CODE_UNITS, from_code=from_code
    )
    assert match is not None
    assert not match.exact
    assert match.found == found


def test_without_its_code_blocks_named_a_page_is_searched_whole() -> None:
    """The search before code blocks were told apart: the block's scattered words win."""
    match = locate_anchor(Anchor(quote="Start the frontend:"), CODE_PAGE, min_score=MIN_SCORE)
    assert match is not None
    assert match.found.startswith("# Pull a prebuilt container")


def test_a_quote_from_code_may_be_replaced_by_code() -> None:
    text = (
        "Install it with pip:\nexport LMDEPLOY_VERSION=0.3.0 export PYTHON_VERSION=38 pip install x"
    )
    anchor = Anchor(quote="export LMDEPLOY_VERSION=0.2.0 export PYTHON_VERSION=38 pip install")
    for from_code in (True, None):
        match = locate_anchor(
            anchor, text, min_score=MIN_SCORE, code=frozenset({1}), from_code=from_code
        )
        assert match is not None
        assert "LMDEPLOY_VERSION=0.3.0" in match.found
    # A quote that was prose is never replaced by code: nothing else will do.
    prose = locate_anchor(anchor, text, min_score=MIN_SCORE, code=frozenset({1}), from_code=False)
    assert prose is None


def test_a_quote_that_was_prose_and_is_gone_is_not_found_in_code() -> None:
    text = (
        "Demo\n"
        "Step 7: Test it again with people who are not related to you personally. "
        "This code tells your computer how to display the content on each page you visit - "
        "whether it's an image or text file (like PDFs)."
    )
    anchor = Anchor(quote="or with a light image:")
    code = frozenset({1})
    assert locate_anchor(anchor, text, min_score=70.0, code=code, from_code=False) is None
    # Where the quote stood is not known: the code block is all there is, so it is taken.
    unknown = locate_anchor(anchor, text, min_score=70.0, code=code)
    assert unknown is not None
    assert unknown == locate_anchor(anchor, text, min_score=70.0)


@given(
    words=st.lists(st.sampled_from(VOCABULARY_CODE), min_size=4, max_size=8, unique=True),
    seed=st.randoms(use_true_random=False),
    at=st.integers(min_value=0, max_value=100),
    from_code=st.sampled_from([False, None]),
)
def test_prose_that_replaced_a_quote_wins_over_code_holding_its_words(
    words: list[str], seed: Random, at: int, from_code: bool | None
) -> None:
    """Whatever order a code block holds the quote's words in, and however many more,
    the prose line that rewords the quote is what replaced it."""
    scattered = [*words, *VOCABULARY_CODE]
    seed.shuffle(scattered)
    at = 1 + at % (len(words) - 1)  # inside the quote, so it no longer stands verbatim
    reworded = [*words[:at], "newly", *words[at:]]
    code = " = ".join(scattered)  # every word there, never the quote verbatim
    text = "\n".join(["Intro.", code, " ".join(reworded) + ".", "Outro."])
    quote = " ".join(words)
    match = locate_anchor(
        Anchor(quote=quote), text, min_score=MIN_SCORE, code=frozenset({1}), from_code=from_code
    )
    assert match is not None
    assert match.found == " ".join(reworded) + "."


@given(
    words=st.lists(st.sampled_from(VOCABULARY_CODE), min_size=4, max_size=8, unique=True),
    from_code=st.sampled_from([True, False, None]),
)
def test_a_page_without_code_is_searched_alike_whatever_the_origin(
    words: list[str], from_code: bool | None
) -> None:
    """Naming no code block, or a quote's origin, changes nothing on a page of prose:
    the judge (which names them) and a caller that does not agree there."""
    text = "Intro.\n" + " ".join(words[1:]) + " again.\nOutro."
    anchor = Anchor(quote=" ".join(words))
    plain = locate_anchor(anchor, text, min_score=MIN_SCORE)
    named = locate_anchor(anchor, text, min_score=MIN_SCORE, code=frozenset(), from_code=from_code)
    assert named == plain


# --- locate_anchor: properties ------------------------------------------------------

SAFE_TEXT = st.text(st.characters(codec="utf-8"))


@given(before=SAFE_TEXT, quote=SAFE_TEXT, after=SAFE_TEXT)
def test_inserted_anchor_is_found_exactly(before: str, quote: str, after: str) -> None:
    normal_quote = normalize_text(quote)
    assume(normal_quote)
    text = normalize_text(f"{before} {quote} {after}")
    match = locate_anchor(Anchor(quote=quote), text, min_score=MIN_SCORE)
    assert match is not None
    assert match.exact
    assert match.found.casefold() == normal_quote.casefold()


WORD = st.from_regex(r"[A-Za-z][a-z]{1,7}", fullmatch=True)
SENTENCE = st.lists(WORD, min_size=3, max_size=10)
SEPARATORS = [" ", "   ", "\n", "  \n", "\u00a0", "&nbsp;", " \t "]


@st.composite
def markdown_of(draw: st.DrawFn, words: list[str]) -> str:
    """One of many Markdown spellings of the same visible words."""
    out = []
    for i, word in enumerate(words):
        style = draw(st.sampled_from(["plain", "strong", "em", "under", "link", "code"]))
        target = draw(st.sampled_from(["https://a.example/x", "./docs/y.md", "#z"]))
        out.append(
            {
                "plain": word,
                "strong": f"**{word}**",
                "em": f"*{word}*",
                "under": f"_{word}_",
                "link": f"[{word}]({target})",
                "code": f"`{word}`",
            }[style]
        )
        if i < len(words) - 1:
            out.append(draw(st.sampled_from(SEPARATORS)))
    return "".join(out) + draw(st.sampled_from(["", " ", "  "]))


@st.composite
def document_with_anchor(draw: st.DrawFn) -> tuple[str, str]:
    """A README-like Markdown document and a quote of one of its sentences or table rows."""
    sentence = draw(SENTENCE)
    rows = draw(st.lists(st.lists(SENTENCE, min_size=2, max_size=2), min_size=1, max_size=4))
    in_table = draw(st.booleans())
    quote = " ".join(" ".join(cell) for cell in rows[0]) if in_table else " ".join(sentence)
    bullet = draw(st.sampled_from(["-", "*", "+"]))
    blocks = [
        "# " + draw(markdown_of(draw(SENTENCE))),
        draw(markdown_of(draw(SENTENCE))),
        (f"{bullet} " if draw(st.booleans()) else "") + draw(markdown_of(sentence)),
        f"{bullet} " + draw(markdown_of(draw(SENTENCE))),
    ]
    table = ["| A | B |", "|---|---|"]
    table += [
        "| " + " | ".join(" ".join(cell) for cell in row) + " |"
        for row in draw(st.permutations(rows))
    ]
    blocks.append("\n".join(table))
    return "\n\n".join(blocks) + "\n", quote


@pytest.mark.slow  # many generated documents, each judged whole
@given(document_with_anchor())
def test_formatting_only_edits_keep_the_anchor_exact(doc: tuple[str, str]) -> None:
    markdown, quote = doc
    match = locate_anchor(Anchor(quote=quote), in_markdown(markdown), min_score=MIN_SCORE)
    assert match is not None
    assert match.exact
    assert match.found.casefold() == quote.casefold()


PROSE = (
    "the engine serves large language models with paged attention on many GPUs and "
    "supports quantized weights for faster inference across cloud servers laptops phones "
    "through an OpenAI compatible server offering streaming outputs batching prefix caching"
)
VOCABULARY = sorted(set(PROSE.split()))


@given(
    words=st.lists(st.sampled_from(VOCABULARY), min_size=8, max_size=16, unique=True),
    at=st.integers(min_value=0, max_value=100),
    new_word=st.from_regex(r"[0-9]{3,8}", fullmatch=True),
)
def test_one_reworded_word_is_found_fuzzily(words: list[str], at: int, new_word: str) -> None:
    """A word replaced inside the sentence shows up in `found`.

    The replaced word has two words on either side: at the sentence's edge, dropping
    a replaced word can score better than keeping it, and which a reader meant is
    ambiguous anyway.
    """
    at = 2 + at % (len(words) - 4)
    reworded = [*words[:at], new_word, *words[at + 1 :]]
    text = normalize_text("Lorem ipsum dolor. " + " ".join(reworded) + ". Sit amet.")
    match = locate_anchor(Anchor(quote=" ".join(words)), text, min_score=60.0)
    assert match is not None
    assert not match.exact
    assert match.score < 100
    assert new_word in match.found


# --- real README history --------------------------------------------------------------


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.fail(f"README corpus not found at {CORPUS}: tests/data is incomplete")
    return CORPUS


def readme(corpus: Path, repo: str, date: str) -> str:
    return in_markdown((corpus / repo / f"{date}.md").read_text(encoding="utf-8"))


LLAMA = "ggml-org__llama.cpp"
QUANT = "2-bit, 3-bit, 4-bit, 5-bit, 6-bit and 8-bit integer quantization support"


def test_llama_cpp_quantization_bullet_drifts(corpus: Path) -> None:
    """Feb→Mar 2024 the bullet gained 1.5-bit, a comma and a new ending: `found` is the
    new item whole, not the fragment that aligns with the old quote."""
    before = locate_anchor(Anchor(quote=QUANT), readme(corpus, LLAMA, "2024-02-01"), min_score=80)
    assert before is not None
    assert before.exact
    after = locate_anchor(Anchor(quote=QUANT), readme(corpus, LLAMA, "2024-03-01"), min_score=80)
    assert after is not None
    assert not after.exact
    assert 80 <= after.score < 100
    # The whole new item, as the source says it: its new first token and its new end.
    assert after.found == (
        "1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization"
        " for faster inference and reduced memory use"
    )
    assert "[-6-bit-]{+6-bit,+}" in diff_words(QUANT, after.found)


def test_llama_cpp_old_goal_sentence_is_missing(corpus: Path) -> None:
    """The 'run LLaMA on a MacBook' goal was replaced by a different one in March 2024."""
    anchor = Anchor(
        quote="The main goal of `llama.cpp` is to run the LLaMA model using 4-bit integer"
        " quantization on a MacBook".replace("`", "")
    )
    assert locate_anchor(anchor, readme(corpus, LLAMA, "2024-02-01"), min_score=80) is not None
    assert locate_anchor(anchor, readme(corpus, LLAMA, "2024-03-01"), min_score=80) is None


def test_lmdeploy_link_target_change_keeps_anchor(corpus: Path) -> None:
    """Aug→Sep 2024 lmdeploy moved its docs: only link targets changed."""
    anchor = Anchor(quote="Please review getting_started section for the basic usage of LMDeploy.")
    for date in ("2024-08-01", "2024-09-01"):
        match = locate_anchor(anchor, readme(corpus, "InternLM__lmdeploy", date), min_score=80)
        assert match is not None
        assert match.exact, date


def test_mlc_no_break_space_in_source(corpus: Path) -> None:
    """mlc-llm's README glues words with no-break spaces that a claim types as spaces."""
    raw = (corpus / "mlc-ai__mlc-llm" / "2024-06-01.md").read_text(encoding="utf-8")
    assert "provides\u00a0OpenAI-compatible API\u00a0available" in raw
    anchor = Anchor(quote="MLCEngine provides OpenAI-compatible API available through REST server")
    match = locate_anchor(anchor, readme(corpus, "mlc-ai__mlc-llm", "2024-06-01"), min_score=80)
    assert match is not None
    assert match.exact


def test_typographic_apostrophe_in_source(corpus: Path) -> None:
    """TensorRT-LLM writes ’ where a claim's author types '."""
    anchor = Anchor(quote="Here's your setup guide")
    text = readme(corpus, "NVIDIA__TensorRT-LLM", "2024-08-01")
    match = locate_anchor(anchor, text, min_score=80)
    assert match is not None
    assert match.exact


# --- diff_words -------------------------------------------------------------------

DIFF_CASES = [
    ("same", "a b c", "a b c", "a b c"),
    ("replaced", "a b c", "a x c", "a [-b-]{+x+} c"),
    ("removed", "a b c d", "a d", "a [-b c-] d"),
    ("added", "a d", "a b c d", "a {+b c+} d"),
    ("grouped", "a b c d", "a x y d", "a [-b c-]{+x y+} d"),
    ("at-ends", "a b", "b c", "[-a-] b {+c+}"),
    ("whitespace-ignored", "a  b\nc", "a b c", "a b c"),
    ("from-empty", "", "a b", "{+a b+}"),
    ("to-empty", "a b", "", "[-a b-]"),
]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [case[1:] for case in DIFF_CASES],
    ids=[case[0] for case in DIFF_CASES],
)
def test_diff_words(old: str, new: str, expected: str) -> None:
    assert diff_words(old, new) == expected


@given(st.text(alphabet=st.characters(max_codepoint=0x7F)))
def test_ascii_text_is_normalized_by_folding_its_whitespace_alone(text: str) -> None:
    """ASCII has no invisible, typographic or compatibility characters: the fast path
    must give what folding whitespace does (str.split's whitespace is re's \\s)."""
    assert normalize_text(text) == " ".join(text.split())
