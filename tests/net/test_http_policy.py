"""The one HTTP policy: retry waits, rate limits and pagination, as plain values."""

from __future__ import annotations

import random

import pytest

from claimcheck.net.http_policy import (
    ForeignPageError,
    RetryPolicy,
    link_targets,
    next_page_url,
    retry_after_seconds,
    retry_delay,
)

NOW = 1_700_000_000.0
POLICY = RetryPolicy(retries=3, backoff=1.0, max_backoff=8.0, max_wait=120.0)


def delay(status: int, headers: dict[str, str], attempt: int = 1, **kw: object) -> float | None:
    rng = random.Random(7)
    policy = kw.pop("policy", POLICY)
    assert isinstance(policy, RetryPolicy)
    message = str(kw.pop("message", ""))
    return retry_delay(policy, status, headers, attempt, now=NOW, rng=rng, message=message)


@pytest.mark.parametrize(
    ("status", "headers", "expected"),
    [
        (429, {"retry-after": "7"}, 7.0),
        (503, {"retry-after": "7"}, 7.0),
        (403, {"retry-after": "7"}, 7.0),
        (403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW + 60))}, 60.0),
        (429, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW - 5))}, 0.0),
        (404, {}, None),
        (403, {}, None),
        (410, {"retry-after": "7"}, None),
        (200, {}, None),
    ],
    ids=[
        "429-retry-after",
        "503-retry-after",
        "403-retry-after",
        "spent-quota-waits-for-reset",
        "reset-already-passed",
        "404-is-final",
        "plain-403-is-final",
        "retry-after-ignored-on-410",
        "success",
    ],
)
def test_retry_delay(status: int, headers: dict[str, str], expected: float | None) -> None:
    assert delay(status, headers) == expected


def test_a_writer_waits_a_margin_past_the_reset() -> None:
    margin = RetryPolicy(reset_margin=1.0)
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW + 30))}
    assert delay(403, headers, policy=margin) == 31.0


def test_githubs_secondary_limit_backs_off_from_a_minute_doubling() -> None:
    message = "You have exceeded a secondary rate limit."
    assert [delay(403, {}, n, message=message) for n in (1, 2, 3)] == [60.0, 120.0, 240.0]


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
def test_transient_statuses_back_off_with_full_jitter_under_the_cap(status: int) -> None:
    waits = [delay(status, {}, attempt) for attempt in range(1, 8)]
    ceilings = [min(8.0, 2.0 ** (n - 1)) for n in range(1, 8)]
    assert all(w is not None and 0.0 <= w <= c for w, c in zip(waits, ceilings, strict=True))


def test_backoff_is_jittered_not_fixed() -> None:
    rng = random.Random(1)
    assert len({POLICY.backoff_delay(4, rng) for _ in range(20)}) > 1


def test_may_retry_counts_sends_after_the_first() -> None:
    assert [POLICY.may_retry(n) for n in (1, 3, 4)] == [True, True, False]


@pytest.mark.parametrize(
    ("value", "expected"),
    [("12", 12.0), (" 0 ", 0.0), ("Tue, 14 Nov 2023 22:15:00 GMT", 100.0), ("soon", None)],
    ids=["seconds", "zero", "http-date", "garbled"],
)
def test_retry_after_seconds(value: str, expected: float | None) -> None:
    assert retry_after_seconds(value, NOW) == expected


def test_link_header_targets_by_relation() -> None:
    header = (
        '<https://api.test/x?page=2>; rel="next", <https://api.test/x?page=9>; rel="last",'
        " </x?page=1>; rel=first"
    )
    assert link_targets(header, "https://api.test/x") == {
        "next": "https://api.test/x?page=2",
        "last": "https://api.test/x?page=9",
        "first": "https://api.test/x?page=1",
    }


def test_a_link_with_several_relations_counts_for_each() -> None:
    assert link_targets('<https://a.test/2>; rel="next last"')["last"] == "https://a.test/2"


def test_next_page_stays_on_the_host_asked() -> None:
    header = '<https://api.test/x?page=2>; rel="next"'
    assert next_page_url(header, "https://api.test/x") == "https://api.test/x?page=2"
    assert next_page_url(None, "https://api.test/x") is None
    assert next_page_url('<https://api.test/x?page=9>; rel="last"', "https://api.test/x") is None


@pytest.mark.parametrize(
    "target",
    ["https://evil.test/x?page=2", "http://api.test/x?page=2", "https://api.test:8443/x"],
    ids=["other-host", "downgraded-scheme", "other-port"],
)
def test_next_page_elsewhere_is_refused(target: str) -> None:
    with pytest.raises(ForeignPageError):
        next_page_url(f'<{target}>; rel="next"', "https://api.test/x")
