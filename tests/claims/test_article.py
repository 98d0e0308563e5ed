"""An article is a claim file: each highlight link is a claim, read where it stands.

The sample articles are in tests/data/articles/ (see its README); every expected
value here is written out by hand from them.
"""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest

from claimcheck.claims.article import claim_file_text, parse_article, read_article
from claimcheck.claims.parse import parse_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.errors import ClaimFileError
from claimcheck.models import Anchor, Claim, MediaType
from support import paths

ARTICLES = paths.ROOT / "tests" / "data" / "articles"
TODAY = dt.date(2026, 10, 21)
LLAMA = "https://github.com/ggml-org/llama.cpp"
LICENSE = "https://github.com/ggml-org/llama.cpp/blob/master/LICENSE"
VLLM = "https://docs.example.org/vllm.html"
OCT_18, OCT_19, OCT_20 = dt.date(2026, 10, 18), dt.date(2026, 10, 19), dt.date(2026, 10, 20)


def derived(prefix: str, source: str, quote: str) -> str:
    """A derived id as the README defines it, computed here on its own."""
    key = f"{source}\n\n{quote}\n\n"
    return f"{prefix}-{hashlib.sha256(key.encode()).hexdigest()[:6]}"


def read(name: str, media: MediaType = MediaType.MARKDOWN) -> list[Claim]:
    text = (ARTICLES / name).read_text(encoding="utf-8")
    return parse_article(f"content/{name}", text, media, today=TODAY, read=read_document)


def problems(text: str, media: MediaType = MediaType.MARKDOWN) -> list[str]:
    with pytest.raises(ClaimFileError) as caught:
        parse_article("a.md", text, media, today=TODAY, read=read_document)
    return caught.value.problems


def summary(claims: list[Claim]) -> list[tuple[str, int, dt.date, str, str | None]]:
    return [(c.id, c.line, c.checked, c.claim, c.source) for c in claims]


def test_markdown_links_in_prose_tables_and_lists_are_claims() -> None:
    claims = read("engines.md")

    assert summary(claims) == [
        (
            "engines-plain-c-c-a3f5b1",
            11,
            OCT_20,
            "llama.cpp is written in plain C/C++ with no dependencies.",
            LLAMA,
        ),
        (
            "vllm-gpus",
            13,
            OCT_20,
            "vLLM, for its part, runs on NVIDIA and AMD GPUs, and more.",
            VLLM,
        ),
        ("engines-mit-license-46855b", 18, OCT_20, "llama.cpp (License): MIT", LICENSE),
        (
            "engines-1-5-bit-142a3b",
            18,
            OCT_20,
            "llama.cpp (Quantization): 1.5-bit to 8-bit",
            LLAMA,
        ),
        (
            "engines-apple-silicon-is-925e70",
            23,
            OCT_20,
            "Local use: llama.cpp runs on Apple silicon first.",
            LLAMA,
        ),
        (
            "engines-openai-compatible-api-5e01b8",
            25,
            OCT_18,
            "Serving: vLLM serves an OpenAI-compatible API.",
            VLLM,
        ),
    ]
    assert {c.page for c in claims} == {"engines"}
    assert {c.file for c in claims} == {"content/engines.md"}
    assert [c.anchor for c in claims[:2]] == [
        Anchor(quote="Plain C/C++ implementation without any dependencies"),
        Anchor(quote="NVIDIA GPUs", suffix="and AMD"),
    ]
    assert claims[3].anchor == Anchor(quote="1.5-bit", quote_end="integer quantization")


def test_links_without_a_directive_or_in_code_are_not_claims() -> None:
    text = (
        "---\nchecked: 2026-10-20\n---\n"
        "See [the site](https://example.org/) and [a heading](https://example.org/#usage).\n\n"
        "```\n[x](https://example.org/#:~:text=code)\n```\n\n"
        "    [x](https://example.org/#:~:text=indented)\n\n"
        "Inline `[x](https://example.org/#:~:text=inline)` and "
        '<code><a href="https://example.org/#:~:text=html">html</a></code>.\n'
    )

    assert parse_article("a.md", text, MediaType.MARKDOWN, today=TODAY, read=read_document) == []


def test_an_html_article_takes_its_settings_from_meta_time_and_data_attributes() -> None:
    claims = read("gpus.html", MediaType.HTML)

    assert summary(claims) == [
        ("gpu-support-nvidia-gpus-445a68", 13, OCT_19, "vLLM supports NVIDIA GPUs today.", VLLM),
        ("llama-apple", 16, OCT_19, "llama.cpp: Apple silicon first", LLAMA),
        (
            "gpu-support-openai-compatible-api-5e01b8",
            22,
            OCT_18,
            "vLLM (Server): OpenAI-compatible",
            VLLM,
        ),
        (
            "gpu-support-mit-license-46855b",
            26,
            OCT_20,
            "Sources checked 20 October 2026: the llama.cpp license.",
            LICENSE,
        ),
    ]
    text = (ARTICLES / "gpus.html").read_text(encoding="utf-8")
    article = read_article("gpus.html", text, MediaType.HTML, today=TODAY, read=read_document)
    assert (article.page, article.title, article.checked) == (
        "gpu-support",
        "GPU support across engines",
        OCT_19,
    )


