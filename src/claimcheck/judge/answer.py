"""The answer gate's values: a fetched answer, what it should be, and the gate's finding
(a new version of the source, or a suspect answer and why), with the answer as each of the
gate's checks weighs it (`judge.plausible`, `judge.looks`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from claimcheck.judge.walls import MOST_VISIBLE, WallForm, wall_form_of
from claimcheck.models import Ending, MediaType


class Expect(StrEnum):
    """What kind of answer a request should get back."""

    PAGE = "page"  # a web page: HTML, Markdown or plain text
    GITHUB_RAW = "github-raw"  # a file through GitHub's API, raw media type


class Suspicion(StrEnum):
    """Why an answer is not a new version; the reason's words go with it."""

    STATUS = "status"
    INCOMPLETE = "incomplete"
    MEDIA_TYPE = "media-type"
    EMPTY = "empty"
    BINARY = "binary"
    JSON_ERROR = "json-error"
    RATE_LIMIT = "rate-limit"
    LOGIN_REDIRECT = "login-redirect"
    CHALLENGE = "challenge"
    DENIED = "denied"
    LOGIN = "login"
    CONSENT = "consent"
    ERROR_PAGE = "error-page"
    CUT_SHORT = "cut-short"
    NO_TEXT = "no-text"
    COLLAPSE = "collapse"
    UNREADABLE = "unreadable"  # a PDF that cannot be read (`judge.pdf_answer`)


@dataclass(frozen=True)
class Answer:
    """A fetched answer as the gate sees it. `headers` has lower-case names."""

    status: int
    headers: Mapping[str, str]
    body: bytes
    url: str
    final_url: str
    ending: Ending = Ending.TOLD
    """How the body's end is known (`models.Ending`)."""

    @property
    def content_type(self) -> str | None:
        """The Content-Type header, if any."""
        return self.headers.get("content-type")


@dataclass(frozen=True)
class Previous:
    """The stored version the answer would replace: its body as text and its visible text.

    The body, not only the size, because a marker the good page itself carries (a
    Cloudflare docs page saying "Just a moment…") is no sign of a challenge, and a
    body that is exactly the stored one's beginning is a cut, not an edit.
    """

    body: str
    text: str


@dataclass(frozen=True)
class NewVersion:
    """The answer is a plausible new version; `text` is its body decoded (store as UTF-8)."""

    text: str


@dataclass(frozen=True)
class Suspect:
    """The answer is not the page: never stored, never judged; `reason` says why."""

    kind: Suspicion
    reason: str


Plausibility = NewVersion | Suspect
VisibleText = Callable[[str, MediaType], str]
"""A text's visible text, one unit a line (`judge.verdict.page_text`)."""


@dataclass(frozen=True)
class Weighed:
    """An answer as each check weighs it: the answer and its decoded text, its media
    type, the last good version, what it should be in words ("the README"), and how to
    read a text's visible text."""

    answer: Answer
    text: str
    media: MediaType
    previous: Previous | None
    what: str
    read: VisibleText

    @functools.cached_property
    def visible(self) -> str:
        """The text a reader sees (read once in the run: see `judge_answer`), asked for
        once however many checks weigh it."""
        return self.read(self.text, self.media)

    @functools.cached_property
    def wall_form(self) -> WallForm | None:
        """The sign-in, consent or challenge form on the answer, if any (`judge.walls`);
        not looked for in a page with too much text to be one and little else."""
        if len(self.visible) >= MOST_VISIBLE:
            return None
        return wall_form_of(self.text, self.media)

    @functools.cached_property
    def before(self) -> str:
        """The last good version's body in lower case: what a marker must be new against."""
        return self.previous.body.lower() if self.previous is not None else ""


def clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def suspect(kind: Suspicion, reason: str) -> Suspect:
    return Suspect(kind=kind, reason=reason)
