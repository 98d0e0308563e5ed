"""The plausibility gate, rule by rule: table tests over plain values (no server, no store)."""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimcheck.judge.answer import Answer, Expect, NewVersion, Previous, Suspect, Suspicion
from claimcheck.judge.looks import _CHALLENGE_ANYWHERE, _LOWER_INTO_MARKERS, _challenge_anywhere
from claimcheck.judge.plausible import _control_count, judge_answer
from claimcheck.judge.verdict import page_text
from claimcheck.models import Ending, MediaType
from support.fault_server import (
    COOKIE_CONSENT_WALL,
    ENABLE_JAVASCRIPT,
    GDPR_DIALOG,
    HELP_HTML,
    HELP_README,
    ONE_TIME_CODE,
    RECAPTCHA_FORM,
    SIGN_IN_EMAIL_FIRST,
    SIGN_IN_UNTYPED_PASSWORD,
    SIGN_IN_WITHOUT_FORM,
    TURNSTILE,
)
from support.paths import CORPUS

URL = "https://docs.example.org/widget.html"
API = "https://api.github.com/repos/acme/widget/readme"
HTML = "text/html; charset=utf-8"
RAW = "application/vnd.github.raw+json; charset=utf-8"
PARA = "Widget draws charts for dashboards, with themes, axes, legends and tooltips. "
GOOD_HTML = (
    "<html><head><title>Widget docs</title></head><body><h1>Widget</h1>"
    + "".join(f"<p>{PARA}{n}</p>" for n in range(12))
    + "</body></html>"
)
GOOD_MD = "# Widget\n\n" + "".join(f"{PARA}{n}\n\n" for n in range(12))


def previous(body: str, media: MediaType) -> Previous:
    return Previous(body=body, text=page_text(body, media))


PREV_HTML = previous(GOOD_HTML, MediaType.HTML)
PREV_MD = previous(GOOD_MD, MediaType.MARKDOWN)
PREV_HELP = previous(HELP_HTML.decode(), MediaType.HTML)
"""A short help page that says "Please sign in to continue", "accept all cookies or
reject all" and "verify you are human" itself (support.fault_server)."""
PREV_HELP_MD = previous(HELP_README.decode(), MediaType.MARKDOWN)
SIGN_IN_FORM = (
    '<form method="post" action="/session"><label>Username <input name="username"></label>'
    '<label>Password <input name="password"></label><button>Sign in</button></form>'
)


def html(title: str, body: str) -> str:
    return f"<html><head><title>{title}</title></head><body>{body}</body></html>"


@dataclass(frozen=True)
class Case:
    """One answer and what the gate must say: None (a new version) or a suspicion."""

    body: bytes | str
    expect_kind: Suspicion | None
    content_type: str | None = HTML
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    final_url: str = URL
    path: Expect = Expect.PAGE
    media: MediaType = MediaType.HTML
    previous: Previous | None = PREV_HTML
    words: str = ""  # a fragment the reason must hold
    ending: Ending = Ending.TOLD  # how the body's end is known (sources.ending)


def api(body: bytes | str, kind: Suspicion | None, **extra: object) -> Case:
    """A case on the GitHub-API path: raw Markdown expected."""
    settings: dict[str, object] = {
        "content_type": RAW,
        "final_url": API,
        "path": Expect.GITHUB_RAW,
        "media": MediaType.MARKDOWN,
        "previous": PREV_MD,
        **extra,
    }
    return Case(body, kind, **settings)  # type: ignore[arg-type]


RATE_LIMIT = json.dumps(
    {
        "message": "API rate limit exceeded for 192.0.2.1.",
        "documentation_url": "https://docs.github.com/rest/overview/rate-limits",
    }
)
ERROR_JSON = json.dumps({"message": "Not Found", "documentation_url": "https://docs.github.com"})