def test_the_desk_page_in_korean() -> None:
    claims = read("deepinfer-vs-llama-cpp.ko.md")

    assert summary(claims) == [
        (
            "deepinfer-vs-llama-cpp-llm-inference-in-a00256",
            15,
            OCT_20,
            "llama.cpp는 “C/C++로 구현한 LLM 추론”입니다.",
            LLAMA,
        ),
        (
            "deepinfer-vs-llama-cpp-1-5-bit-9f7743",
            15,
            OCT_20,
            "1.5비트부터 8비트까지 정수 양자화를 지원하고, MIT 라이선스입니다.",
            LLAMA,
        ),
        (
            "deepinfer-vs-llama-cpp-apache-2-0-0e3889",
            23,
            OCT_20,
            "라이선스 (DeepInfer): Apache-2.0",
            "https://github.com/deepseek-ai/DeepInfer",
        ),
        (
            "deepinfer-vs-llama-cpp-mit-license-46855b",
            23,
            OCT_20,
            "라이선스 (llama.cpp): MIT",
            LICENSE,
        ),
        (
            "deepinfer-vs-llama-cpp-apple-silicon-is-925e70",
            29,
            OCT_20,
            "여러분이 있는 곳에서 돕니다. Apple Silicon, 소비자 GPU, CPU."
            " SM100 클러스터가 필요 없습니다.",
            LLAMA,
        ),
    ]
    assert claims[1].anchor == Anchor(
        quote="1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization"
    )


def test_a_derived_id_is_the_page_the_quotes_first_words_and_a_hash_of_source_and_quote() -> None:
    (claim, *_) = read("engines.md")
    key = f"{LLAMA}\n\nPlain C/C++ implementation without any dependencies\n\n"

    assert claim.id == "engines-plain-c-c-" + hashlib.sha256(key.encode()).hexdigest()[:6]


def test_editing_the_rest_of_the_article_keeps_every_id() -> None:
    text = (ARTICLES / "engines.md").read_text(encoding="utf-8")
    edited = (
        text.replace("# Inference engines, side by side\n", "# Engines\n\nA new intro.\n\n")
        .replace("We compare what each engine says of itself.", "We read the sources.")
        .replace("| vLLM | Apache-2.0 | many |", "| vLLM | Apache-2.0 | FP8, INT4 |")
        .replace("Where they shine:", "Strengths, in short:")
    )
    before = parse_article("engines.md", text, MediaType.MARKDOWN, today=TODAY, read=read_document)
    after = parse_article("engines.md", edited, MediaType.MARKDOWN, today=TODAY, read=read_document)

    assert [c.id for c in after] == [c.id for c in before]
    assert [c.line for c in after] == [c.line + 3 for c in before]
    assert after[0].claim == "llama.cpp is written in plain C/C++ with no dependencies."


def test_sentences_around_a_link() -> None:
    text = (
        "---\nchecked: 2026-10-20\n---\n"
        "First one, e.g. this. It is MIT licensed. [Source](https://a.example/#:~:text=MIT)\n\n"
        "Then it ends! vLLM runs on "
        "[GPUs](https://b.example/#:~:text=GPU). Last?\n"
    )

    claims = parse_article("a.md", text, MediaType.MARKDOWN, today=TODAY, read=read_document)

    assert [(c.claim, c.line) for c in claims] == [
        ("It is MIT licensed. Source", 4),
        ("vLLM runs on GPUs.", 6),
    ]


def test_the_page_is_the_file_name_without_front_matter_and_the_title_the_first_heading() -> None:
    text = "# My page\n\nIt [says](https://a.example/#:~:text=so)<!-- checked: 2026-10-01 -->.\n"

    article = read_article(
        "docs/Engine Notes.md", text, MediaType.MARKDOWN, today=TODAY, read=read_document
    )

    assert (article.page, article.title, article.checked) == ("engine-notes", "My page", None)
    assert [(c.id[:16], c.checked) for c in article.claims] == [
        ("engine-notes-so-", dt.date(2026, 10, 1))
    ]


