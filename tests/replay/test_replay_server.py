"""The replay server behaves like the GitHub REST API (and like flaky web pages) over HTTP."""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import email.utils
import hashlib
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from support.replay_server import ReplayServer

LLAMA = "ggml-org/llama.cpp"
README = f"/repos/{LLAMA}/readme"
RAW = "application/vnd.github.raw+json"
QUANT_FEB = "2-bit, 3-bit, 4-bit, 5-bit, 6-bit and 8-bit integer quantization support"
QUANT_MAR = "1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization"
FEB_15 = dt.date(2024, 2, 15)
MAR_15 = dt.date(2024, 3, 15)


@pytest.fixture
def client(replay: ReplayServer) -> Iterator[httpx.Client]:
    """An httpx client aimed at the replay server; redirects are not followed."""
    with httpx.Client(base_url=replay.base_url, timeout=5) as http:
        yield http


def index(corpus_root: Path, folder: str = "ggml-org__llama.cpp") -> list[dict[str, object]]:
    """A corpus index.json, oldest entry first."""
    entries: list[dict[str, object]] = json.loads((corpus_root / folder / "index.json").read_text())
    return entries


def corpus_text(corpus_root: Path, name: str, folder: str = "ggml-org__llama.cpp") -> bytes:
    """The bytes of one corpus file."""
    return (corpus_root / folder / name).read_bytes()


# -- README as of a date ---------------------------------------------------------------


def test_readme_as_of_date_follows_the_quantization_bullet(
    replay: ReplayServer, client: httpx.Client, corpus_root: Path
) -> None:
    replay.as_of = FEB_15
    february = client.get(README, headers={"Accept": RAW})
    replay.as_of = MAR_15
    march = client.get(README, headers={"Accept": RAW})

    assert february.status_code == march.status_code == 200
    assert february.content == corpus_text(corpus_root, "2024-02-01.md")
    assert march.content == corpus_text(corpus_root, "2024-03-01.md")
    assert QUANT_FEB in february.text
    assert "1.5-bit" not in february.text
    assert QUANT_MAR in march.text
    assert QUANT_FEB not in march.text


def test_readme_defaults_to_the_head_entry(
    replay: ReplayServer, client: httpx.Client, corpus_root: Path
) -> None:
    head = index(corpus_root)[-1]
    assert head["kind"] == "head"

    answer = client.get(README)

    assert answer.json()["sha"] == head["blob_sha"]
    assert answer.headers["ETag"] == f'"{head["blob_sha"]}"'


def test_set_as_of_overrides_the_global_date_for_one_repo(
    replay: ReplayServer, client: httpx.Client
) -> None:
    replay.as_of = MAR_15
    replay.set_as_of(LLAMA, FEB_15)

    assert QUANT_FEB in client.get(README, headers={"Accept": RAW}).text
    replay.set_as_of(LLAMA, None)
    assert QUANT_MAR in client.get(README, headers={"Accept": RAW}).text


@pytest.mark.parametrize(
    ("repo", "as_of"),
    [
        pytest.param(LLAMA, dt.date(2023, 3, 1), id="before-first-entry"),
        pytest.param("NVIDIA/TensorRT-LLM", dt.date(2023, 10, 15), id="entry-with-file-null"),
    ],
)
def test_readme_missing_at_the_date_is_github_404(
    replay: ReplayServer, client: httpx.Client, repo: str, as_of: dt.date
) -> None:
    replay.as_of = as_of

    answer = client.get(f"/repos/{repo}/readme")

    assert answer.status_code == 404
    assert answer.headers["Content-Type"].startswith("application/json")
    assert answer.json()["message"] == "Not Found"
    assert answer.json()["documentation_url"].startswith("https://docs.github.com/")


def test_unknown_repo_is_404_and_names_are_case_insensitive(client: httpx.Client) -> None:
    assert client.get("/repos/nobody/nothing/readme").status_code == 404
    answer = client.get("/repos/GGML-ORG/LLAMA.CPP")
    assert answer.status_code == 200
    assert answer.json()["full_name"] == LLAMA
    assert answer.json()["default_branch"] == "master"


# -- media types -----------------------------------------------------------------------


@pytest.mark.parametrize("accept", [RAW, "application/vnd.github.raw"])
def test_raw_media_type_answers_the_bytes(
    replay: ReplayServer, client: httpx.Client, corpus_root: Path, accept: str
) -> None:
    replay.as_of = FEB_15

    answer = client.get(README, headers={"Accept": accept})

    assert answer.status_code == 200
    assert answer.headers["Content-Type"] == f"{accept}; charset=utf-8"
    assert answer.content == corpus_text(corpus_root, "2024-02-01.md")


