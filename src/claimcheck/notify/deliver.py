"""Sending one message to one route's Apprise URLs: the only module that imports Apprise.

It is imported only when a notification is sent (`cli.lazy.send_notification`), so
that `claimcheck --help` and a verify without notifications never load Apprise and
its hundred services. Nothing here ever shows a URL: an Apprise URL carries the
service's token (a Slack hook, a bot token, an SMTP password), so a failure is said
by counts alone, and Apprise's own log (which names the URLs it fails on) is kept off
the terminal while it sends.
"""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Iterator, Sequence

with warnings.catch_warnings():
    # Apprise's e-mail service imports `imghdr`, deprecated since Python 3.11: not ours
    # to fix, and a warning a desk can do nothing about.
    warnings.simplefilter("ignore", DeprecationWarning)
    import apprise

from claimcheck.errors import ClaimcheckError

TIMEOUT = 30.0
"""The most seconds one message may take to all of a route's URLs."""


class DeliveryError(ClaimcheckError):
    """A route's message did not reach every one of its URLs (never names a URL)."""

    hint = "check the route's URLs in its environment variable and the service's status"


_NOTIFY_TYPE = {
    "stale": apprise.NotifyType.FAILURE,
    "review": apprise.NotifyType.WARNING,
    "recovered": apprise.NotifyType.SUCCESS,
}


def send_apprise(urls: Sequence[str], title: str, body: str, kind: str) -> None:
    """Send a Markdown message to every URL; `DeliveryError` unless all took it.

    `kind` (`stale`, `review` or `recovered`: the worst transition in it) sets the
    message's type, which services show as its colour or icon.
    """
    with _quiet_apprise():
        box = apprise.Apprise()
        for number, url in enumerate(urls, 1):
            if not box.add(url):
                raise DeliveryError(
                    f"its URL number {number} of {len(urls)} is not one Apprise can use "
                    "(an unknown scheme, or a malformed URL)"
                )
        result = box.notify(
            body=body,
            title=title,
            body_format=apprise.NotifyFormat.MARKDOWN,
            notify_type=_NOTIFY_TYPE.get(kind, apprise.NotifyType.INFO),
            timeout=TIMEOUT,
        )
    if not result:
        failed = len(urls) - int(getattr(result, "success_count", 0))
        raise DeliveryError(
            f"{failed} of its {len(urls)} URL{'s' if len(urls) != 1 else ''} did not "
            "take the message (refused, failed or not reached)"
        )


_QUIET = ("apprise", "urllib3", "requests", "requests_oauthlib")
"""The loggers kept from every handler while a message is sent: Apprise's, and those of
the HTTP library under it, whose debug lines carry each URL's path (and so a hook's
token) to any handler an embedding program has set on the root logger."""


@contextlib.contextmanager
def _quiet_apprise() -> Iterator[None]:
    """Apprise's log off the terminal while it sends: its warnings name the URL (and so
    the token) of a service that failed, and Python prints a library's warnings to
    stderr when no handler is set. Its deprecation warnings too (see the import)."""
    loggers = [logging.getLogger(name) for name in _QUIET]
    saved = [(logger.handlers[:], logger.propagate) for logger in loggers]
    for logger in loggers:
        logger.handlers = [logging.NullHandler()]
        logger.propagate = False
    try:
        with warnings.catch_warnings():  # its services load on first use (see above)
            warnings.simplefilter("ignore", DeprecationWarning)
            yield
    finally:
        for logger, (handlers, propagate) in zip(loggers, saved, strict=True):
            logger.handlers, logger.propagate = handlers, propagate
