"""Does an answer look like something other than the page: a bot challenge, an
access-denied page, a login or consent wall, an error page, or a login page reached by a
redirect (rules 5 and 6 of `judge.plausible`)?

Words are looked for where a wall or an error page puts them (its title and first lines,
`HEADLINE_CHARS`), and count only when the last good version did not say the same;
a wall's structure is `judge.walls`'s to find.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

from claimcheck.judge.answer import Suspect, Suspicion, Weighed, clip, suspect
from claimcheck.judge.walls import Wall, wall_form_of, wall_words
from claimcheck.models import MediaType

HEADLINE_CHARS = 300
"""How much of the visible text (after the title) telltale words are looked for in."""
SMALL_PAGE = 1500
"""Visible characters under which a password field makes a page a login wall."""
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
_CHALLENGE_ANYWHERE_UTF8 = tuple(marker.encode("utf-8") for marker in _CHALLENGE_ANYWHERE)
_LOWER_INTO_MARKERS = ("\u0130", "\u212a")
"""The characters outside the markers whose lower case holds a character of one: `İ`
(`i` and a combining dot) and the Kelvin sign (`k`); every other character lowers to
characters no marker has."""
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
_WORD_RUN = re.compile(r"\w+")


def redirect_problem(weighed: Weighed) -> Suspect | None:
    """A redirect to another host that lands on a login page."""
    answer, what = weighed.answer, weighed.what
    asked, landed = urlsplit(answer.url), urlsplit(answer.final_url)
    if (asked.hostname or "") == (landed.hostname or ""):
        return None
    on_login_path = _LOGIN_PATH.search(landed.path + ("?" if landed.query else "")) is not None
    form = weighed.wall_form
    login_form = form is not None and form.alone and form.kind is Wall.LOGIN
    if on_login_path or login_form or _login_words(weighed) is not None:
        return suspect(
            Suspicion.LOGIN_REDIRECT,
            f"the request was redirected to a login page on {landed.hostname}, not {what}",
        )
    return None


def looks_problem(weighed: Weighed) -> Suspect | None:
    """A bot challenge, an access-denied page, a login wall or an error page."""
    text, media, what = weighed.text, weighed.media, weighed.what
    before = weighed.before
    shown = _headline(weighed)
    headline = shown.lower()
    if _challenge_anywhere(text, before) or _announced(headline, _CHALLENGE_HEADLINE, before):
        return suspect(Suspicion.CHALLENGE, f"the answer looks like a bot challenge, not {what}")
    if _said(headline, _DENIED_HEADLINE, before):
        return suspect(Suspicion.DENIED, f"the answer looks like an access-denied page, not {what}")
    if _login_words(weighed) is not None:
        return suspect(Suspicion.LOGIN, f"the answer looks like a login page, not {what}")
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
        return suspect(
            Suspicion.ERROR_PAGE,
            f"the answer looks like an error page ({clip(first)!r}), not {what}",
        )
    return None


def _challenge_anywhere(text: str, before: str) -> bool:
    """Whether a challenge marker is anywhere in the text in lower case, and not in the
    last good version (`before`, lower case).

    Looked for in the text's UTF-8 bytes with the ASCII letters lowered: a marker's
    characters come, in `text.lower()`, only from ASCII letters and from themselves
    (but for `_LOWER_INTO_MARKERS`, which send the text to `str.lower`), and its bytes
    match only at a character's start, so it is found there exactly where
    `text.lower()` has it, without lowering every character of the text.
    """
    if any(c in text for c in _LOWER_INTO_MARKERS):
        lower = text.lower()
        return any(m in lower and m not in before for m in _CHALLENGE_ANYWHERE)
    lowered = text.encode("utf-8", "surrogatepass").lower()
    return any(
        b in lowered and m not in before
        for m, b in zip(_CHALLENGE_ANYWHERE, _CHALLENGE_ANYWHERE_UTF8, strict=True)
    )


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


def _wall_problem(weighed: Weighed) -> Suspect | None:
    """A sign-in, consent or challenge wall (rule 6 of the module doc): by its structure
    (`judge.walls`), unless the last good version had the same; or by its words when
    the answer has fallen apart against the last good version (much shorter, sharing
    almost nothing with it), whatever that version said."""
    form, previous, what = weighed.wall_form, weighed.previous, weighed.what
    if form is not None and form.alone:
        before = wall_form_of(previous.body, weighed.media) if previous is not None else None
        if before is None or not before.alone or before.kind is not form.kind:
            kind, page, shape = _WALL_SUSPICIONS[form.kind]
            return suspect(kind, f"the answer looks like {page} ({shape}), not {what}")
    if previous is None or not _fell_apart(weighed.visible, previous.text):
        return None
    wall = form.kind if form is not None else wall_words(_headline(weighed))
    if wall is None:
        return None
    kind, page, _ = _WALL_SUSPICIONS[wall]
    return suspect(
        kind,
        f"the answer looks like {page}, not {what}: it is less than half as long as the "
        "stored version and shares almost nothing with it",
    )


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


def _login_words(weighed: Weighed) -> str | None:
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


def _headline(weighed: Weighed) -> str:
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