def test_json_media_type_answers_githubs_content_object(
    replay: ReplayServer, client: httpx.Client, corpus_root: Path
) -> None:
    replay.as_of = FEB_15
    entry = index(corpus_root)[10]
    assert entry["date"] == "2024-02-01"

    answer = client.get(README, headers={"Accept": "application/vnd.github+json"})
    body = answer.json()

    assert answer.headers["Content-Type"] == "application/json; charset=utf-8"
    assert body["type"] == "file"
    assert body["encoding"] == "base64"
    assert body["name"] == body["path"] == "README.md"
    assert body["sha"] == entry["blob_sha"]
    assert body["size"] == entry["bytes"]
    assert body["html_url"] == f"https://github.com/{LLAMA}/blob/master/README.md"
    assert body["download_url"] == f"https://raw.githubusercontent.com/{LLAMA}/master/README.md"
    lines = body["content"].splitlines()
    assert all(len(line) <= 60 for line in lines)
    assert all(len(line) == 60 for line in lines[:-1])
    assert base64.b64decode(body["content"]) == corpus_text(corpus_root, "2024-02-01.md")


def test_contents_serves_the_readme_and_registered_files(
    replay: ReplayServer, client: httpx.Client
) -> None:
    replay.as_of = FEB_15
    replay.set_file(LLAMA, "LICENSE", "MIT License\n")

    readme = client.get(f"/repos/{LLAMA}/contents/README.md", headers={"Accept": RAW})
    license_raw = client.get(f"/repos/{LLAMA}/contents/LICENSE", headers={"Accept": RAW})
    license_json = client.get(f"/repos/{LLAMA}/contents/LICENSE").json()
    missing = client.get(f"/repos/{LLAMA}/contents/NOPE.md")

    assert QUANT_FEB in readme.text
    assert license_raw.text == "MIT License\n"
    assert base64.b64decode(license_json["content"]) == b"MIT License\n"
    # the git blob id of the file, as GitHub reports it
    assert license_json["sha"] == hashlib.sha1(b"blob 12\0MIT License\n").hexdigest()
    assert missing.status_code == 404
    assert missing.json()["message"] == "Not Found"


def test_set_file_readme_creates_a_repo_without_history(
    replay: ReplayServer, client: httpx.Client
) -> None:
    replay.set_file("acme/widget", "README.md", "# Widget\n\nIt spins.\n")

    answer = client.get("/repos/acme/widget/readme", headers={"Accept": RAW})

    assert answer.text == "# Widget\n\nIt spins.\n"
    assert "acme/widget" in replay.repos
    assert client.get("/repos/acme/widget/commits").json() == []


# -- conditional requests and rate limit -----------------------------------------------


def test_etag_and_last_modified_then_304_without_spending_budget(
    replay: ReplayServer, client: httpx.Client, corpus_root: Path
) -> None:
    replay.as_of = FEB_15
    entry = index(corpus_root)[10]
    first = client.get(README, headers={"Accept": RAW})
    etag = first.headers["ETag"]
    remaining = int(first.headers["X-RateLimit-Remaining"])

    again = client.get(README, headers={"Accept": RAW, "If-None-Match": etag})
    since = client.get(README, headers={"If-Modified-Since": first.headers["Last-Modified"]})

    assert etag == f'"{entry["blob_sha"]}"'
    modified = email.utils.parsedate_to_datetime(first.headers["Last-Modified"])
    assert modified == dt.datetime.fromisoformat(str(entry["commit_date"]))
    assert again.status_code == since.status_code == 304
    assert again.content == b""
    assert again.headers["ETag"] == etag
    assert int(again.headers["X-RateLimit-Remaining"]) == remaining
    assert replay.rate_limit_remaining == remaining


def test_stale_etag_gets_the_new_text(replay: ReplayServer, client: httpx.Client) -> None:
    replay.as_of = FEB_15
    etag = client.get(README).headers["ETag"]
    replay.as_of = MAR_15

    answer = client.get(README, headers={"Accept": RAW, "If-None-Match": etag})

    assert answer.status_code == 200
    assert answer.headers["ETag"] != etag
    assert QUANT_MAR in answer.text


def test_every_api_answer_spends_budget_and_carries_rate_headers(
    replay: ReplayServer, client: httpx.Client
) -> None:
    replay.rate_limit_remaining = 10

    ok = client.get(README)
    missing = client.get("/repos/nobody/nothing/readme")

    assert ok.headers["X-RateLimit-Limit"] == "5000"
    assert ok.headers["X-RateLimit-Remaining"] == "9"
    assert missing.headers["X-RateLimit-Remaining"] == "8"
    assert int(ok.headers["X-RateLimit-Reset"]) > time.time()


