"""A fault-injection HTTP server on 127.0.0.1: a good page first, then a bad answer of a named kind.

Every source it serves is either a plain web page (`/web/<name>.html`, HTML) or a
README through a GitHub-shaped API (`/repos/<owner>/<repo>/readme`, raw Markdown with
`application/vnd.github.raw+json`, as GitHub answers claimcheck's Accept header). Each
source answers with its good body until a test sets a fault on it; then it answers with
that fault, which is what servers we do not control really send when they do not give
us the page: bot challenges, login walls, tiny error pages, JSON errors with status
200, 202/203/204/206, empty or cut-short bodies, binary, a redirect to a login page on
another host; or with a sign-in, consent or challenge wall of `WALLS`. `FAULTS` lists
them by name, each with the words the claim's reason must carry. The login pages of the
"other host" are served at `/login`, `/sso/start`, `/oauth/authorize` and `/welcome` of
this server, reached as `localhost` rather than `127.0.0.1`.

The server speaks HTTP/1.0 (one request a connection), so an answer without
Content-Length ends where the connection closes, as a body cut short by a dropped
connection does.
"""

from __future__ import annotations

import base64
import gzip
import itertools
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

from support.local_http import RecordingServer

RAW_TYPE = "application/vnd.github.raw+json; charset=utf-8"
HTML_TYPE = "text/html; charset=utf-8"
DOCS = "https://docs.github.com/rest"
RATE_HEADERS = {
    "X-RateLimit-Limit": "60",
    "X-RateLimit-Remaining": "59",
    "X-RateLimit-Reset": "4102444800",
    "X-RateLimit-Resource": "core",
}


@dataclass(frozen=True)
class Reply:
    """One answer. `length`: -1 sends the body's length, None none (read until close),
    a number declares that many bytes whatever the body is."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    length: int | None = -1


@dataclass(frozen=True)
class Scene:
    """What a fault is built from: the source's good body and where it is served."""

    good: bytes
    api: bool
    base_url: str  # http://127.0.0.1:PORT
    other_host_url: str  # the same server as http://localhost:PORT: another host

    @property
    def content_type(self) -> str:
        """The source's natural media type: raw Markdown for the API, HTML for a page."""
        return RAW_TYPE if self.api else HTML_TYPE


@dataclass(frozen=True)
class Fault:
    """A named bad answer; `reason` is a fragment the claim's reason must hold in each
    path (`api_reason` when the API path says it differently). `gate`: the plausibility
    gate catches it (False: the fetcher already fails it as a network problem)."""

    name: str
    answer: Callable[[Scene], Reply]
    reason: str
    api_reason: str | None = None
    gate: bool = True

    def reason_for(self, api: bool) -> str:
        """The reason fragment of one path."""
        return self.api_reason if api and self.api_reason is not None else self.reason


def _html(title: str, body: str) -> bytes:
    return (
        f"<!DOCTYPE html><html><head><title>{title}</title></head><body>{body}</body></html>"
    ).encode()


def _page(body: bytes, content_type: str = HTML_TYPE, status: int = 200, **headers: str) -> Reply:
    return Reply(status, {"Content-Type": content_type, **headers}, body)


def _same_type(s: Scene, body: bytes, status: int = 200) -> Reply:
    return _page(body, s.content_type, status)


def _github_json(message: str) -> bytes:
    return json.dumps({"message": message, "documentation_url": DOCS, "status": "404"}).encode()