def test_an_article_without_a_check_date_names_its_first_link_and_the_fix() -> None:
    text = (
        "# A\n\nOne [a](https://a.example/#:~:text=a).\n\nTwo [b](https://b.example/#:~:text=b).\n"
    )

    assert problems(text) == [
        "a.md:3: checked: this link has no check date (nor do 1 other link): give the article "
        "one (front matter `checked: YYYY-MM-DD`, or `<!-- checked: YYYY-MM-DD -->` right after "
        "the link)"
    ]


def test_every_problem_is_listed_at_once_by_line() -> None:
    text = (
        "---\npage: a page\nchecked: 2026-13-01\n---\n"
        "Two directives [a](https://a.example/#:~:text=a&text=b).\n"
        "Bad id [b](https://b.example/#:~:text=b)<!-- claim: -bad -->.\n"
        "Future [c](https://c.example/#:~:text=c)<!-- checked: 2030-01-01 -->.\n"
        "Again [d](https://d.example/#:~:text=same)<!-- claim: d; checked: 2026-10-01 -->.\n"
        "Again [e](https://e.example/#:~:text=%20)<!-- claim: d; chekced: 2026-10-01 -->.\n"
        "Not http [f](ftp://f.example/#:~:text=f)<!-- checked: 2026-10-01 -->.\n"
    )

    assert problems(text) == [
        "a.md:2: page: must be letters, digits, '.', '_' and '-', starting with a letter or digit",
        "a.md:3: checked: must be a date (YYYY-MM-DD), not '2026-13-01'",
        "a.md:5: source: 'https://a.example/#:~:text=a&text=b' has 2 text directives; a claim "
        "source needs exactly one anchor",
        "a.md:6: claim '-bad': id: must be letters, digits, '.', '_' and '-', starting with a "
        "letter or digit",
        f"a.md:7: claim {derived('a-c', 'https://c.example/', 'c')!r}: checked: 2030-01-01 is"
        " in the future (after 2026-10-22); write the day the claim was checked",
        "a.md:9: comment: 'chekced: 2026-10-01': a link's comment sets `claim: ID` and "
        "`checked: YYYY-MM-DD`, separated by `;`",
        "a.md:9: claim 'd': source: the text fragment's quote: it decodes to no visible text "
        "(only whitespace or invisible characters)",
        "a.md:9: claim 'd': id: duplicate id, first defined at a.md:8; give one of the links its "
        "own id (`<!-- claim: ID -->` right after it)",
        f"a.md:10: claim {derived('a-f', 'ftp://f.example/', 'f')!r}: source: must be an http(s)"
        " URL with a host",
    ]


def test_the_same_quote_of_the_same_source_twice_needs_an_id() -> None:
    link = "[x](https://a.example/#:~:text=quote)"
    text = (
        f"---\npage: p\nchecked: 2026-10-20\n---\nOne {link}.\n\n"
        f"| a | b |\n|---|---|\n| c | {link} |\n"
    )

    quote_id = derived("p-quote", "https://a.example/", "quote")
    assert problems(text) == [
        f"a.md:9: claim {quote_id!r}: id: duplicate id, first defined at a.md:5 (the same "
        "source and quote); give one of the links its own id (`<!-- claim: ID -->` right after it)"
    ]
    fixed = parse_article(
        "a.md",
        text.replace(f"{link} |", f"{link}<!-- claim: p-table --> |"),
        MediaType.MARKDOWN,
        read=read_document,
    )
    assert [(c.id, c.claim) for c in fixed] == [(quote_id, "One x."), ("p-table", "c (b): x")]


@pytest.mark.parametrize(
    ("name", "media"),
    [
        ("engines.md", MediaType.MARKDOWN),
        ("gpus.html", MediaType.HTML),
        ("deepinfer-vs-llama-cpp.ko.md", MediaType.MARKDOWN),
    ],
)
def test_the_extracted_claim_file_reads_back_as_the_same_claims(
    name: str, media: MediaType
) -> None:
    text = (ARTICLES / name).read_text(encoding="utf-8")
    article = read_article(name, text, media, today=TODAY, read=read_document)

    back = parse_claims(
        [("claims/x.yaml", claim_file_text(article))], today=TODAY, read=read_document
    )

    assert [c.model_copy(update={"file": name, "line": 0}) for c in back] == [
        c.model_copy(update={"line": 0}) for c in article.claims
    ]
    assert len(back) == len(article.claims) > 0