def test_rate_limit_exhausted_is_403(replay: ReplayServer, client: httpx.Client) -> None:
    replay.rate_limit_remaining = 1

    last = client.get(README)
    refused = client.get(README)
    refused_again = client.get(README, headers={"Authorization": "Bearer t0ken"})

    assert last.status_code == 200
    assert last.headers["X-RateLimit-Remaining"] == "0"
    assert refused.status_code == refused_again.status_code == 403
    assert refused.json()["message"].startswith("API rate limit exceeded")
    assert refused.headers["X-RateLimit-Remaining"] == "0"
    assert int(refused.headers["X-RateLimit-Reset"]) > time.time()
    assert client.get("/rate_limit").json()["rate"]["remaining"] == 0


def test_304_is_served_even_with_no_budget_left(replay: ReplayServer, client: httpx.Client) -> None:
    etag = client.get(README).headers["ETag"]
    replay.rate_limit_remaining = 0

    assert client.get(README, headers={"If-None-Match": etag}).status_code == 304
    assert client.get(README).status_code == 403


# -- refs ------------------------------------------------------------------------------


def test_ref_sha_serves_that_commits_readme(
    replay: ReplayServer, client: httpx.Client, corpus_root: Path
) -> None:
    entry = index(corpus_root)[11]
    assert entry["date"] == "2024-03-01"
    sha = str(entry["commit"])
    replay.as_of = FEB_15

    full = client.get(README, params={"ref": sha}, headers={"Accept": RAW})
    short = client.get(f"/repos/{LLAMA}/contents/README.md", params={"ref": sha[:7]})
    branch = client.get(README, params={"ref": "master"}, headers={"Accept": RAW})

    assert full.content == corpus_text(corpus_root, "2024-03-01.md")
    assert short.json()["sha"] == entry["blob_sha"]
    assert QUANT_FEB in branch.text  # the branch follows as_of


@pytest.mark.parametrize("ref", ["no-such-branch", "0000000000000000000000000000000000000000"])
def test_unknown_ref_is_404_no_commit_found(client: httpx.Client, ref: str) -> None:
    answer = client.get(README, params={"ref": ref})

    assert answer.status_code == 404
    assert answer.json()["message"] == f"No commit found for the ref {ref}"


# -- commits ---------------------------------------------------------------------------


def collect_commits(client: httpx.Client, url: str, params: dict[str, str]) -> list[dict[str, Any]]:
    """Follow `rel="next"` links to the end, checking each page's Link header."""
    pages: list[dict[str, Any]] = []
    answer = client.get(url, params=params)
    while True:
        assert answer.status_code == 200
        pages.extend(answer.json())
        if "next" not in answer.links:
            return pages
        answer = client.get(answer.links["next"]["url"])


def test_commits_are_distinct_newest_first_and_paginated(
    replay: ReplayServer, client: httpx.Client, corpus_root: Path
) -> None:
    entries = index(corpus_root)
    url = f"/repos/{LLAMA}/commits"
    params = {"path": "README.md", "per_page": "10"}

    first = client.get(url, params=params)
    commits = collect_commits(client, url, params)

    distinct = {e["commit"] for e in entries}
    assert len(commits) == len(distinct) == 42
    assert [c["sha"] for c in commits] == [e.commit for e in replay.commits_of(LLAMA)]
    dates = [c["commit"]["committer"]["date"] for c in commits]
    assert dates == sorted(dates, reverse=True)
    assert all(d.endswith("Z") for d in dates)
    assert commits[0]["sha"] == entries[-1]["commit"]
    assert commits[0]["html_url"] == f"https://github.com/{LLAMA}/commit/{commits[0]['sha']}"
    assert commits[0]["commit"]["author"]["name"]
    assert commits[0]["author"]["login"]
    assert len(first.json()) == 10
    assert first.links["next"]["url"].endswith("page=2")
    assert "page=5" in first.links["last"]["url"]
    assert "per_page=10" in first.links["next"]["url"]
    assert "path=README.md" in first.links["next"]["url"]
    middle = client.get(url, params={**params, "page": "3"})
    assert set(middle.links) == {"prev", "next", "last", "first"}
    last = client.get(url, params={**params, "page": "5"})
    assert len(last.json()) == 2
    assert set(last.links) == {"prev", "first"}