CLOUDFLARE_JUST_A_MOMENT = _html(
    "Just a moment...",
    '<div class="main-wrapper" role="main"><div class="main-content">'
    '<h1 class="zone-name-title h1">example.org</h1>'
    '<h2 class="h2" id="challenge-running">Checking if the site connection is secure</h2>'
    "<noscript>Enable JavaScript and cookies to continue</noscript></div></div>"
    "<script>(function(){window._cf_chl_opt={cvId: '3',cZone: 'example.org',cType: "
    "'managed'};})();</script>",
)
CHECKING_YOUR_BROWSER = _html(
    "Please Wait... | Cloudflare",
    '<div id="cf-content"><h1>Checking your browser before accessing example.org.</h1>'
    "<p>This process is automatic. Your browser will redirect to your requested content "
    "shortly.</p><p>Please allow up to 5 seconds&hellip;</p></div>"
    '<div class="attribution">DDoS protection by Cloudflare</div>',
)
ATTENTION_REQUIRED = _html(
    "Attention Required! | Cloudflare",
    '<div id="cf-wrapper"><h1 data-translate="block_headline">Sorry, you have been '
    'blocked</h1><h2 class="cf-subheadline">You are unable to access example.org</h2>'
    "<p>This website is using a security service to protect itself from online attacks."
    "</p></div>",
)
HCAPTCHA = _html(
    "Security check",
    "<h1>Verify you are human</h1><p>Complete the check below to continue.</p>"
    '<div class="h-captcha" data-sitekey="10000000-ffff-ffff-ffff-000000000001"></div>',
)
PERIMETERX = _html(
    "Access to this page has been denied",
    '<div id="px-captcha"></div><h1>Access to this page has been denied</h1>'
    "<p>Press &amp; Hold to confirm you are a human (and not a bot).</p>",
)
AKAMAI_DENIED = (
    b"<HTML><HEAD>\n<TITLE>Access Denied</TITLE>\n</HEAD><BODY>\n<H1>Access Denied</H1>\n \n"
    b'You don\'t have permission to access "http&#58;&#47;&#47;example&#46;org&#47;" on '
    b"this server.<P>\nReference&#32;&#35;18&#46;6f64d917&#46;1700000000&#46;1a2b3c\n"
    b"</BODY>\n</HTML>\n"
)
NGINX_404 = (
    b"<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not "
    b"Found</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n"
)
APACHE_500 = _html(
    "500 Internal Server Error",
    "<h1>Internal Server Error</h1><p>The server encountered an internal error or "
    "misconfiguration and was unable to complete your request.</p>",
)
MAINTENANCE = _html(
    "Site Maintenance",
    "<article><h1>We&rsquo;ll be back soon!</h1><p>Sorry for the inconvenience but we"
    "&rsquo;re performing some maintenance at the moment.</p></article>",
)
LOGIN_WALL = _html(
    "Example Docs",
    "<main><h1>Sign in to continue</h1><p>This content is available to members only."
    '</p><a href="/login">Sign in</a></main>',
)
LOGIN_FORM = _html(
    "Welcome back",
    '<form action="/session" method="post"><label>Email <input type="email" name="e">'
    '</label><label>Password <input type="password" name="p"></label>'
    "<button>Continue</button></form>",
)
SPA_SHELL = (
    b'<!doctype html><html><head><title>Widget</title><script src="/app.js" defer>'
    b'</script></head><body><div id="root"></div></body></html>'
)
S3_ERROR = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>'
    b"Access Denied</Message><RequestId>4442587FB7D0A2F9</RequestId></Error>"
)
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def _collapse(s: Scene) -> Reply:
    if s.api:
        return _same_type(s, b"# Widget\n\nThis project has moved.\n")
    return _page(_html("Widget", "<p>This project has moved.</p>"))


def _cut(share: float) -> Callable[[Scene], Reply]:
    def answer(s: Scene) -> Reply:
        return Reply(
            200, {"Content-Type": s.content_type}, s.good[: int(len(s.good) * share)], None
        )

    return answer


def _cut_anew() -> Callable[[Scene], Reply]:
    """A body without a length cut at another place each time: a connection that keeps
    dropping mid-body, so no two answers agree."""
    shares = itertools.cycle((0.5, 0.6, 0.7, 0.4))

    def answer(s: Scene) -> Reply:
        body = s.good[: int(len(s.good) * next(shares))]
        return Reply(200, {"Content-Type": s.content_type}, body, None)

    return answer


def _to_other_host(path: str) -> Callable[[Scene], Reply]:
    def answer(s: Scene) -> Reply:
        return Reply(302, {"Location": f"{s.other_host_url}{path}"}, b"")

    return answer


