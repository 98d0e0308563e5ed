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
   by a closed connection, as a dropped connection ends it too; see `models.Ending`)
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

An answer read as a PDF (`pdf.pdf_expected`) passes rules 1 and 5, then the PDF's own
checks (`pdf_answer`: a PDF, whole, readable, with a text layer) and rule 8's collapse.
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

from claimcheck.judge.answer import (
    Answer,
    Expect,
    NewVersion,
    Plausibility,
    Previous,
    Suspect,
    Suspicion,
    VisibleText,
    Weighed,
    clip,
    suspect,
)
from claimcheck.judge.decode import decode_body
from claimcheck.judge.looks import looks_problem, redirect_problem
from claimcheck.judge.pdf import body_text
from claimcheck.judge.pdf_answer import pdf_answer
from claimcheck.judge.verdict import page_text
from claimcheck.models import Ending, MediaType

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
BINARY_SHARE = 0.01
"""Share of control characters above which a body is binary, not text."""

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
_OPENS_HTML = re.compile(r"<(html|body)\b", re.IGNORECASE)
_CLOSES_HTML = re.compile(r"</(html|body)\s*>", re.IGNORECASE)
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0B, *range(0x0E, 0x20), 0x7F])
"""The control characters that make a text binary (not tab, line feed, form feed or
carriage return)."""
_NOT_CONTROL = bytes(b for b in range(256) if b not in _CONTROL_BYTES)


def answer_text(answer: Answer, media: MediaType) -> str:
    """The text of an answer's body, as the gate weighs it and the store keeps it (a
    PDF's bytes, one character a byte: `pdf.body_text`)."""
    if media is MediaType.PDF:
        return body_text(answer.body)
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
    landed = redirect_problem(Weighed(answer, "", media, previous, what, read))
    if landed is not None:
        return landed
    mime = (answer.content_type or "").split(";", 1)[0].strip().lower()
    if media is MediaType.PDF:
        return _as_pdf(answer, previous, read)
    if media is MediaType.JSON:  # a JSON document, whole (a page's, an API's answer)
        what = "the JSON document"
    elif expect is Expect.PAGE and mime in _HTML and _names_json(answer.url):
        return suspect(Suspicion.MEDIA_TYPE, f"the answer is {_kind_of(mime)}, not JSON")
    elif not _media_fits(mime, expect):
        return suspect(Suspicion.MEDIA_TYPE, f"the answer is {_kind_of(mime)}, not {what}")
    text = answer_text(answer, media)
    weighed = Weighed(answer, text, media, previous, what, read)
    for check in (_text_problem, redirect_problem, looks_problem, _cut_problem):
        found = check(weighed)
        if found is not None:
            return found
    visible = weighed.visible
    if not visible.strip():
        return suspect(Suspicion.NO_TEXT, f"the answer has no visible text, unlike {what}")
    if previous is not None and _collapsed(len(visible), len(previous.text)):
        return suspect(
            Suspicion.COLLAPSE,
            f"most of {what}'s text is gone at once ({len(visible)} of "
            f"{len(previous.text)} characters left): more likely a broken answer than an edit",
        )
    return NewVersion(text=text)


def _as_pdf(answer: Answer, previous: Previous | None, read: VisibleText) -> Plausibility:
    """A PDF's own checks (`pdf_answer`), then the collapse every page is weighed for."""
    found = pdf_answer(answer)
    if isinstance(found, Suspect) or previous is None:
        return found
    visible = read(found.text, MediaType.PDF)
    if _collapsed(len(visible), len(previous.text)):
        return suspect(
            Suspicion.COLLAPSE,
            f"most of the PDF's text is gone at once ({len(visible)} of "
            f"{len(previous.text)} characters left): more likely a broken answer than an edit",
        )
    return found