def test_commits_since_until_and_as_of(replay: ReplayServer, client: httpx.Client) -> None:
    url = f"/repos/{LLAMA}/commits"
    window = {"since": "2024-01-15T00:00:00Z", "until": "2024-04-15T00:00:00Z"}

    found = client.get(url, params=window).json()
    replay.as_of = FEB_15
    before = client.get(url).json()

    assert [c["commit"]["committer"]["date"][:10] for c in found] == [
        "2024-03-31",
        "2024-02-29",
        "2024-01-31",
    ]
    assert "link" not in client.get(url, params=window).headers
    assert len(before) == 11  # 2023-04 .. 2024-02: later commits do not exist yet
    assert client.get(url, params={"path": "LICENSE"}).json() == []


# -- moved repositories ----------------------------------------------------------------


def test_moved_repo_answers_301_to_repositories_id(
    replay: ReplayServer, client: httpx.Client
) -> None:
    replay.move_repo("ggerganov/llama.cpp", LLAMA)
    replay.as_of = FEB_15
    repo_id = client.get(f"/repos/{LLAMA}").json()["id"]

    moved = client.get("/repos/ggerganov/llama.cpp/readme", params={"ref": "master"})
    followed = client.get(
        "/repos/ggerganov/llama.cpp/readme", headers={"Accept": RAW}, follow_redirects=True
    )
    metadata = client.get(f"/repositories/{repo_id}")

    location = f"{replay.base_url}/repositories/{repo_id}/readme?ref=master"
    assert moved.status_code == 301
    assert moved.headers["Location"] == location
    assert moved.json()["message"] == "Moved Permanently"
    assert moved.json()["url"] == location
    assert followed.status_code == 200
    assert QUANT_FEB in followed.text
    assert [r.status_code for r in followed.history] == [301]
    assert metadata.json()["full_name"] == LLAMA


def test_moving_a_registered_repo_keeps_its_id(replay: ReplayServer, client: httpx.Client) -> None:
    replay.set_file("acme/old", "README.md", "hello\n")
    old_id = client.get("/repos/acme/old").json()["id"]

    replay.move_repo("acme/old", "acme/new")

    assert client.get("/repos/acme/new").json()["id"] == old_id
    assert client.get("/repos/acme/old").status_code == 301
    answer = client.get("/repos/acme/old/readme", headers={"Accept": RAW}, follow_redirects=True)
    assert answer.text == "hello\n"


# -- plain pages -----------------------------------------------------------------------


def test_page_with_etag_and_304(replay: ReplayServer, client: httpx.Client) -> None:
    replay.set_page("/docs/page.html", "<p>Hello</p>")
    replay.set_page("/plain.txt", "text", content_type="text/plain", headers={"ETag": '"v1"'})

    page = client.get("/docs/page.html?utm=1")
    cached = client.get("/docs/page.html", headers={"If-None-Match": page.headers["ETag"]})
    plain = client.get("/plain.txt", headers={"If-None-Match": 'W/"v0", "v1"'})

    assert page.status_code == 200
    assert page.text == "<p>Hello</p>"
    assert page.headers["Content-Type"] == "text/html; charset=utf-8"
    assert "X-RateLimit-Remaining" not in page.headers
    assert cached.status_code == plain.status_code == 304
    assert client.get("/not-registered").status_code == 404


def test_page_with_status_410(replay: ReplayServer, client: httpx.Client) -> None:
    replay.set_page("/gone", "gone", status=410)

    assert client.get("/gone").status_code == 410


def test_redirects_relative_and_absolute(replay: ReplayServer, client: httpx.Client) -> None:
    replay.set_page("/new", "new home")
    replay.redirect("/old", "/new")
    replay.redirect("/elsewhere", "https://example.com/x", status=302)

    moved = client.get("/old")
    followed = client.get("/old", follow_redirects=True)

    assert moved.status_code == 301
    assert moved.headers["Location"] == f"{replay.base_url}/new"
    assert followed.text == "new home"
    assert client.get("/elsewhere").headers["Location"] == "https://example.com/x"


def test_fail_then_recover(replay: ReplayServer, client: httpx.Client) -> None:
    replay.set_page("/flaky", "finally")
    replay.fail("/flaky", status=503, times=2, headers={"Retry-After": "0"})

    answers = [client.get("/flaky") for _ in range(3)]

    assert [a.status_code for a in answers] == [503, 503, 200]
    assert answers[0].headers["Retry-After"] == "0"
    assert answers[2].text == "finally"


def test_fail_forever_and_on_api_paths(replay: ReplayServer, client: httpx.Client) -> None:
    replay.fail(README, status=502, times=None)

    assert {client.get(README).status_code for _ in range(4)} == {502}
    assert client.get(f"/repos/{LLAMA}").status_code == 200