def test_the_extracted_claim_file_as_written() -> None:
    text = (
        "---\ntitle: 'Notes: GPUs'\nchecked: 2026-10-20\n---\n"
        "vLLM runs on [GPUs](https://b.example/p#:~:text=NVIDIA%20GPUs,-and%20AMD)"
        "<!-- claim: vllm-gpus -->. It is [fast](https://c.example/#:~:text=fast)"
        '<!-- checked: 2026-10-19 -->; "so they say".\n'
    )

    article = read_article(
        "notes/gpus.md", text, MediaType.MARKDOWN, today=TODAY, read=read_document
    )
    fast = hashlib.sha256(b"https://c.example/\n\nfast\n\n").hexdigest()[:6]

    assert claim_file_text(article) == (
        "# yaml-language-server: $schema=https://raw.githubusercontent.com/claimcheck/"
        "claimcheck/main/src/claimcheck/claims/claims.schema.json\n"
        "# The claims of notes/gpus.md, as `claimcheck extract` reads them.\n"
        "page: gpus\n"
        'title: "Notes: GPUs"\n'
        "checked: 2026-10-20\n"
        "claims:\n"
        "  - id: vllm-gpus\n"
        '    claim: "vLLM runs on GPUs."\n'
        '    source: "https://b.example/p#:~:text=NVIDIA%20GPUs,-and%20AMD"\n'
        f"  - id: gpus-fast-{fast}\n"
        '    claim: "It is fast; \\"so they say\\"."\n'
        '    source: "https://c.example/#:~:text=fast"\n'
        "    checked: 2026-10-19\n"
    )


def test_checked_lines_in_korean_date_their_block_and_their_section() -> None:
    claims = read("checked-lines.ko.md")

    assert [(c.line, c.checked) for c in claims] == [
        (8, dt.date(2026, 10, 16)),  # before any "checked" line: the front matter's
        (10, OCT_20),  # "2026-10-20 확인." in its own paragraph
        (16, OCT_19),  # "2026-10-19에 확인한 출처:" above its list, same section
        (17, OCT_18),  # its own `<!-- checked -->` beats the section's line
        (23, dt.date(2026, 10, 17)),  # "확인일: 2026-10-17", a new section's
    ]


@pytest.mark.parametrize(
    "line",
    [
        "Checked 2026-10-19.",
        "(checked 2026-10-19)",
        "Sources checked on 2026-10-19:",
        "All links CHECKED: 2026-10-19",
    ],
)
def test_an_english_checked_line_dates_the_links_after_it_until_the_next_heading(
    line: str,
) -> None:
    text = (
        "---\nchecked: 2026-10-18\n---\n# A\n\n"
        f"{line}\n\n"
        "- [a](https://a.example/#:~:text=a)\n"
        "- [b](https://b.example/#:~:text=b)\n\n"
        "## B\n\nThree [c](https://c.example/#:~:text=c).\n"
    )

    claims = parse_article("a.md", text, MediaType.MARKDOWN, today=TODAY, read=read_document)

    assert [(c.source, c.checked) for c in claims] == [
        ("https://a.example/", OCT_19),
        ("https://b.example/", OCT_19),
        ("https://c.example/", OCT_18),  # another section: the article's date again
    ]


def test_a_time_element_in_the_block_beats_a_checked_line_in_it() -> None:
    text = (
        '<html><head><meta name="claimcheck:checked" content="2026-10-18"></head><body>'
        "<p>Sources checked on 2026-10-19.</p>"
        '<p><a href="https://a.example/#:~:text=a">a</a>, as of <time datetime="2026-10-20">'
        "October 20</time>.</p>"
        '<p><a href="https://b.example/#:~:text=b">b</a></p></body></html>'
    )

    claims = parse_article("a.html", text, MediaType.HTML, today=TODAY, read=read_document)

    assert [c.checked for c in claims] == [OCT_20, OCT_19]


def test_a_checked_line_with_two_dates_is_refused_at_its_line() -> None:
    text = (
        "# A\n\nIntro.\n\nSources checked on 2026-10-19 and 2026-10-20.\n\n"
        "- [a](https://a.example/#:~:text=a)\n"
    )

    assert problems(text) == [
        'a.md:5: checked: this "checked" line names 2 dates (2026-10-19, 2026-10-20); '
        "write the one day its links were checked"
    ]


def test_dates_in_other_sentences_and_words_that_are_not_checked_lines_date_nothing() -> None:
    text = (
        "---\nchecked: 2026-10-18\n---\n# A\n\n"
        "The README of 2024-02-15 said so. Checked 2026-10-19.\n\n"
        "Updated 2026-10-20 (2026-10-20 업데이트).\n\n"
        "- [a](https://a.example/#:~:text=a)\n"
    )

    (claim,) = parse_article("a.md", text, MediaType.MARKDOWN, today=TODAY, read=read_document)

    assert claim.checked == OCT_19


def test_a_checked_line_in_the_future_is_refused_like_any_date() -> None:
    text = "# A\n\nChecked 2027-01-01.\n\n[a](https://a.example/#:~:text=a)\n"

    assert problems(text) == [
        "a.md:3: checked: 2027-01-01 is in the future (after 2026-10-22); write the day the "
        "claim was checked"
    ]
