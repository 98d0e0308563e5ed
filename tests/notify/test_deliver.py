"""Sending through Apprise: a failure is said by counts, never by a URL, and Apprise's
own log (which names the URLs it fails on) reaches no handler while it sends."""

from __future__ import annotations

import logging

import pytest

from claimcheck.notify.deliver import DeliveryError, send_apprise
from support.notify_server import notify_inbox

SECRET = "xoxb-s3cret"


def test_a_message_reaches_every_url_as_markdown() -> None:
    with notify_inbox() as inbox:
        send_apprise(
            [inbox.url("a"), inbox.url(f"b/{SECRET}")],
            "claimcheck: 1 recovered",
            "**x**",
            "recovered",
        )
        (a,) = inbox.messages("a")
        (b,) = inbox.messages(f"b/{SECRET}")
    assert a == b
    assert a["title"] == "claimcheck: 1 recovered"
    assert a["message"] == "**x**"
    assert a["type"] == "success"


def test_a_failing_url_is_counted_not_named_and_apprise_logs_nowhere(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    names = ("apprise", "urllib3", "requests")
    before = [(logging.getLogger(n).handlers[:], logging.getLogger(n).propagate) for n in names]
    with notify_inbox() as inbox:
        inbox.failing.add(f"/b/{SECRET}")
        with pytest.raises(DeliveryError) as raised:
            send_apprise([inbox.url("a"), inbox.url(f"b/{SECRET}")], "t", "body", "stale")
        assert len(inbox.messages("a")) == 1
    assert str(raised.value) == (
        "1 of its 2 URLs did not take the message (refused, failed or not reached)"
    )
    assert SECRET not in caplog.text  # urllib3 logs each request's path at DEBUG
    assert [r for r in caplog.records if r.name.startswith("apprise")] == []
    after = [(logging.getLogger(n).handlers, logging.getLogger(n).propagate) for n in names]
    assert after == before, "the loggers are left as they were"


@pytest.mark.parametrize(
    "url",
    [f"nosuchscheme://{SECRET}@example.org", f"json://{SECRET}@"],
    ids=["unknown-scheme", "no-host"],
)
def test_a_url_apprise_cannot_use_is_numbered_not_shown(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with pytest.raises(DeliveryError) as raised:
        send_apprise(["json://127.0.0.1:9/ok", url], "t", "body", "stale")
    assert str(raised.value) == (
        "its URL number 2 of 2 is not one Apprise can use (an unknown scheme, or a malformed URL)"
    )
    assert SECRET not in caplog.text