def test_drop_closes_the_connection_without_an_answer(
    replay: ReplayServer, client: httpx.Client
) -> None:
    replay.set_page("/drop", "after the drop")
    replay.drop("/drop", times=1)

    with pytest.raises(httpx.RemoteProtocolError):
        client.get("/drop")
    assert client.get("/drop").text == "after the drop"
    assert [r.status for r in replay.requests_to("/drop")] == [0, 200]


def test_head_request_has_headers_and_no_body(client: httpx.Client) -> None:
    answer = client.head(README)

    assert answer.status_code == 200
    assert answer.content == b""
    assert int(answer.headers["Content-Length"]) > 0


# -- request recording -----------------------------------------------------------------


def test_requests_are_recorded_with_query_headers_and_status(
    replay: ReplayServer, client: httpx.Client
) -> None:
    client.get(README, params={"ref": "master"}, headers={"Authorization": "Bearer s3cret"})
    client.get("/repos/nobody/nothing/readme")

    first, second = replay.requests
    assert (first.method, first.path, first.query) == ("GET", README, {"ref": "master"})
    assert first.headers["authorization"] == "Bearer s3cret"
    assert first.status == 200
    assert "authorization" not in second.headers
    assert second.status == 404
    replay.clear_requests()
    assert replay.requests == []


def test_concurrent_requests_are_all_answered(replay: ReplayServer) -> None:
    async def fetch_all() -> list[int]:
        async with httpx.AsyncClient(base_url=replay.base_url, timeout=5) as http:
            answers = await asyncio.gather(*(http.get(README) for _ in range(20)))
        return [a.status_code for a in answers]

    assert asyncio.run(fetch_all()) == [200] * 20
    assert len(replay.requests) == 20
    assert replay.rate_limit_remaining == 5000 - 20


def test_stop_closes_the_port(corpus_root: Path) -> None:
    with ReplayServer(corpus_root) as server:
        url = server.url("/rate_limit")
        assert httpx.get(url).status_code == 200

    with pytest.raises(httpx.ConnectError):
        httpx.get(url)


# -- the network guard -----------------------------------------------------------------


def test_guard_blocks_create_connection_fast() -> None:
    started = time.monotonic()

    with pytest.raises(OSError, match="network disabled in tests"):
        socket.create_connection(("192.0.2.1", 80), timeout=30)

    assert time.monotonic() - started < 1


@pytest.mark.parametrize(
    "address",
    [("192.0.2.1", 80), ("8.8.8.8", 53), ("2001:db8::1", 80), ("example.com", 443)],
    ids=["test-net", "public-v4", "public-v6", "hostname"],
)
def test_guard_blocks_connect_and_connect_ex(address: tuple[str, int]) -> None:
    family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
    try:
        sock = socket.socket(family, socket.SOCK_STREAM)
    except OSError:
        pytest.skip("no IPv6 sockets on this machine")
    with sock:
        with pytest.raises(OSError, match="network disabled in tests"):
            sock.connect(address)
        with pytest.raises(OSError, match="network disabled in tests"):
            sock.connect_ex(address)


def test_guard_blocks_name_lookups_and_httpx() -> None:
    with pytest.raises(OSError, match="network disabled in tests"):
        socket.getaddrinfo("example.com", 443)
    with pytest.raises(httpx.ConnectError, match="network disabled in tests"):
        httpx.get("https://example.com/", timeout=30)


def test_guard_blocks_async_httpx() -> None:
    async def fetch() -> None:
        async with httpx.AsyncClient(timeout=30) as http:
            await http.get("https://example.com/")

    with pytest.raises(httpx.ConnectError, match="network disabled in tests"):
        asyncio.run(fetch())


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "127.0.0.2"])
def test_guard_lets_loopback_through(host: str) -> None:
    with socket.socket() as listener:
        try:
            listener.bind(("127.0.0.1" if host == "localhost" else host, 0))
        except OSError:
            pytest.skip(f"cannot listen on {host} here")
        listener.listen()
        port = listener.getsockname()[1]
        with socket.create_connection((host, port), timeout=5):
            pass


def test_guard_lets_httpx_reach_the_replay_server(replay: ReplayServer) -> None:
    async def fetch() -> int:
        async with httpx.AsyncClient(timeout=5) as http:
            return (await http.get(replay.url(README))).status_code

    assert httpx.get(replay.url(README), timeout=5).status_code == 200
    assert asyncio.run(fetch()) == 200
    with httpx.Client(base_url=f"http://localhost:{replay.port}") as http:
        assert http.get(README).status_code == 200