def _folder_listing(s: Scene) -> Reply:
    """GitHub's JSON contents listing of a folder, not a file: what the API answers
    when the path asked for became a folder. (A README's own content object is the
    answer claimcheck asks for, and unpacks; a listing holds no README text.)"""
    payload = [
        {
            "type": "file",
            "name": "README.md",
            "path": "docs/README.md",
            "size": len(s.good),
            "download_url": "https://raw.githubusercontent.com/o/r/main/docs/README.md",
        }
    ]
    return _page(json.dumps(payload).encode(), "application/vnd.github+json; charset=utf-8")


FAULTS: dict[str, Fault] = {
    f.name: f
    for f in [
        Fault("status-202", lambda s: _same_type(s, s.good, 202), "HTTP 202"),
        Fault("status-203", lambda s: _same_type(s, s.good, 203), "HTTP 203"),
        Fault("status-204", lambda s: _same_type(s, b"", 204), "HTTP 204"),
        Fault(
            "status-206",
            lambda s: Reply(
                206,
                {"Content-Type": s.content_type, "Content-Range": f"bytes 0-99/{len(s.good)}"},
                s.good[:100],
            ),
            "HTTP 206",
        ),
        Fault("empty-body", lambda s: _same_type(s, b""), "was empty"),
        Fault("whitespace-body", lambda s: _same_type(s, b"\n  \n\t \r\n" * 40), "whitespace"),
        Fault("bom-only", lambda s: _same_type(s, b"\xef\xbb\xbf\n"), "whitespace"),
        Fault(
            "nul-bytes", lambda s: _same_type(s, b"\x00" * 4096), "whitespace"
        ),  # NULs: nothing a reader sees
        Fault(
            "nginx-404-page",
            lambda s: _page(NGINX_404),
            "error page ('404 Not Found')",
            "is an HTML page",
        ),
        Fault(
            "apache-500-page",
            lambda s: _page(APACHE_500),
            "error page ('500 Internal Server Error')",
            "is an HTML page",
        ),
        Fault("maintenance-page", lambda s: _page(MAINTENANCE), "error page", "is an HTML page"),
        Fault(
            "plain-text-error",
            lambda s: _same_type(s, b"404: Not Found"),
            "error page ('404: Not Found')",
        ),
        Fault(
            "cloudflare-just-a-moment",
            lambda s: _page(CLOUDFLARE_JUST_A_MOMENT, status=200),
            "looks like a bot challenge, not the page",
            "is an HTML page",
        ),
        Fault(
            "cloudflare-checking-browser",
            lambda s: _page(CHECKING_YOUR_BROWSER),
            "looks like a bot challenge",
            "is an HTML page",
        ),
        Fault(
            "cloudflare-attention-required",
            lambda s: _page(ATTENTION_REQUIRED),
            "looks like a bot challenge",
            "is an HTML page",
        ),
        Fault(
            "challenge-as-raw",  # a challenge page under the expected media type
            lambda s: _same_type(s, CLOUDFLARE_JUST_A_MOMENT),
            "looks like a bot challenge",
        ),
        Fault("hcaptcha-page", lambda s: _page(HCAPTCHA), "bot challenge", "is an HTML page"),
        Fault("perimeterx-page", lambda s: _page(PERIMETERX), "bot challenge", "is an HTML page"),
        Fault(
            "akamai-access-denied",
            lambda s: _page(AKAMAI_DENIED, "text/html"),
            "access-denied page",
            "is an HTML page",
        ),
        Fault("login-wall", lambda s: _page(LOGIN_WALL), "login page", "is an HTML page"),
        Fault("login-form", lambda s: _page(LOGIN_FORM), "login page", "is an HTML page"),
        Fault(
            "login-wall-as-raw", lambda s: _same_type(s, LOGIN_WALL), "login page"
        ),  # served under the expected media type
        Fault(
            "json-error",
            lambda s: _page(_github_json("Not Found"), "application/json; charset=utf-8"),
            "is JSON (application/json)",
        ),
        Fault(
            "json-error-as-raw",
            lambda s: _same_type(s, _github_json("Server Error")),
            "error message in JSON ('Server Error')",
        ),
        Fault(
            "github-rate-limit-200",
            lambda s: _page(
                json.dumps(
                    {
                        "message": "API rate limit exceeded for 127.0.0.1. (But here's the "
                        "good news: Authenticated requests get a higher rate limit.)",
                        "documentation_url": DOCS,
                    }
                ).encode(),
                "application/json; charset=utf-8",
            ),
            "is JSON",
        ),
        Fault(
            "github-rate-limit-as-raw",
            lambda s: _same_type(
                s,
                json.dumps(
                    {"message": "API rate limit exceeded", "documentation_url": DOCS}
                ).encode(),
            ),
            "GitHub's rate-limit message",
        ),
        Fault(
            "folder-listing-json",
            _folder_listing,
            "is JSON (application/vnd.github+json)",
        ),
        Fault("s3-xml-error", lambda s: _page(S3_ERROR, "application/xml"), "application/xml"),
        Fault("image-instead", lambda s: _page(PNG, "image/png"), "image/png"),
        Fault(
            "gzip-without-encoding",
            lambda s: _same_type(s, gzip.compress(s.good, mtime=0)),
            "binary data",
        ),
        Fault(
            "spa-shell",
            lambda s: _same_type(s, SPA_SHELL),
            "no visible text",
            "most of the README's text is gone",  # as Markdown, its title is text
        ),
        Fault("collapse", _collapse, "most of the"),
        Fault("cut-short-half", _cut(0.5), "cut short"),
        Fault("cut-short-tenth", _cut(0.1), "cut short"),
        Fault(
            "cut-anew-each-time",
            _cut_anew(),
            "cut short",  # an HTML page that never ends
            "only a part of the README",  # told by the second answer that differs
        ),
        Fault(
            "proxy-error-200",  # Envoy's words, as some front ends send them with a 200
            lambda s: _page(
                b"upstream connect error or disconnect/reset before headers. "
                b"reset reason: connection failure",
                "text/plain",
            ),
            "error page",
        ),
        Fault(
            "length-longer-than-body",
            lambda s: Reply(200, {"Content-Type": s.content_type}, s.good, len(s.good) + 1000),
            "connection broke off",
            gate=False,
        ),
        Fault(
            "redirect-to-login-elsewhere",
            _to_other_host("/login?next=%2Fdocs"),
            "redirected to a login page on localhost",
        ),
        Fault("status-201", lambda s: _same_type(s, s.good, 201), "HTTP 201"),
        Fault("status-205", lambda s: _same_type(s, b"", 205), "HTTP 205"),
        Fault(
            "ddos-guard-page",
            lambda s: _page(_html("DDoS-Guard", "<p>Checking your browser before accessing</p>")),
            "bot challenge",
            "is an HTML page",
        ),
        Fault(
            "incapsula-page",
            lambda s: _page(
                _html("Example", '<iframe src="/_Incapsula_Resource?SWJIYLWA=1"></iframe>')
            ),
            "bot challenge",
            "is an HTML page",
        ),
        Fault(
            "datadome-captcha",
            lambda s: _page(
                _html("example.org", '<script src="https://ct.captcha-delivery.com/c.js"></script>')
            ),
            "bot challenge",
            "is an HTML page",
        ),
        Fault(
            "one-more-step-page",
            lambda s: _page(_html("Example", "<h1>One more step</h1><p>Please wait.</p>")),
            "bot challenge",
            "is an HTML page",
        ),
        Fault(
            "you-have-been-blocked",
            lambda s: _page(_html("Example", "<h1>Sorry, you have been blocked</h1>")),
            "access-denied page",
            "is an HTML page",
        ),
        Fault(
            "request-blocked",
            lambda s: _page(_html("Request blocked", "<h1>Request blocked.</h1>")),
            "access-denied page",
            "is an HTML page",
        ),
        Fault(
            "please-sign-in",
            lambda s: _page(_html("Example", "<h1>Please sign in</h1><p>to read this page</p>")),
            "login page",
            "is an HTML page",
        ),
        Fault(
            "authentication-required",
            lambda s: _page(_html("Example", "<h1>Authentication required</h1>")),
            "login page",
            "is an HTML page",
        ),
        Fault(
            "bad-gateway-page",
            lambda s: _page(_html("502 Bad Gateway", "<h1>502 Bad Gateway</h1><hr>nginx")),
            "error page",
            "is an HTML page",
        ),
        Fault(
            "service-unavailable-page",
            lambda s: _page(
                _html("503 Service Unavailable", "<h1>Service Temporarily Unavailable</h1>")
            ),
            "error page",
            "is an HTML page",
        ),
        Fault(
            "gateway-timeout-page",
            lambda s: _page(_html("504 Gateway Time-out", "<h1>504 Gateway Time-out</h1>")),
            "error page",
            "is an HTML page",
        ),
        Fault(
            "redirect-to-sso-elsewhere",
            _to_other_host("/sso/start?return=%2F"),
            "redirected to a login page on localhost",
        ),
        Fault(
            "redirect-to-oauth-elsewhere",
            _to_other_host("/oauth/authorize?client_id=x"),
            "redirected to a login page on localhost",
        ),
        Fault(
            "redirect-elsewhere-to-a-404",  # a temporary detour says nothing of the source
            _to_other_host("/no-such-page"),
            "reached by a temporary redirect to localhost",
            gate=False,
        ),
        Fault(
            "redirect-to-login-words-elsewhere",
            _to_other_host("/welcome"),
            "redirected to a login page on localhost",
            "is an HTML page",
        ),
    ]
}