CASES = {
    # -- good answers are new versions
    "good-page": Case(GOOD_HTML, None),
    "good-page-edited": Case(GOOD_HTML.replace("</body>", "<p>New.</p></body>"), None),
    "good-page-first-fetch": Case(GOOD_HTML, None, previous=None),
    "good-page-without-content-type": Case(GOOD_HTML, None, content_type=None),
    "good-page-xhtml": Case(GOOD_HTML, None, content_type="application/xhtml+xml"),
    "good-markdown-page": Case(GOOD_MD, None, "text/markdown", media=MediaType.MARKDOWN),
    "good-readme": api(GOOD_MD, None),
    "good-readme-text-plain": api(GOOD_MD, None, content_type="text/plain; charset=utf-8"),
    "good-readme-vnd-raw": api(GOOD_MD, None, content_type="application/vnd.github.raw"),
    "page-about-cloudflare-that-had-it-before": Case(
        GOOD_HTML.replace("<h1>Widget</h1>", "<h1>Just a moment</h1>"),
        None,
        previous=previous(
            GOOD_HTML.replace("<h1>Widget</h1>", "<h1>Just a moment</h1>"), MediaType.HTML
        ),
    ),
    "long-page-titled-error-handling": Case(
        html("Error handling", "".join(f"<p>{PARA}{n}</p>" for n in range(30))), None
    ),
    "page-omitting-closing-tags-first-fetch": Case(
        "<html><body>" + "".join(f"<p>{PARA}{n}" for n in range(12)), None, previous=None
    ),
    "tail-removed-keeps-most": Case(
        GOOD_HTML[: int(len(GOOD_HTML) * 0.9)] + "</body></html>", None
    ),
    "json-file-that-was-json": Case(
        '{"name": "widget", "version": "2.0"}',
        None,
        "text/plain",
        media=MediaType.TEXT,
        previous=previous('{"name": "widget", "version": "1.0"}', MediaType.TEXT),
    ),
    # -- status and framing
    "status-202": Case(GOOD_HTML, Suspicion.STATUS, status=202, words="HTTP 202 (accepted"),
    "status-203": Case(GOOD_HTML, Suspicion.STATUS, status=203, words="a proxy's altered copy"),
    "status-204": Case("", Suspicion.STATUS, status=204, words="no content"),
    "status-206": Case(GOOD_HTML[:100], Suspicion.STATUS, status=206, words="only part"),
    "content-length-longer": Case(
        GOOD_HTML, Suspicion.INCOMPLETE, headers={"content-length": "99999"}, words="cut short"
    ),
    "content-length-gzip-not-compared": Case(
        GOOD_HTML, None, headers={"content-length": "10", "content-encoding": "gzip"}
    ),
    # -- media type
    "json-content-type": Case(ERROR_JSON, Suspicion.MEDIA_TYPE, "application/json", words="JSON"),
    "image-content-type": Case(b"\x89PNG\r\n", Suspicion.MEDIA_TYPE, "image/png"),
    "xml-content-type": Case("<Error/>", Suspicion.MEDIA_TYPE, "application/xml"),
    "api-html-content-type": api(GOOD_HTML, Suspicion.MEDIA_TYPE, content_type=HTML),
    "api-content-object": api(
        '{"type": "file", "content": "IyBXaWRnZXQ="}',
        Suspicion.MEDIA_TYPE,
        content_type="application/vnd.github+json",
        words="not the README",
    ),
    "api-rate-limit-json-content-type": api(
        RATE_LIMIT, Suspicion.MEDIA_TYPE, content_type="application/json; charset=utf-8"
    ),
    # -- text
    "empty": Case("", Suspicion.EMPTY, words="was empty"),
    "whitespace": Case(" \n\t\r\n " * 20, Suspicion.EMPTY, words="only whitespace"),
    "bom-only": Case(b"\xef\xbb\xbf", Suspicion.EMPTY),
    "nul-bytes": Case(b"\x00" * 100, Suspicion.EMPTY),
    "gzip-without-encoding": Case(gzip.compress(GOOD_HTML.encode()), Suspicion.BINARY),
    "api-error-json-as-raw": api(ERROR_JSON, Suspicion.JSON_ERROR, words="'Not Found'"),
    "api-rate-limit-as-raw": api(RATE_LIMIT, Suspicion.RATE_LIMIT, words="rate-limit message"),
    "page-error-json-as-html": Case(
        '{"error": {"message": "backend down"}}', Suspicion.JSON_ERROR, words="backend down"
    ),
    "page-json-document": Case(
        "[1, 2, 3]", Suspicion.JSON_ERROR, "text/plain", media=MediaType.TEXT
    ),
    # -- redirects to a login page elsewhere
    "redirect-login-path-other-host": Case(
        "<html><body><p>Welcome</p></body></html>",
        Suspicion.LOGIN_REDIRECT,
        final_url="https://id.example.com/login?next=/widget",
        words="login page on id.example.com",
    ),
    "redirect-sso-other-host-api": api(
        GOOD_HTML, Suspicion.LOGIN_REDIRECT, content_type=HTML, final_url="https://sso.corp/saml/x"
    ),
    "redirect-login-words-other-host": Case(
        html("Acme", "<h1>Sign in to continue</h1>"),
        Suspicion.LOGIN_REDIRECT,
        final_url="https://accounts.example.com/welcome",
    ),
    "redirect-same-host-login-path-is-not-cross-host": Case(
        GOOD_HTML, None, final_url="https://docs.example.org/auth/widget.html"
    ),
    # -- challenges, walls, error pages
    "cloudflare-just-a-moment": Case(
        html("Just a moment...", "<p>Checking if the site connection is secure</p>"),
        Suspicion.CHALLENGE,
        words="looks like a bot challenge, not the page",
    ),
    "cloudflare-checking-browser": Case(
        html("Please Wait", "<h1>Checking your browser before accessing docs.example.org</h1>"),
        Suspicion.CHALLENGE,
    ),
    "cloudflare-attention-required": Case(
        html("Attention Required! | Cloudflare", "<h1>Sorry, you have been blocked</h1>"),
        Suspicion.CHALLENGE,
    ),
    "cloudflare-challenge-big-page": Case(
        html("Docs", "<script>window._cf_chl_opt={}</script>" + "<p>x</p>" * 500),
        Suspicion.CHALLENGE,
    ),
    "captcha": Case(html("Security check", "<h1>Verify you are human</h1>"), Suspicion.CHALLENGE),
    "challenge-in-readme": api("# Just a moment...\n\nChecking your browser", Suspicion.CHALLENGE),
    "akamai-access-denied": Case(
        html("Access Denied", "<h1>Access Denied</h1>Reference #18.6f64"),
        Suspicion.DENIED,
        words="access-denied page",
    ),
    "login-wall": Case(
        html("Docs", "<h1>Sign in to continue</h1><p>Members only.</p>"), Suspicion.LOGIN
    ),
    "login-title": Case(html("Sign in · Example", "<p>Hello</p>"), Suspicion.LOGIN),
    "login-password-form": Case(
        html("Welcome back", '<form><input type="password" name="p"></form>'), Suspicion.LOGIN
    ),
    "nginx-404": Case(
        html("404 Not Found", "<center><h1>404 Not Found</h1></center><hr>nginx"),
        Suspicion.ERROR_PAGE,
        words="('404 Not Found')",
    ),
    "big-page-not-found-title": Case(
        html("Page not found · Example", "".join(f"<p>{PARA}{n}</p>" for n in range(40))),
        Suspicion.ERROR_PAGE,
    ),
    "tiny-500": Case(html("500 Internal Server Error", "<h1>Oops</h1>"), Suspicion.ERROR_PAGE),
    "maintenance": Case(html("Site Maintenance", "<h1>Back soon</h1>"), Suspicion.ERROR_PAGE),
    "readme-404-text": api("404: Not Found", Suspicion.ERROR_PAGE, words="('404: Not Found')"),
    # -- sign-in, consent and challenge walls by their structure (issue 37)
    "issue-37-sign-in-untyped-password-after-help-page": Case(
        SIGN_IN_UNTYPED_PASSWORD, Suspicion.LOGIN, previous=PREV_HELP, words="sign-in form"
    ),
    "issue-37-sign-in-untyped-password-first-fetch": Case(
        SIGN_IN_UNTYPED_PASSWORD, Suspicion.LOGIN, previous=None
    ),
    "issue-37-sign-in-as-raw-readme": api(
        SIGN_IN_UNTYPED_PASSWORD, Suspicion.LOGIN, previous=PREV_HELP_MD, words="sign-in form"
    ),
    "sign-in-email-first": Case(SIGN_IN_EMAIL_FIRST, Suspicion.LOGIN, previous=PREV_HELP),
    "sign-in-without-form": Case(SIGN_IN_WITHOUT_FORM, Suspicion.LOGIN, previous=PREV_HELP),
    "sign-in-one-time-code": Case(ONE_TIME_CODE, Suspicion.LOGIN, previous=None),
    "login-words-after-an-interjection": Case(
        html("Example", "<p>Oops! Please sign in to continue reading this article and more.</p>"),
        Suspicion.LOGIN,
        previous=None,
    ),
    "sign-in-form-under-another-title": Case(
        html("Widget docs", "<h2>Members</h2>" + SIGN_IN_FORM), Suspicion.LOGIN
    ),
    "sign-in-page-with-a-cookie-banner": Case(
        SIGN_IN_UNTYPED_PASSWORD.replace(
            b"</main>",
            b'</main><div class="cookies"><p>We use cookies to keep you signed in, to measure '
            b"how the site is used and to improve it; see our cookie policy for the details "
            b"of each cookie and how long it is kept.</p><p>Strictly necessary cookies "
            b"keep the site secure and remember your choices; they cannot be turned off.</p>"
            b"<p>Analytics cookies count visits and show which pages are read most, so that "
            b"we can make the documentation better.</p><button>Accept all</button>"
            b"<button>Reject all</button></div>",
        ),
        Suspicion.LOGIN,
        previous=PREV_HELP,
    ),
    "cookie-consent-wall": Case(
        COOKIE_CONSENT_WALL, Suspicion.CONSENT, previous=PREV_HELP, words="consent page"
    ),
    "cookie-consent-first-fetch": Case(COOKIE_CONSENT_WALL, Suspicion.CONSENT, previous=None),
    "privacy-dialog-alone": Case(GDPR_DIALOG, Suspicion.CONSENT, previous=PREV_HELP),
    "turnstile-after-help-page": Case(TURNSTILE, Suspicion.CHALLENGE, previous=PREV_HELP),
    "recaptcha-form": Case(RECAPTCHA_FORM, Suspicion.CHALLENGE, previous=None),
    # -- walls by their fall against the stored version: much shorter, nothing shared
    "enable-javascript-after-help-page": Case(
        ENABLE_JAVASCRIPT,
        Suspicion.CHALLENGE,
        previous=PREV_HELP,
        words="shares almost nothing",
    ),
    "sign-in-words-without-form-after-help-page": Case(
        html("Widget help", "<h1>Sign in</h1><p>Your session has ended.</p>"),
        Suspicion.LOGIN,
        previous=PREV_HELP,
        words="shares almost nothing",
    ),
    "enable-javascript-first-fetch-is-a-page": Case(ENABLE_JAVASCRIPT, None, previous=None),
    # -- real pages that speak of signing in or hold a form stay pages
    "help-page-first-fetch": Case(HELP_HTML, None, previous=None),
    "help-page-quoting-the-sign-in-message-early": Case(
        html(
            "Sessions",
            '<h1>Sessions</h1><p>When a session ends the dashboard says "Please sign in '
            'to continue", and a new session starts.</p>',
        ),
        None,
        previous=None,
    ),
    "readme-section-sign-in-to-the-dashboard": api(
        GOOD_MD + "## Sign in to the dashboard\n\nOpen the dashboard and sign in with your "
        "account; log in again when the session ends.\n",
        None,
        previous=None,
    ),
    "page-with-login-form-in-its-header": Case(
        GOOD_HTML.replace("<body>", f"<body><header>{SIGN_IN_FORM}</header>"), None
    ),
    "page-with-login-form-in-a-closed-dialog": Case(
        GOOD_HTML.replace("</body>", f"<dialog>{SIGN_IN_FORM}</dialog></body>"), None
    ),
    "page-with-cookie-banner": Case(
        GOOD_HTML.replace(
            "</body>",
            '<div class="cookies"><p>We use cookies.</p><button>Accept all</button></div></body>',
        ),
        None,
        previous=None,
    ),
    "page-with-newsletter-email-form": Case(
        GOOD_HTML.replace(
            "</body>",
            '<form><input type="email" name="email"><button>Subscribe</button></form></body>',
        ),
        None,
        previous=None,
    ),
    "ui-kit-page-showing-a-login-form-as-before": Case(
        html("Login form", "<h1>Login form</h1>" + SIGN_IN_FORM + "<p>Version 2.</p>"),
        None,
        previous=previous(html("Login form", "<h1>Login form</h1>" + SIGN_IN_FORM), MediaType.HTML),
    ),
    "shorter-rewrite-without-wall-words": Case(
        html("Widget", "<h1>Widget</h1><p>Widget is now part of Chartkit; see its docs.</p>"),
        None,
        previous=PREV_HELP,
    ),
    # -- cut short and collapse
    "html-never-ends": Case(GOOD_HTML[: len(GOOD_HTML) // 2], Suspicion.CUT_SHORT),
    "readme-first-half": api(GOOD_MD[: len(GOOD_MD) // 2], Suspicion.CUT_SHORT, words="first"),
    # -- a body whose end the server did not tell (ended by a closed connection)
    "first-fetch-html-never-ends-untold": Case(
        GOOD_HTML[: len(GOOD_HTML) // 2],
        Suspicion.CUT_SHORT,
        previous=None,
        ending=Ending.UNTOLD,
        words="never ends",
    ),
    "first-fetch-html-never-ends-agreed": Case(  # the same half twice: still never ends
        GOOD_HTML[: len(GOOD_HTML) // 2], Suspicion.CUT_SHORT, previous=None, ending=Ending.AGREED
    ),
    "first-fetch-html-never-ends-told": Case(  # its length told: HTML may omit both tags
        GOOD_HTML.removesuffix("</body></html>"), None, previous=None
    ),
    "first-fetch-html-without-tags-agreed": Case(  # nothing opened, nothing to close
        "<title>Widget</title><h1>Widget</h1>" + "".join(f"<p>{PARA}{n}" for n in range(12)),
        None,
        previous=None,
        ending=Ending.AGREED,
    ),
    "html-untold-that-ends": Case(  # a page that differs each time (a nonce), whole
        GOOD_HTML, None, previous=None, ending=Ending.UNTOLD
    ),
    "first-fetch-readme-untold": api(
        GOOD_MD[: len(GOOD_MD) // 2],
        Suspicion.CUT_SHORT,
        previous=None,
        ending=Ending.UNTOLD,
        words="second answer was not the same",
    ),
    "first-fetch-readme-agreed": api(GOOD_MD, None, previous=None, ending=Ending.AGREED),
    "readme-last-lines-gone-agreed": api(  # any part gone is a cut when no length was told
        GOOD_MD[: len(GOOD_MD) - 40], Suspicion.CUT_SHORT, ending=Ending.AGREED, words="first"
    ),
    "readme-last-lines-gone-told": api(  # told its length: an edit that dropped a line
        GOOD_MD[: len(GOOD_MD) - 40], None
    ),
    "readme-trailing-space-gone-agreed": api(GOOD_MD.rstrip(), None, ending=Ending.AGREED),
    # -- a proxy's words when it could not reach the server, sent as a 200
    "envoy-upstream-connect-error": Case(
        "upstream connect error or disconnect/reset before headers. reset reason: "
        "connection failure",
        Suspicion.ERROR_PAGE,
        content_type="text/plain",
        media=MediaType.TEXT,
        previous=None,
    ),
    "envoy-no-healthy-upstream": api("no healthy upstream", Suspicion.ERROR_PAGE, previous=None),
    "envoy-upstream-timeout": Case(
        "upstream request timeout",
        Suspicion.ERROR_PAGE,
        content_type="text/plain",
        media=MediaType.TEXT,
        previous=None,
    ),
    "no-visible-text": Case(
        '<html><body><div id="root"></div><script src="/a.js"></script></body></html>',
        Suspicion.NO_TEXT,
    ),
    "collapse-to-a-stub": Case(
        html("Widget", "<p>This project has moved.</p>"), Suspicion.COLLAPSE, words="most of"
    ),
    "readme-collapse": api("# Widget\n\nMoved to example.org.\n", Suspicion.COLLAPSE),
    "small-previous-no-collapse": Case(
        html("Widget", "<p>Now.</p>"),
        None,
        previous=previous(html("Widget", "<p>Short page before.</p>"), MediaType.HTML),
    ),
}


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_gate(case: Case) -> None:
    body = case.body.encode() if isinstance(case.body, str) else case.body
    headers = dict(case.headers)
    if case.content_type is not None:
        headers["content-type"] = case.content_type
    origin = API if case.path is Expect.GITHUB_RAW else URL
    answer = Answer(case.status, headers, body, origin, case.final_url, ending=case.ending)
    found = judge_answer(answer, case.path, case.media, case.previous)
    if case.expect_kind is None:
        assert isinstance(found, NewVersion), found
    else:
        assert isinstance(found, Suspect), found
        assert found.kind is case.expect_kind, found
        assert case.words in found.reason
        what = "the README" if case.path is Expect.GITHUB_RAW else "the page"
        assert what in found.reason or case.expect_kind is Suspicion.INCOMPLETE


def test_a_new_version_carries_the_decoded_text() -> None:
    body = GOOD_HTML.replace("Widget docs", "Widget café").encode("latin-1")
    answer = Answer(200, {"content-type": "text/html; charset=iso-8859-1"}, body, URL, URL)
    found = judge_answer(answer, Expect.PAGE, MediaType.HTML, PREV_HTML)
    assert isinstance(found, NewVersion)
    assert "Widget café" in found.text


@pytest.mark.slow  # every README step of the corpus
def test_every_real_readme_step_of_the_corpus_passes() -> None:
    """Calibration on real history: every README version after the one before it is a
    new version, drops of more than 80% to thousands of characters included."""
    checked = 0
    for index in sorted(CORPUS.glob("*/index.json")):
        entries = json.loads(index.read_text(encoding="utf-8"))
        entries = entries if isinstance(entries, list) else entries.get("versions", entries)
        before: Previous | None = None
        for entry in entries:
            if not entry.get("file"):
                continue
            raw = (index.parent / entry["file"]).read_bytes()
            answer = Answer(200, {"content-type": RAW}, raw, API, API)
            found = judge_answer(answer, Expect.GITHUB_RAW, MediaType.MARKDOWN, before)
            assert isinstance(found, NewVersion), (index.parent.name, entry.get("date"), found)
            before = previous(raw.decode("utf-8"), MediaType.MARKDOWN)
            checked += 1
    assert checked > 300


@given(st.text(st.characters(exclude_categories=())))
def test_control_characters_are_counted_as_their_character_class_says(text: str) -> None:
    """The binary rule's count, taken in UTF-8 bytes, is the count of the characters."""
    assert _control_count(text) == len(re.findall(r"[\x00-\x08\x0b\x0e-\x1f\x7f]", text))


def test_only_the_named_characters_lower_into_a_challenge_markers_characters() -> None:
    """What lets `_challenge_anywhere` look in the ASCII-lowered bytes: every character
    whose lower case holds a marker's character is that character, an ASCII letter, or
    one of `_LOWER_INTO_MARKERS`."""
    marker_chars = set("".join(_CHALLENGE_ANYWHERE))
    found = [
        chr(code)
        for code in range(0x80, 0x110000)
        if chr(code) not in marker_chars and set(chr(code).lower()) & marker_chars
    ]
    assert found == sorted(_LOWER_INTO_MARKERS)


_MARKER_PIECES = st.sampled_from(
    [*_CHALLENGE_ANYWHERE, *(m.upper() for m in _CHALLENGE_ANYWHERE), "\u0130", "\u212a"]
)
_TEXTS = st.lists(
    st.one_of(_MARKER_PIECES, st.text(st.characters(exclude_categories=()), max_size=8)),
    max_size=12,
).map("".join)


@given(_TEXTS, st.sampled_from(["", _CHALLENGE_ANYWHERE[0], "just a moment"]))
def test_a_challenge_marker_is_found_where_the_lowered_text_has_it(text: str, before: str) -> None:
    lower = text.lower()
    expected = any(m in lower and m not in before for m in _CHALLENGE_ANYWHERE)
    assert _challenge_anywhere(text, before) is expected
