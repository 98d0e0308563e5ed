"""Hugging Face cards: which URLs are cards, their keys and requests, and their history
read from a Hub-shaped server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest

from claimcheck.config import load_config
from claimcheck.forges.forge import ABSENT, Version
from claimcheck.forges.huggingface import (
    HubCard,
    HubHistory,
    card_of,
    hub_card,
    hub_commit,
    hub_request,
)
from claimcheck.forges.resolve import resolve_source
from claimcheck.judge.anchor import normalize_text
from claimcheck.judge.front_matter import split_front_matter
from claimcheck.judge.verdict import page_text
from claimcheck.models import Blame, MediaType, SourceKind
from claimcheck.net.fetcher import Fetcher, FetchSettings
from support.fake_hub import FakeHub, blob_sha
from support.model_cards import (
    INTRO,
    LIMITS_AFTER,
    LIMITS_BEFORE,
    MODEL,
    at,
    card,
    publish,
)

FAST = FetchSettings(per_host_interval=0.0, retries=0)
TOKEN = "hf_unitTestToken0123456789abcdefSECRET"
ENDPOINT = "http://127.0.0.1:8999"


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with FakeHub(per_page=2) as server:
        yield server
    assert server.errors == []


# -- which URLs are cards ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "card_url", "fetch", "key"),
    [
        (
            "https://huggingface.co/acme-ai/tiny-chat-7b",
            "https://huggingface.co/acme-ai/tiny-chat-7b",
            f"{ENDPOINT}/acme-ai/tiny-chat-7b/raw/main/README.md",
            "huggingface.co/acme-ai/tiny-chat-7b/README",
        ),
        (
            "https://huggingface.co/acme-ai/tiny-chat-7b/blob/main/README.md",
            "https://huggingface.co/acme-ai/tiny-chat-7b",
            f"{ENDPOINT}/acme-ai/tiny-chat-7b/raw/main/README.md",
            "huggingface.co/acme-ai/tiny-chat-7b/README",
        ),
        (
            "https://huggingface.co/acme-ai/tiny-chat-7b/tree/main#model-card",
            "https://huggingface.co/acme-ai/tiny-chat-7b",
            f"{ENDPOINT}/acme-ai/tiny-chat-7b/raw/main/README.md",
            "huggingface.co/acme-ai/tiny-chat-7b/README",
        ),
        (
            "https://HuggingFace.CO/acme-ai/Tiny_Chat.v2",
            "https://huggingface.co/acme-ai/Tiny_Chat.v2",
            f"{ENDPOINT}/acme-ai/Tiny_Chat.v2/raw/main/README.md",
            "huggingface.co/acme-ai/Tiny_Chat.v2/README",
        ),
        (
            "https://www.huggingface.co/datasets/acme-ai/chat-pairs",
            "https://huggingface.co/datasets/acme-ai/chat-pairs",
            f"{ENDPOINT}/datasets/acme-ai/chat-pairs/raw/main/README.md",
            "huggingface.co/datasets/acme-ai/chat-pairs/README",
        ),
        (
            "https://hf.co/spaces/acme-ai/chat-demo/blob/main/README.md",
            "https://huggingface.co/spaces/acme-ai/chat-demo",
            f"{ENDPOINT}/spaces/acme-ai/chat-demo/raw/main/README.md",
            "huggingface.co/spaces/acme-ai/chat-demo/README",
        ),
        (
            "https://huggingface.co/acme-ai/tiny-chat-7b/tree/v1.0",
            "https://huggingface.co/acme-ai/tiny-chat-7b/tree/v1.0",
            f"{ENDPOINT}/acme-ai/tiny-chat-7b/raw/v1.0/README.md",
            "huggingface.co/acme-ai/tiny-chat-7b/README/ref-v1.0",
        ),
    ],
    ids=["model", "blob-readme", "tree-main", "case", "dataset", "space", "revision"],
)
def test_card_urls_resolve_to_the_raw_readme(url: str, card_url: str, fetch: str, key: str) -> None:
    ref = resolve_source(url, "https://api.github.com", ENDPOINT + "/")

    assert (ref.kind, ref.url, ref.fetch_url, ref.key) == (
        SourceKind.HF_CARD,
        card_url,
        fetch,
        key,
    )
    assert ref.media is MediaType.CARD
    assert card_of(ref) is not None


@pytest.mark.parametrize(
    "url",
    [
        "https://huggingface.co/docs/transformers",  # the Hub's own pages
        "https://huggingface.co/blog/some-post",
        "https://huggingface.co/papers/2401.00001",
        "https://huggingface.co/datasets",
        "https://huggingface.co/datasets/acme-ai",
        "https://huggingface.co/gpt2",  # a legacy one-segment name: read as the page
        "https://huggingface.co/acme-ai/tiny-chat-7b/blob/main/config.json",
        "https://huggingface.co/acme-ai/tiny-chat-7b/blob/main/readme.md",
        "https://huggingface.co/acme-ai/tiny-chat-7b/tree/main/onnx",
        "https://huggingface.co/acme-ai/tiny-chat-7b/discussions/3",
        "https://huggingface.co/Datasets/acme-ai/chat-pairs",  # the prefix is lower case
        "https://huggingface.co/acme-ai/tiny--chat",  # names the Hub refuses
        "https://huggingface.co/acme-ai/tiny..chat",
        "https://huggingface.co/acme-ai/tiny-chat.git",
        "https://huggingface.co/acme-ai/-tiny",
        "https://huggingface.co/acme-ai/../tiny-chat-7b",
        "ftp://huggingface.co/acme-ai/tiny-chat-7b",
        "https://huggingface.com/acme-ai/tiny-chat-7b",
    ],
)
def test_other_hub_addresses_are_web_pages(url: str) -> None:
    ref = resolve_source(url, "https://api.github.com", ENDPOINT)

    assert hub_card(url) is None
    assert ref.kind is SourceKind.WEB
    assert card_of(ref) is None
    assert ref.fetch_url.startswith(url.split("#")[0].split("://")[0] + "://")
    assert not ref.fetch_url.startswith(ENDPOINT)


def test_a_revision_with_slashes_is_escaped_and_its_key_stays_safe() -> None:
    ref = resolve_source("https://huggingface.co/acme-ai/tiny-chat-7b/tree/refs%2Fpr%2F3")

    assert (
        ref.fetch_url == "https://huggingface.co/acme-ai/tiny-chat-7b/raw/refs%2Fpr%2F3/README.md"
    )
    head, _, last = ref.key.rpartition("/")
    assert head == "huggingface.co/acme-ai/tiny-chat-7b/README"
    assert last.startswith("ref-refs_pr_3-")  # sanitised, with a digest of the original
    assert ".." not in ref.key.split("/")


def test_the_key_names_the_public_hub_whatever_the_endpoint() -> None:
    url = "https://huggingface.co/acme-ai/tiny-chat-7b"
    public, mirror = resolve_source(url), resolve_source(url, "https://api.github.com", ENDPOINT)

    assert public.key == mirror.key == "huggingface.co/acme-ai/tiny-chat-7b/README"
    assert public.fetch_url == "https://huggingface.co/acme-ai/tiny-chat-7b/raw/main/README.md"


def test_a_card_is_not_a_github_file_and_github_urls_are_not_cards() -> None:
    from claimcheck.forges.github import github_file

    card_ref = resolve_source("https://huggingface.co/acme-ai/tiny-chat-7b")
    github_ref = resolve_source("https://github.com/acme-ai/tiny-chat-7b")

    assert github_file(card_ref) is None
    assert card_of(github_ref) is None
    assert github_ref.kind is SourceKind.GITHUB_README


def test_the_hub_request_carries_the_token_for_the_endpoint_host_only() -> None:
    request = hub_request(
        f"{ENDPOINT}/acme-ai/x/raw/main/README.md",
        endpoint=ENDPOINT,
        token=TOKEN,
        etag='"abc"',
    )

    assert request.token_host == "127.0.0.1:8999"
    assert request.etag == '"abc"'
    assert request.api_version is None  # GitHub's version header is GitHub's
    assert TOKEN not in repr(request)


# -- the endpoint and the token in the config ------------------------------------------


def test_hf_endpoint_from_the_environment_over_the_file_over_the_default(tmp_path: Path) -> None:
    path = tmp_path / "claimcheck.toml"
    path.write_text('hf_endpoint = "https://hub.example.test"\n', encoding="utf-8")
    empty = tmp_path / "empty" / "claimcheck.toml"
    empty.parent.mkdir()
    empty.write_text("", encoding="utf-8")

    assert load_config(empty, env={}).hf_endpoint == "https://huggingface.co"
    assert load_config(path, env={}).hf_endpoint == "https://hub.example.test"
    env = {"HF_ENDPOINT": "http://127.0.0.1:9"}
    assert load_config(path, env=env).hf_endpoint == "http://127.0.0.1:9"


def test_hf_token_comes_from_the_environment_only_and_is_never_dumped(tmp_path: Path) -> None:
    from claimcheck.errors import ConfigError

    path = tmp_path / "claimcheck.toml"
    path.write_text('hf_token = "hf_fromTheFile"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="hf_token") as refused:
        load_config(path, env={})  # a token in the file is refused, never read
    assert "hf_fromTheFile" not in str(refused.value)

    path.write_text("", encoding="utf-8")
    assert load_config(path, env={}).hf_token is None
    config = load_config(path, env={"HF_TOKEN": TOKEN})
    assert config.hf_token == TOKEN
    assert TOKEN not in repr(config)
    assert TOKEN not in config.model_dump_json()


def test_a_bad_hf_endpoint_is_named_by_its_variable(tmp_path: Path) -> None:
    from claimcheck.errors import ConfigError

    path = tmp_path / "claimcheck.toml"
    path.write_text("", encoding="utf-8")

    with pytest.raises(ConfigError, match="HF_ENDPOINT \\(environment\\)"):
        load_config(path, env={"HF_ENDPOINT": "not a url"})


# -- one commit of the commits API -------------------------------------------------------


def test_a_commit_of_the_commits_api() -> None:
    source = HubCard("model", "acme-ai", "tiny-chat-7b")
    item = {
        "id": "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c",
        "title": "Rewrite the Limitations section",
        "message": "Rewrite the Limitations section\n\nMore languages.",
        "authors": [{"user": "maintainer-b", "avatar": "x"}, {"user": "reviewer"}],
        "date": "2024-06-01T09:00:00.000Z",
    }

    assert hub_commit(item, ENDPOINT, source) == Blame(
        sha="0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c",
        date=dt.datetime(2024, 6, 1, 9, tzinfo=dt.UTC),
        author="maintainer-b, reviewer",
        title="Rewrite the Limitations section",
        url=f"{ENDPOINT}/acme-ai/tiny-chat-7b/commit/0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c",
    )
    assert hub_commit({"id": "abc"}, ENDPOINT, source) is None
    assert hub_commit({"id": "abc", "date": "yesterday"}, ENDPOINT, source) is None
    assert hub_commit(["not", "a", "commit"], ENDPOINT, source) is None


# -- history against the fake Hub --------------------------------------------------------


def holds(quote: str, body: bytes) -> bool:
    text = page_text(body.decode(), MediaType.CARD).casefold()
    return normalize_text(quote).casefold() in normalize_text(text)


def run_history(hub: FakeHub, step: object, token: str | None = None) -> object:
    async def go() -> object:
        async with Fetcher(FAST) as fetcher:
            history = HubHistory(fetcher, endpoint=hub.base_url, token=token)
            return await step(history)  # type: ignore[operator]

    return asyncio.run(go())


MODEL_CARD = HubCard("model", "acme-ai", "tiny-chat-7b")


def test_commits_follow_the_link_header_page_by_page(hub: FakeHub) -> None:
    history = publish(hub)

    listed = run_history(hub, lambda h: h.commits(MODEL_CARD))

    assert isinstance(listed, tuple)
    commits, complete = listed
    assert complete
    assert [c.sha for c in commits] == [c.sha for c in reversed(history.all)]
    pages = hub.requests_to(f"/api/models/{MODEL}/commits/main")
    assert [r.query.get("p") for r in pages] == [None, "1", "2"]  # two commits a page


def test_the_version_at_a_date_is_the_card_of_the_commit_in_force(hub: FakeHub) -> None:
    history = publish(hub)

    version = run_history(hub, lambda h: h.version_at(MODEL_CARD, at("2024-03-10", 23)))

    assert version == Version(
        date=history.evaluation.date,
        body=card(evaluation=True).encode(),
        origin=f"commit {history.evaluation.sha}",
    )
    # Pages are read back to the check date only: the third page is not needed.
    assert len(hub.requests_to(f"/api/models/{MODEL}/commits/")) == 2
    (raw,) = hub.requests_to(f"/{MODEL}/raw/")
    assert raw.path == f"/{MODEL}/raw/{history.evaluation.sha}/README.md"


def test_the_current_card_is_not_downloaded_again(hub: FakeHub) -> None:
    history = publish(hub)

    version = run_history(hub, lambda h: h.version_at(MODEL_CARD, at("2024-07-01"), current=True))

    assert version == Version(
        date=history.limitations.date, body=None, origin=f"commit {history.limitations.sha}"
    )
    assert hub.requests_to(f"/{MODEL}/raw/") == []


def test_before_the_first_commit_there_is_no_card(hub: FakeHub) -> None:
    publish(hub)

    assert run_history(hub, lambda h: h.version_at(MODEL_CARD, at("2023-12-01"))) is ABSENT


def test_a_commit_without_a_card_is_absent(hub: FakeHub) -> None:
    hub.commit("acme-ai/empty", None, title="Initial commit", date=at("2024-01-01"))
    source = HubCard("model", "acme-ai", "empty")

    assert run_history(hub, lambda h: h.version_at(source, at("2024-02-01"))) is ABSENT


def test_history_of_an_unknown_repository_is_unknown_not_absent(hub: FakeHub) -> None:
    source = HubCard("model", "acme-ai", "never-published")

    assert run_history(hub, lambda h: h.version_at(source, at("2024-02-01"))) is None


def test_blame_bisects_the_repository_commits_to_the_card_change(hub: FakeHub) -> None:
    history = publish(hub)
    since = history.initial.date  # the baseline: the first card

    found = run_history(
        hub, lambda h: h.blame(MODEL_CARD, since, lambda body: holds(LIMITS_BEFORE, body))
    )

    assert found == (
        Blame(
            sha=history.limitations.sha,
            date=history.limitations.date,
            author="maintainer-b",
            title="Rewrite the Limitations section",
            url=f"{hub.base_url}/{MODEL}/commit/{history.limitations.sha}",
        ),
        3,  # five commits since the baseline: three card reads, not five
    )
    assert len(hub.requests_to(f"/{MODEL}/raw/")) == 3


def test_blame_of_a_quote_that_still_holds_names_nobody(hub: FakeHub) -> None:
    history = publish(hub)

    found = run_history(
        hub, lambda h: h.blame(MODEL_CARD, history.initial.date, lambda b: holds(INTRO, b))
    )

    assert found == (None, 3)


def test_the_token_goes_to_the_endpoint_and_a_foreign_next_page_is_not_followed(
    hub: FakeHub,
) -> None:
    publish(hub)
    with FakeHub() as elsewhere:
        hub.link_base = elsewhere.base_url  # the next-page link points at another host

        listed = run_history(hub, lambda h: h.commits(MODEL_CARD), token=TOKEN)

        assert listed is None  # unknown, not a short history
        assert elsewhere.requests == []
    (first,) = hub.requests
    assert first.headers.get("authorization") == f"Bearer {TOKEN}"


def test_the_raw_card_is_answered_with_its_etag_then_304(hub: FakeHub) -> None:
    from claimcheck.net.fetch import Fetched, NotModified

    publish(hub)
    url = f"{hub.base_url}/{MODEL}/raw/main/README.md"
    head = card(limits=LIMITS_AFTER, evaluation=True).encode()

    async def go() -> tuple[object, object]:
        async with Fetcher(FAST) as fetcher:
            first = await fetcher.fetch(hub_request(url, endpoint=hub.base_url, token=None))
            etag = first.etag if isinstance(first, Fetched) else None
            again = hub_request(url, endpoint=hub.base_url, token=None, etag=etag)
            return first, await fetcher.fetch(again)

    first, second = asyncio.run(go())

    assert isinstance(first, Fetched)
    assert (first.body, first.etag) == (head, f'"{blob_sha(head)}"')
    assert first.content_type == "text/plain; charset=utf-8"
    assert isinstance(second, NotModified)
    assert [r.status for r in hub.requests] == [200, 304]
    assert hub.requests[1].headers["if-none-match"] == f'"{blob_sha(head)}"'


# -- front matter --------------------------------------------------------------------------


def test_a_model_card_front_matter_is_metadata() -> None:
    metadata, body = split_front_matter(card())

    assert metadata == {
        "license": "apache-2.0",
        "language": "- en",
        "pipeline_tag": "text-generation",
        "tags": "- chat\n- llama",
        "base_model": "acme-ai/tiny-base-7b",
    }
    assert body.startswith("\n# Tiny Chat 7B\n")
    assert card().endswith(body)


@pytest.mark.parametrize(
    ("text", "metadata", "body"),
    [
        ("---\n---\nBody\n", {}, "Body\n"),
        ("---\r\nlicense: mit\r\n---\r\nBody", {"license": "mit"}, "Body"),
        ("\ufeff---\nlicense: mit\n...\nBody", {"license": "mit"}, "Body"),
        ("---\nlicense: mit\n---", {"license": "mit"}, ""),
        (
            "---\nname: \"a # b\" # the name\nother: 'x'\nurl: https://example.org/a\n---\n",
            {"name": "a # b", "other": "x", "url": "https://example.org/a"},
            "",
        ),
        (
            "---\nmodel-index:\n  - name: tiny\n    results: []\n# a comment\nlicense: mit\n---\n",
            {"model-index": "- name: tiny\n  results: []", "license": "mit"},
            "",
        ),
        (
            "---\ndescription: |\n  First line.\n\n  Second line.\nlicense: mit\n---\n",
            {"description": "|\nFirst line.\n\nSecond line.", "license": "mit"},
            "",
        ),
        ("---\nlicense: mit\nlicense: apache-2.0\n---\n", {"license": "apache-2.0"}, ""),
    ],
    ids=["empty", "crlf", "bom-and-dots", "no-body", "quotes", "nested", "block", "twice"],
)
def test_front_matter_blocks(text: str, metadata: dict[str, str], body: str) -> None:
    assert split_front_matter(text) == (metadata, body)


@pytest.mark.parametrize(
    "text",
    [
        "# Title\n\n---\nlicense: mit\n---\n",  # not at the very start
        "---\nlicense: mit\nnever closed\n",
        "---\nlicense: mit\n",
        "---\nWelcome to the model.\n---\nBody\n",  # a rule over a setext heading
        " ---\nlicense: mit\n---\n",
        "----\nlicense: mit\n----\n",
        "",
    ],
)
def test_text_without_front_matter_is_all_body(text: str) -> None:
    assert split_front_matter(text) == (None, text)


def test_front_matter_is_text_on_github_and_metadata_on_a_card() -> None:
    """GitHub shows a README's front matter (as a table); the Hub shows a card's as tags."""
    body = "---\nlicense: apache-2.0\n---\n\n# Model\n\nIt chats.\n"
    assert "apache-2.0" in page_text(body, MediaType.MARKDOWN)
    assert "apache-2.0" not in page_text(body, MediaType.CARD)
    assert "It chats." in page_text(body, MediaType.CARD)