# -- sign-in, consent and challenge walls (issue 37) ------------------------------------
#
# Walls after a good page that itself speaks of signing in, cookies and human checks,
# as a site's help page does: so the wall's words were "said before" and only its
# structure, or its fall against the stored version, shows it for what it is. The
# help page is short (under 500 visible characters), so the collapse rule of the
# gate does not apply either.

HELP_QUOTE = "Widget renders every chart in under a second"
_HELP_INTRO = (
    f"{HELP_QUOTE}, even with a million points. It draws line, bar and area charts from "
    "a table or a stream, keeps axes and legends readable on a phone, follows the "
    "reader's dark or light theme, and exports any chart as an image or a table."
)
_HELP_NOTES = (
    'When a session ends the dashboard says "Please sign in to continue".',
    "The first visit asks to accept all cookies or reject all.",
    "A busy night may ask you to verify you are human.",
)
HELP_HTML = _html(
    "Widget help",
    f"<main><h1>Widget help</h1><p>{_HELP_INTRO}</p>"
    + "".join(f"<p>{note}</p>" for note in _HELP_NOTES)
    + "</main>",
)
HELP_README = (
    f"# Widget help\n\n{_HELP_INTRO}\n\n" + "".join(f"{note}\n\n" for note in _HELP_NOTES)
).encode()
"""The good page of the walls: a short help page (under 500 visible characters, so the
gate's collapse rule does not apply) that speaks of signing in, cookies and human
checks past its first lines, as a site's help page does."""

