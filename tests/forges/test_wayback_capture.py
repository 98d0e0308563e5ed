"""The last capture of a gone source, read from the Wayback Machine's CDX answer: only
a well-formed row not after the day the source was last seen counts; anything else is
no suggestion."""

from __future__ import annotations

import datetime as dt

import pytest

from claimcheck.forges.wayback import capture_of, cdx_base

SOURCE = "https://docs.example.org/serving"
HEADER = ["timestamp", "original"]
ALIVE = dt.datetime(2024, 3, 5, tzinfo=dt.UTC)
MAR_1 = dt.datetime(2024, 3, 1, 9, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("answer", "before", "expected"),
    [
        pytest.param(
            [HEADER, ["20240110120000", SOURCE], ["20240301090000", SOURCE]],
            ALIVE,
            (MAR_1, SOURCE),
            id="the-last-of-several",
        ),
        pytest.param(
            [HEADER, ["20240301090000", SOURCE], ["20240110120000", SOURCE]],
            ALIVE,
            (MAR_1, SOURCE),
            id="the-last-in-any-order",
        ),
        pytest.param(
            [HEADER, ["20240301090000", SOURCE], ["20240310000000", SOURCE]],
            ALIVE,
            (MAR_1, SOURCE),
            id="none-after-it-went",
        ),
        pytest.param(
            [HEADER, ["20240310000000", SOURCE]],
            ALIVE,
            None,
            id="only-after-it-went",
        ),
        pytest.param([["20240301090000", SOURCE]], None, (MAR_1, SOURCE), id="no-header-any-date"),
        pytest.param([], ALIVE, None, id="no-capture"),
        pytest.param([HEADER], ALIVE, None, id="a-header-alone"),
        pytest.param(None, ALIVE, None, id="not-json"),
        pytest.param({"error": "x"}, ALIVE, None, id="an-object"),
        pytest.param(
            [HEADER, ["yesterday", SOURCE], ["20240301", SOURCE], [20240301090000, SOURCE]],
            ALIVE,
            None,
            id="bad-timestamps",
        ),
        pytest.param(
            [HEADER, ["20240301090000"], ["20240301090000", ""], "row", ["20240301090000", 7]],
            ALIVE,
            None,
            id="bad-rows",
        ),
    ],
)
def test_the_last_capture_before_the_source_went(
    answer: object, before: dt.datetime | None, expected: tuple[dt.datetime, str] | None
) -> None:
    assert capture_of(answer, before) == expected


@pytest.mark.parametrize(
    ("configured", "expected"),
    [
        ("https://archive.org", "https://web.archive.org"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("https://wayback.example.com/prefix", "https://wayback.example.com/prefix"),
    ],
)
def test_the_cdx_api_of_the_internet_archive_is_on_its_web_host(
    configured: str, expected: str
) -> None:
    assert cdx_base(configured) == expected
