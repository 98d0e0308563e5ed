"""The plausibility gate: is a fetched answer a new version of the source, or not the page?

A server that does not give us the page often still answers 200: a bot challenge, a
login wall, a tiny error page, GitHub's rate-limit JSON, an empty or cut-short body.
Stored as a snapshot, such an answer makes a good claim `missing` and, once it is the
baseline, makes "never matched at check date" lie too. So every fetched body passes
this one gate before it is stored. It is pure (status, headers, bytes and the previous
stored version in; a value out), so every rule is a table test.

An answer is a new version only when all of these hold, checked in this order (the
first that fails is the reason):

1. the status is 200 (202 accepted, 203 a proxy's copy, 204 no content, 206 a part
   are not the page);
2. the body is complete: the Content-Length, when given and the body not encoded, is
   the body's length (httpx enforces it on the wire too; this is the second lock);
3. the media type fits: HTML, Markdown or plain text for a page (no Content-Type: the
   body decides); GitHub's raw media types, text or octet-stream for the API path;
   JSON, images, XML and the like are not a page or a README;
4. the text is not empty, not whitespace only, not binary (control characters), and
   not an error message in JSON (GitHub's `{"message": …}`, its rate-limit answer);
5. it is not a login page reached by a redirect to another host;
6. it does not look like a bot challenge, a login wall or an error page: telltale
   words in its title or its first lines ("Just a moment…", "Checking your browser",
   "Attention Required! | Cloudflare", "Access denied", "Sign in to continue",
   "404 Not Found", …), unless the previous version said the same; sign-in and
   challenge words count where a wall puts them (opening a line, or in a heading),
   not in the middle of a help page's sentence. Words other than "404"/"not found"
   make an error page only of a small page (under 1,500 visible characters): "Error
   handling" may head a real page. Nor is it a sign-in, consent or challenge wall
   (`judge.walls`): by its structure (a form about signing in, consent or proving
   to be human, whatever its fields' `type` says, and little else on the page),
   unless the previous version was the same kind of wall; or by its fall against the
   previous version (under half its visible text, under a quarter of it lines the
   previous version had) with a wall's words in its title or first lines, whatever
   the previous version said;
7. it is not cut short. A body whose end the server did not tell (an HTTP/1 body ended
   by a closed connection, as a dropped connection ends it too; see `net.ending`)
   is cut short when it is an HTML page that opens `<html>`/`<body>` and never closes
   it, when it is any part of the previous version's beginning, or, not HTML, when a
   second answer did not agree with it. A body whose end was told is cut short when it
   is an HTML page that never closes though the previous version did (HTML may leave
   both closing tags out, so a first fetch is not judged by this), or when it is the
   previous version's beginning with at least a fifth of it missing (a real edit may
   drop a last paragraph);
8. it has visible text, and it is not a drastic collapse to a stub: when the previous
   version had at least 500 characters of visible text, the new one keeps at least
   20% of them or at least 1,000 characters. Real READMEs do lose four fifths at once
   when their docs move out (three of 331 monthly steps of the README history
   corpus), but never down to a stub; a stub in place of a substantial page is far
   more often a broken answer, and if it is real a person confirms it (see
   `[fetch] suspect_limit`).
"""

from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import urlsplit

from claimcheck.judge.verdict import page_text
from claimcheck.judge.walls import (
    MOST_VISIBLE,
    Wall,
    WallForm,
    find_wall_form,
    looks_like_html,
    wall_words,
)
from claimcheck.models import MediaType
from claimcheck.net.decode import decode_body
from claimcheck.net.ending import Ending

COLLAPSE_MIN_PREVIOUS = 500
"""Visible characters the previous version needs before a collapse is judged at all."""
COLLAPSE_RATIO = 0.2
"""Below this share of the previous visible text, an answer is a collapse..."""
COLLAPSE_MAX_LEFT = 1000
"""...when it also has fewer visible characters than this left: a page that shrank to
a stub. The README history corpus has real drops to 13% (sglang, 2024-11), 16%
(TensorRT-LLM, 2024-05) and 19% (llama.cpp, 2026-08), all to more than 2,400
characters: docs moved out, not broken answers."""
CUT_RATIO = 0.8
"""A body that is the previous one's start and shorter than this share of it is cut short."""
HEADLINE_CHARS = 300
"""How much of the visible text (after the title) telltale words are looked for in."""
SMALL_PAGE = 1500
"""Visible characters under which a password field makes a page a login wall."""
BINARY_SHARE = 0.01
"""Share of control characters above which a body is binary, not text."""
ANNOUNCE_WORDS = 8
"""Words of a line short enough (a heading) that a wall's words in it announce a wall."""
ANNOUNCE_AFTER = 2
"""Words a line may have before a wall's words that open it ("Oops! Please sign in")."""
FELL_MIN_PREVIOUS = 200
"""Visible characters the previous version needs before a fall to a wall is judged."""
FELL_RATIO = 0.5
"""Below this share of the previous visible text an answer is much shorter..."""
FELL_SHARED = 0.25
"""...and it shares almost nothing with it when less than this share of its own text
is lines the previous version had."""