SIGN_IN_UNTYPED_PASSWORD = _html(
    "Widget help",
    "<main><h1>Sign in</h1><p>Please sign in to continue</p>"
    '<form method="post" action="/session"><label>Username <input name="username"></label>'
    '<label>Password <input name="password"></label><button>Sign in</button></form></main>',
)
"""The page of issue 37 item 4: an `<h1>Sign in</h1>`, "Please sign in to continue" and
a password field not marked `type=password`."""
SIGN_IN_EMAIL_FIRST = _html(
    "Widget",
    '<div class="card"><h2>Welcome back</h2><p>Log in to Widget</p>'
    '<form action="/u/login/identifier" method="post">'
    '<input type="email" name="username" placeholder="you@example.com">'
    "<button>Continue</button></form><p>No account? <a href=/signup>Sign up</a></p></div>",
)
SIGN_IN_WITHOUT_FORM = _html(
    "Widget",
    '<div id="app"><div class="card"><div class="field"><span>Username</span>'
    '<input id="u" aria-label="Username"></div><div class="field"><span>Passcode</span>'
    '<input id="p" aria-label="Passcode"></div><div role="button">Log in</div></div></div>',
)
ONE_TIME_CODE = _html(
    "Widget",
    "<h1>Two-step verification</h1><p>Enter the six-digit code from your app.</p>"
    '<form method="post"><input name="otp" inputmode="numeric" autocomplete="one-time-code">'
    "<button>Verify</button></form>",
)
COOKIE_CONSENT_WALL = _html(
    "Before you continue",
    '<div class="consent"><h1>Before you continue to Widget</h1><p>We use cookies and '
    "data to deliver and maintain our services, to measure audience engagement and to "
    "improve them.</p><p>If you choose to accept all, we will also use cookies to "
    "personalise content and ads.</p><form><button>Reject all</button>"
    "<button>Accept all</button></form><a href=/privacy>Privacy</a></div>",
)
GDPR_DIALOG = _html(
    "Widget",
    '<div role="dialog" aria-modal="true" aria-labelledby="t"><h2 id="t">We value your '
    "privacy</h2><p>We and our partners store and access information on your device, "
    "such as cookies, and process personal data for measurement and content.</p>"
    "<button>I agree</button><button>Manage options</button></div>",
)
TURNSTILE = _html(
    "Widget",
    "<main><h1>docs.example.org</h1><p>Verify you are human by completing the action "
    'below.</p><div class="cf-turnstile" data-sitekey="0x4AAAAAAA"></div></main>',
)
RECAPTCHA_FORM = _html(
    "Widget",
    '<form action="/verify" method="post"><h2>Please confirm you are not a robot</h2>'
    '<div class="g-recaptcha" data-sitekey="6Lc_x"></div><button>Continue</button></form>',
)
ENABLE_JAVASCRIPT = _html(
    "Widget",
    "<h1>JavaScript is required</h1><p>Please enable JavaScript to continue.</p>",
)

