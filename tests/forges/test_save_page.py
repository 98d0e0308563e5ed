"""Save Page Now's client on answers a live archive gives rarely: a redirect (never
followed: the keys stay on the archive's host), a long Retry-After, garbage."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

import httpx

from claimcheck.forges.save_page import Captured, NotCaptured, SavePageNow

SOURCE = "https://docs.example.org/guide.html"


async def public(host: str, port: int) -> Sequence[str]:
    return ["93.184.215.14"]


def capture(
    answer: Callable[[httpx.Request], httpx.Response],
) -> tuple[object, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answer(request)

    async def go() -> object:
        async with httpx.AsyncClient(
            transport=httpx.MockTransport(handler), follow_redirects=False
        ) as client:
            spn = SavePageNow(client, "https://archive.org", "a:b", resolver=public, poll_seconds=0)
            return await spn.capture(SOURCE)

    return asyncio.run(go()), seen


def test_a_redirect_is_not_followed() -> None:
    made, seen = capture(
        lambda r: httpx.Response(302, headers={"Location": "https://elsewhere.example/save"})
    )
    assert isinstance(made, NotCaptured)
    assert made.failed
    assert made.reason == "the Save Page Now API answered HTTP 302"
    assert [str(r.url) for r in seen] == ["https://web.archive.org/save"]


def test_a_long_retry_after_ends_the_capture_without_waiting() -> None:
    made, seen = capture(lambda r: httpx.Response(429, headers={"Retry-After": "3600"}))
    assert isinstance(made, NotCaptured)
    assert made.reason == "the Save Page Now API is busy (HTTP 429): asked again next time"
    assert len(seen) == 1


def test_garbage_is_no_capture() -> None:
    made, _ = capture(lambda r: httpx.Response(200, text="<html>Sign in</html>"))
    assert isinstance(made, NotCaptured)
    assert made.reason == "the Save Page Now API answered no JSON object"


def test_a_success_links_the_url_sent_not_the_answer_s() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(200, json={"url": SOURCE, "job_id": "spn2-1"})
        return httpx.Response(
            200,
            json={
                "status": "success",
                "timestamp": "20261206101500",
                "original_url": "javascript:alert(1)",
            },
        )

    made, _ = capture(answer)
    assert isinstance(made, Captured)
    assert made.copy.url == f"https://web.archive.org/web/20261206101500/{SOURCE}"