_PAGE_TYPES = frozenset(
    {"text/html", "application/xhtml+xml", "text/markdown", "text/x-markdown", "text/plain", ""}
)
_API_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown", ""})
_API_BINARY_OK = "application/octet-stream"
_STATUS_WORDS = {
    201: "created",
    202: "accepted, not ready yet",
    203: "a proxy's altered copy",
    204: "no content",
    205: "reset content",
    206: "only part of the page",
}

_CHALLENGE_ANYWHERE = (
    "cf-browser-verification",
    "window._cf_chl_opt",
    "cf-challenge-running",
    "<title>just a moment...</title>",
    "<title>just a moment…</title>",
    "attention required! | cloudflare",
    "checking your browser before accessing",
    "enable javascript and cookies to continue",
    "ddos protection by",
    "px-captcha",
    "captcha-delivery.com",
    "_incapsula_resource",
)
_CHALLENGE_HEADLINE = (
    "just a moment",
    "checking your browser",
    "checking if the site connection is secure",
    "verify you are human",
    "verifying you are human",
    "are you a robot",
    "one more step",
    "please complete the security check",
    "access to this page has been denied",
    "please wait while we verify",
    "security check",
    "captcha",
)
_DENIED_HEADLINE = ("access denied", "access forbidden", "request blocked", "you have been blocked")
_LOGIN_HEADLINE = (
    "sign in to continue",
    "log in to continue",
    "login to continue",
    "sign in to view",
    "log in to view",
    "please sign in",
    "please log in",
    "you must be logged in",
    "you need to sign in",
    "you need to log in",
    "authentication required",
    "login required",
)
_LOGIN_TITLE = re.compile(r"^\W*(sign[ -]?in|log[ -]?in|single sign-on)\b", re.IGNORECASE)
_LOGIN_PATH = re.compile(
    r"/(login|log-in|signin|sign-in|sign_in|sso|oauth2?|auth|authorize|session|saml|"
    r"idp|accounts?/login|cas/login)(/|$|\?|\.)",
    re.IGNORECASE,
)
_ERROR_HEADLINE = re.compile(
    r"^\W*(?:error\s*)?(?:[45]\d\d\b|error\b|not found\b|page not found|file not found|"
    r"forbidden\b|unauthori[sz]ed\b|bad request|bad gateway|bad credentials|"
    r"internal server error|service (?:temporarily )?unavailable|gateway time-?out|"
    r"site (?:is )?(?:under )?maintenance|temporarily unavailable|too many requests|"
    r"rate limit(?:ed)? exceeded|no such (?:file|page)|"
    # A proxy's own words when it could not reach the server (Envoy, as on Istio and
    # many gateways), sent as a 200 text/plain by some front ends.
    r"upstream (?:connect error|request timeout)|no healthy upstream)",
    re.IGNORECASE,
)
_NOT_FOUND_TITLE = re.compile(
    r"^\W*(?:error\s*)?(?:[45]\d\d\b|page not found\b|not found\b)", re.IGNORECASE
)
_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_PASSWORD_FIELD = re.compile(r"<input\b[^>]*\btype\s*=\s*[\"']?password", re.IGNORECASE)
_OPENS_HTML = re.compile(r"<(html|body)\b", re.IGNORECASE)
_CLOSES_HTML = re.compile(r"</(html|body)\s*>", re.IGNORECASE)
_WORD_RUN = re.compile(r"\w+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


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


@dataclass(frozen=True)
class Answer:
    """A fetched answer as the gate sees it. `headers` has lower-case names."""

    status: int
    headers: Mapping[str, str]
    body: bytes
    url: str
    final_url: str
    ending: Ending = Ending.TOLD
    """How the body's end is known (`net.ending`)."""

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
class _Weighed:
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
        return _wall_form_of(self.text, self.media)

    @functools.cached_property
    def before(self) -> str:
        """The last good version's body in lower case: what a marker must be new against."""
        return self.previous.body.lower() if self.previous is not None else ""


def answer_text(answer: Answer, media: MediaType) -> str:
    """The text of an answer's body, as the gate weighs it and the store keeps it."""
    return decode_body(answer.body, answer.content_type, html=media is MediaType.HTML)


def judge_answer(
    answer: Answer,
    expect: Expect,
    media: MediaType,
    previous: Previous | None = None,
    *,
    read: VisibleText = page_text,
) -> Plausibility:
    """A new version of the source, or the reason this answer is not one (see module doc).

    `read` gives a text's visible text: the store's, so that the body the gate reads
    is read once in the run, judged from the same reading (`Pages.of_text`).
    """
    what = "the README" if expect is Expect.GITHUB_RAW else "the page"
    framing = _framing(answer, what)
    if framing is not None:
        return framing
    # A login page on another host: said by its address, before its media type.
    landed = _redirect_problem(_Weighed(answer, "", media, previous, what, read))
    if landed is not None:
        return landed
    mime = (answer.content_type or "").split(";", 1)[0].strip().lower()
    if not _media_fits(mime, expect):
        return _suspect(Suspicion.MEDIA_TYPE, f"the answer is {_kind_of(mime)}, not {what}")
    text = answer_text(answer, media)
    weighed = _Weighed(answer, text, media, previous, what, read)
    for check in (_text_problem, _redirect_problem, _looks_problem, _cut_problem):
        found = check(weighed)
        if found is not None:
            return found
    visible = weighed.visible
    if not visible.strip():
        return _suspect(Suspicion.NO_TEXT, f"the answer has no visible text, unlike {what}")
    if previous is not None and _collapsed(len(visible), len(previous.text)):
        return _suspect(
            Suspicion.COLLAPSE,
            f"most of {what}'s text is gone at once ({len(visible)} of "
            f"{len(previous.text)} characters left): more likely a broken answer than an edit",
        )
    return NewVersion(text=text)


def _framing(answer: Answer, what: str) -> Suspect | None:
    """Status and length: an answer that is not a whole 200 is not a version."""
    if answer.status != 200:
        words = _STATUS_WORDS.get(answer.status, "not a plain 200")
        return _suspect(
            Suspicion.STATUS, f"the answer was HTTP {answer.status} ({words}), not {what}"
        )
    declared = answer.headers.get("content-length", "").strip()
    encoded = answer.headers.get("content-encoding", "identity").strip().lower()
    if declared.isdigit() and encoded in ("", "identity") and int(declared) != len(answer.body):
        return _suspect(
            Suspicion.INCOMPLETE,
            f"the answer was cut short: {len(answer.body)} of {declared} bytes",
        )
    return None


def _text_problem(weighed: _Weighed) -> Suspect | None:
    """Empty, whitespace, binary, or a JSON error message."""
    answer, text, previous, what = weighed.answer, weighed.text, weighed.previous, weighed.what
    if not answer.body:
        return _suspect(Suspicion.EMPTY, f"the answer was empty, not {what}")
    if not text.strip(" \t\r\n\f\v\ufeff\x00"):
        return _suspect(Suspicion.EMPTY, f"the answer was only whitespace, not {what}")
    controls = len(_CONTROL.findall(text))
    if controls > max(2, BINARY_SHARE * len(text)):
        return _suspect(Suspicion.BINARY, f"the answer is binary data, not {what}")
    message = _json_message(text)
    if message is not None:
        if "rate limit" in message.lower():
            return _suspect(
                Suspicion.RATE_LIMIT, f"the answer is GitHub's rate-limit message, not {what}"
            )
        return _suspect(
            Suspicion.JSON_ERROR,
            f"the answer is an error message in JSON ({_clip(message)!r}), not {what}",
        )
    if previous is not None and _is_json(text) and not _is_json(previous.body):
        return _suspect(Suspicion.JSON_ERROR, f"the answer is a JSON document, not {what}")
    return None


def _redirect_problem(weighed: _Weighed) -> Suspect | None:
    """A redirect to another host that lands on a login page."""
    answer, what = weighed.answer, weighed.what
    asked, landed = urlsplit(answer.url), urlsplit(answer.final_url)
    if (asked.hostname or "") == (landed.hostname or ""):
        return None
    on_login_path = _LOGIN_PATH.search(landed.path + ("?" if landed.query else "")) is not None
    form = weighed.wall_form
    login_form = form is not None and form.alone and form.kind is Wall.LOGIN
    if on_login_path or login_form or _login_words(weighed) is not None:
        return _suspect(
            Suspicion.LOGIN_REDIRECT,
            f"the request was redirected to a login page on {landed.hostname}, not {what}",
        )
    return None


def _looks_problem(weighed: _Weighed) -> Suspect | None:
    """A bot challenge, an access-denied page, a login wall or an error page."""
    text, media, what = weighed.text, weighed.media, weighed.what
    lower = text.lower()
    before = weighed.before
    shown = _headline(weighed)
    headline = shown.lower()
    if any(m in lower and m not in before for m in _CHALLENGE_ANYWHERE) or _announced(
        headline, _CHALLENGE_HEADLINE, before
    ):
        return _suspect(Suspicion.CHALLENGE, f"the answer looks like a bot challenge, not {what}")
    if _said(headline, _DENIED_HEADLINE, before):
        return _suspect(
            Suspicion.DENIED, f"the answer looks like an access-denied page, not {what}"
        )
    if _login_words(weighed) is not None:
        return _suspect(Suspicion.LOGIN, f"the answer looks like a login page, not {what}")
    wall = _wall_problem(weighed)
    if wall is not None:
        return wall
    title = _title(text) if media is MediaType.HTML else ""
    first = title or shown.strip()[:120]
    if first.lower() in before:  # the good page has the same title or first line
        return None
    plainly = _NOT_FOUND_TITLE.match(first) is not None
    small = len(weighed.visible) < SMALL_PAGE
    if plainly or (small and _ERROR_HEADLINE.match(first) is not None):
        return _suspect(
            Suspicion.ERROR_PAGE,
            f"the answer looks like an error page ({_clip(first)!r}), not {what}",
        )
    return None


_WALL_SUSPICIONS = {
    Wall.LOGIN: (Suspicion.LOGIN, "a login page", "a sign-in form and little else"),
    Wall.CONSENT: (
        Suspicion.CONSENT,
        "a consent page",
        "a cookie or privacy consent form and little else",
    ),
    Wall.CHALLENGE: (
        Suspicion.CHALLENGE,
        "a bot challenge",
        "a check to prove a human and little else",
    ),
}


def _wall_problem(weighed: _Weighed) -> Suspect | None:
    """A sign-in, consent or challenge wall (rule 6 of the module doc): by its structure
    (`judge.walls`), unless the last good version had the same; or by its words when
    the answer has fallen apart against the last good version (much shorter, sharing
    almost nothing with it), whatever that version said."""
    form, previous, what = weighed.wall_form, weighed.previous, weighed.what
    if form is not None and form.alone:
        before = _wall_form_of(previous.body, weighed.media) if previous is not None else None
        if before is None or not before.alone or before.kind is not form.kind:
            kind, page, shape = _WALL_SUSPICIONS[form.kind]
            return _suspect(kind, f"the answer looks like {page} ({shape}), not {what}")
    if previous is None or not _fell_apart(weighed.visible, previous.text):
        return None
    wall = form.kind if form is not None else wall_words(_headline(weighed))
    if wall is None:
        return None
    kind, page, _ = _WALL_SUSPICIONS[wall]
    return _suspect(
        kind,
        f"the answer looks like {page}, not {what}: it is less than half as long as the "
        "stored version and shares almost nothing with it",
    )


def _wall_form_of(text: str, media: MediaType) -> WallForm | None:
    """The wall form of an HTML page, or of a body served otherwise that is one."""
    if media is MediaType.HTML or looks_like_html(text):
        return find_wall_form(text)
    return None


def _fell_apart(now: str, before: str) -> bool:
    """Whether a visible text is much shorter than the previous one and shares almost
    nothing with it: less than `FELL_SHARED` of its characters are in lines the previous
    version had."""
    if len(before) < FELL_MIN_PREVIOUS or len(now) >= FELL_RATIO * len(before):
        return False
    had = {" ".join(line.split()).lower() for line in before.splitlines()}
    lines = [" ".join(line.split()).lower() for line in now.splitlines()]
    total = sum(map(len, lines))
    shared = sum(len(line) for line in lines if line and line in had)
    return total == 0 or shared < FELL_SHARED * total


def _cut_problem(weighed: _Weighed) -> Suspect | None:
    """An HTML page that never closes, the previous body's beginning alone, or a text whose
    end nobody told (rule 7 of the module doc)."""
    text, previous, what = weighed.text, weighed.previous, weighed.what
    ending = weighed.answer.ending
    told = ending is Ending.TOLD
    if weighed.media is MediaType.HTML:
        never_ends = _OPENS_HTML.search(text) and not _CLOSES_HTML.search(text)
        closed_before = previous is not None and _CLOSES_HTML.search(previous.body)
        if never_ends and (closed_before or not told):
            return _suspect(Suspicion.CUT_SHORT, f"the answer was cut short: {what} never ends")
    elif ending is Ending.UNTOLD:
        return _suspect(
            Suspicion.CUT_SHORT,
            f"the answer may be only a part of {what}: the server ended it by closing the "
            "connection, and a second answer was not the same",
        )
    if previous is None:
        return None
    kept, whole = text.rstrip(), previous.body
    shorter = len(kept) < (CUT_RATIO * len(whole) if told else len(whole.rstrip()))
    if shorter and whole.startswith(kept):
        return _suspect(
            Suspicion.CUT_SHORT,
            f"the answer was cut short: it is the first {len(text)} of "
            f"{len(previous.body)} characters of {what}",
        )
    return None


def _media_fits(mime: str, expect: Expect) -> bool:
    if expect is Expect.PAGE:
        return mime in _PAGE_TYPES
    raw = mime.startswith("application/vnd.github") and ".raw" in mime
    return raw or mime in _API_TYPES or mime == _API_BINARY_OK


def _kind_of(mime: str) -> str:
    """A media type in words, for the reason."""
    if mime == "text/html":
        return "an HTML page"
    if mime.endswith("json") or mime.endswith("+json"):
        return f"JSON ({mime})"
    return mime


def _login_words(weighed: _Weighed) -> str | None:
    """The telltale of a login wall in the answer, if any."""
    text, media = weighed.text, weighed.media
    before = weighed.before
    headline = _headline(weighed).lower()
    found = _announced(headline, _LOGIN_HEADLINE, before)
    if found:
        return "login words"
    title = _title(text) if media is MediaType.HTML else ""
    if title and _LOGIN_TITLE.match(title) and title.lower() not in before:
        return "login title"
    if (
        media is MediaType.HTML
        and _PASSWORD_FIELD.search(text)
        and not _PASSWORD_FIELD.search(before)
        and len(weighed.visible) < SMALL_PAGE
    ):
        return "password field"
    return None


def _headline(weighed: _Weighed) -> str:
    """The title and the first lines a reader sees: where a challenge or wall says so."""
    title = _title(weighed.text) if weighed.media is MediaType.HTML else ""
    visible = weighed.visible[:HEADLINE_CHARS]
    return f"{title}\n{visible}"


def _title(text: str) -> str:
    match = _TITLE.search(text)
    return " ".join(html.unescape(match[1]).split()) if match else ""


def _said(headline: str, markers: tuple[str, ...], before: str) -> bool:
    return any(m in headline and m not in before for m in markers)


def _announced(headline: str, markers: tuple[str, ...], before: str) -> bool:
    """Whether a marker is said as a wall says it, not as prose mentions it: within
    the first words of a line of the headline ("Oops! Please sign in to continue"), or
    in a short line (a heading). A help page's sentence 'the dashboard says "Please
    sign in to continue"' is no wall."""
    lines = headline.splitlines()
    for marker in markers:
        if marker not in headline or marker in before:
            continue
        for line in lines:
            at = line.find(marker)
            opens = at >= 0 and len(_WORD_RUN.findall(line[:at])) <= ANNOUNCE_AFTER
            if opens or (at >= 0 and len(line.split()) <= ANNOUNCE_WORDS):
                return True
    return False


def _json_message(text: str) -> str | None:
    """The message of a JSON error object (`{"message": …}`, `{"error": …}`), if it is one."""
    value = _json_value(text)
    if not isinstance(value, dict) or len(value) > 6:
        return None
    for key in ("message", "error", "error_description"):
        found = value.get(key)
        if isinstance(found, str):
            return found
        if isinstance(found, dict) and isinstance(found.get("message"), str):
            return str(found["message"])
    return None


def _is_json(text: str) -> bool:
    return isinstance(_json_value(text), dict | list)


def _json_value(text: str) -> object:
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        value: object = json.loads(stripped)
    except ValueError:
        return None
    return value


def _collapsed(now: int, before: int) -> bool:
    return (
        before >= COLLAPSE_MIN_PREVIOUS
        and now < COLLAPSE_RATIO * before
        and now < COLLAPSE_MAX_LEFT
    )


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _suspect(kind: Suspicion, reason: str) -> Suspect:
    return Suspect(kind=kind, reason=reason)