WALLS: dict[str, Fault] = {
    f.name: f
    for f in [
        Fault(
            "sign-in-untyped-password",
            lambda s: _page(SIGN_IN_UNTYPED_PASSWORD),
            "login page",
            "is an HTML page",
        ),
        Fault(
            "sign-in-untyped-password-as-raw",  # under the README's own media type
            lambda s: _same_type(s, SIGN_IN_UNTYPED_PASSWORD),
            "login page",
        ),
        Fault(
            "sign-in-email-first",
            lambda s: _page(SIGN_IN_EMAIL_FIRST),
            "login page",
            "is an HTML page",
        ),
        Fault(
            "sign-in-without-form",
            lambda s: _page(SIGN_IN_WITHOUT_FORM),
            "login page",
            "is an HTML page",
        ),
        Fault("one-time-code", lambda s: _page(ONE_TIME_CODE), "login page", "is an HTML page"),
        Fault(
            "cookie-consent-wall",
            lambda s: _page(COOKIE_CONSENT_WALL),
            "consent page",
            "is an HTML page",
        ),
        Fault(
            "cookie-consent-as-raw", lambda s: _same_type(s, COOKIE_CONSENT_WALL), "consent page"
        ),
        Fault("gdpr-dialog", lambda s: _page(GDPR_DIALOG), "consent page", "is an HTML page"),
        Fault("turnstile", lambda s: _page(TURNSTILE), "bot challenge", "is an HTML page"),
        Fault(
            "recaptcha-form", lambda s: _page(RECAPTCHA_FORM), "bot challenge", "is an HTML page"
        ),
        Fault(
            "enable-javascript",  # no form: only its fall against the stored version shows it
            lambda s: _page(ENABLE_JAVASCRIPT),
            "bot challenge",
            "is an HTML page",
        ),
    ]
}
"""Walls by name: served after `HELP_HTML` / `HELP_README` (tests/cli/test_walls_e2e.py)."""