def _framing(answer: Answer, what: str) -> Suspect | None:
    """Status and length: an answer that is not a whole 200 is not a version."""
    if answer.status != 200:
        words = _STATUS_WORDS.get(answer.status, "not a plain 200")
        return suspect(
            Suspicion.STATUS, f"the answer was HTTP {answer.status} ({words}), not {what}"
        )
    declared = answer.headers.get("content-length", "").strip()
    encoded = answer.headers.get("content-encoding", "identity").strip().lower()
    if declared.isdigit() and encoded in ("", "identity") and int(declared) != len(answer.body):
        return suspect(
            Suspicion.INCOMPLETE,
            f"the answer was cut short: {len(answer.body)} of {declared} bytes",
        )
    return None


def _text_problem(weighed: Weighed) -> Suspect | None:
    """Empty, whitespace, binary, or a JSON error message."""
    answer, text, previous, what = weighed.answer, weighed.text, weighed.previous, weighed.what
    if not answer.body:
        return suspect(Suspicion.EMPTY, f"the answer was empty, not {what}")
    if not text.strip(" \t\r\n\f\v\ufeff\x00"):
        return suspect(Suspicion.EMPTY, f"the answer was only whitespace, not {what}")
    controls = _control_count(text)
    if controls > max(2, BINARY_SHARE * len(text)):
        return suspect(Suspicion.BINARY, f"the answer is binary data, not {what}")
    if weighed.media is MediaType.JSON and not _whole_json(text):
        return suspect(
            Suspicion.CUT_SHORT, f"the answer is not whole JSON: cut short, or not {what}"
        )
    message = _json_message(text)
    if message is not None:
        if "rate limit" in message.lower():
            return suspect(
                Suspicion.RATE_LIMIT, f"the answer is GitHub's rate-limit message, not {what}"
            )
        return suspect(
            Suspicion.JSON_ERROR,
            f"the answer is an error message in JSON ({clip(message)!r}), not {what}",
        )
    if previous is not None and _is_json(text) and not _is_json(previous.body):
        return suspect(Suspicion.JSON_ERROR, f"the answer is a JSON document, not {what}")
    return None


def _control_count(text: str) -> int:
    """How many control characters `text` has (`_CONTROL_BYTES`).

    Counted in its UTF-8 bytes, where each is the one byte of its own value and no
    other character has a byte below 0x80, so the count is the text's; deleting every
    other byte is one pass in C.
    """
    return len(text.encode("utf-8", "surrogatepass").translate(None, _NOT_CONTROL))


def _cut_problem(weighed: Weighed) -> Suspect | None:
    """An HTML page that never closes, the previous body's beginning alone, or a text whose
    end nobody told (rule 7 of the module doc)."""
    text, previous, what = weighed.text, weighed.previous, weighed.what
    ending = weighed.answer.ending
    told = ending is Ending.TOLD
    if weighed.media is MediaType.HTML:
        never_ends = _OPENS_HTML.search(text) and not _CLOSES_HTML.search(text)
        closed_before = previous is not None and _CLOSES_HTML.search(previous.body)
        if never_ends and (closed_before or not told):
            return suspect(Suspicion.CUT_SHORT, f"the answer was cut short: {what} never ends")
    elif ending is Ending.UNTOLD:
        return suspect(
            Suspicion.CUT_SHORT,
            f"the answer may be only a part of {what}: the server ended it by closing the "
            "connection, and a second answer was not the same",
        )
    if previous is None:
        return None
    kept, whole = text.rstrip(), previous.body
    shorter = len(kept) < (CUT_RATIO * len(whole) if told else len(whole.rstrip()))
    if shorter and whole.startswith(kept):
        return suspect(
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


_HTML = frozenset({"text/html", "application/xhtml+xml"})


def _names_json(url: str) -> bool:
    """Whether a URL names a JSON file (`….json`): an HTML page there is not it."""
    return urlsplit(url).path.lower().endswith(".json")


def _whole_json(text: str) -> bool:
    """Whether `text` is one JSON value, whole."""
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


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