_ANSWERS = {**FAULTS, **WALLS}


class FaultServer:
    """Good sources that turn bad on request. Use as a context manager.

    `add_page(name, body)` and `add_readme(repo, body)` register sources with their good
    bodies; `set_fault(path, name)` makes one answer with a fault of `FAULTS` (None: its
    good body again); `set_good(path, body)` changes a good body (a real edit).
    """

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.requests: list[tuple[str, str]] = []  # (Host header, path)
        self._lock = threading.Lock()
        self._good: dict[str, bytes] = {}
        self._faults: dict[str, str] = {}
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- life ----------------------------------------------------------------------------

    def start(self) -> Self:
        """Bind 127.0.0.1 on a free port and serve from a daemon thread."""
        self._httpd = _HTTPServer(("127.0.0.1", 0), _Handler, self.errors)
        self._httpd.faults = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port."""
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """http://127.0.0.1:PORT: the GitHub API URL and the host of the web pages."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def other_host_url(self) -> str:
        """The same server under another host name, where the login pages are."""
        return f"http://localhost:{self.port}"

    # -- set-up ----------------------------------------------------------------------------

    def add_page(self, name: str, body: bytes) -> str:
        """Serve a good HTML page at /web/<name>.html; returns its URL."""
        path = f"/web/{name}.html"
        with self._lock:
            self._good[path] = body
        return self.base_url + path

    def add_readme(self, repo: str, body: bytes) -> str:
        """Serve a good README for `owner/repo` through the API; returns its API path."""
        path = f"/repos/{repo}/readme"
        with self._lock:
            self._good[path] = body
        return path

    def set_good(self, path: str, body: bytes) -> None:
        """Change a source's good body: a real edit of the page."""
        with self._lock:
            self._good[path] = body

    def set_fault(self, path: str, name: str | None) -> None:
        """Answer `path` with the fault `name` from now on (None: the good body again)."""
        with self._lock:
            if name is None:
                self._faults.pop(path, None)
            else:
                assert name in _ANSWERS, name
                self._faults[path] = name

    # -- answering (from the serving threads) -------------------------------------------

    def answer(self, host: str, path: str) -> Reply:
        """The reply to a GET of `path`."""
        route = urlsplit(path).path
        with self._lock:
            self.requests.append((host, path))
            good = self._good.get(route)
            fault = self._faults.get(route)
        if route in ("/login", "/sso/start", "/oauth/authorize"):
            return _page(LOGIN_FORM)
        if route == "/welcome":
            return _page(LOGIN_WALL)
        api = route.startswith("/repos/")
        if good is None:
            return _page(_github_json("Not Found"), "application/json; charset=utf-8", 404)
        scene = Scene(good, api, self.base_url, self.other_host_url)
        reply = _ANSWERS[fault].answer(scene) if fault else _same_type(scene, good)
        if api:
            reply = Reply(reply.status, {**RATE_HEADERS, **reply.headers}, reply.body, reply.length)
        return reply


class _HTTPServer(RecordingServer):
    faults: FaultServer


class _Handler(BaseHTTPRequestHandler):
    """HTTP/1.0: one request a connection, so a body without a length ends at the close."""

    protocol_version = "HTTP/1.0"
    server_version = "FaultServer"
    sys_version = ""
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default per-request stderr logging."""

    def do_GET(self) -> None:
        """Write the fault server's reply, with the Content-Length the reply asks for."""
        reply = self.server.faults.answer(self.headers.get("Host", ""), self.path)
        self.send_response(reply.status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if reply.length is not None and reply.status != 204:
            declared = len(reply.body) if reply.length == -1 else reply.length
            self.send_header("Content-Length", str(declared))
        self.send_header("Connection", "close")
        self.end_headers()
        if reply.body and reply.status != 204:
            self.wfile.write(reply.body)
        self.close_connection = True
