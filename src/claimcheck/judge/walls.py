"""Sign-in, consent and challenge walls, read from a page's structure and its words.

A wall is what a server shows in place of the page: a sign-in form, a cookie or
privacy consent page, a captcha or "verify you are human" check. Its words vary (and
a real page may say them: a README's "Sign in to the dashboard", a login link in the
navigation), but its shape does not: a form whose text is about signing in, consenting
or proving to be human, and little else on the page. So a page is a wall by its
structure when

- it holds a *wall form*: a field named like a secret (password, passcode, one-time
  code), whatever its `type` says; a field named like an account (user, login, email)
  in a form that says "sign in" or "log in"; a button "Accept all", "Reject all", "I
  agree" or "Allow cookies" inside a part that speaks of cookies, consent or privacy;
  a captcha widget or a form that asks to prove to be human; and
- the main content a reader reads, that form taken out, is little: at most
  `LITTLE_PROSE` units of prose (lines of at least `PROSE_WORDS` words) and fewer than
  `LITTLE_TEXT` characters.

`wall_words` reads the weaker sign, the words alone (in the title and the first
lines): the plausibility gate trusts them only when the answer has also collapsed
against the stored version (`judge.plausible`). Everything here is pure: a body in,
a value out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from selectolax.lexbor import LexborNode

from claimcheck.judge.extract import content_roots, is_hidden, parse_page, visible_text
from claimcheck.models import MediaType

PROSE_WORDS = 6
"""Words a line of visible text needs to count as a unit of prose."""
LITTLE_PROSE = 2
"""Units of prose a page may keep beside its wall form and still be a wall."""
LITTLE_TEXT = 400
"""Visible characters a page may keep beside its wall form and still be a wall."""
PART_TEXT = 3000
"""Visible characters a wall form (with a consent page's explanation) has at most: a
larger part is a page that holds a form, not a form."""
MOST_VISIBLE = PART_TEXT + LITTLE_TEXT
"""Visible characters above which a page cannot be a wall form and little else: it is
not looked for in such a page at all."""


class Wall(StrEnum):
    """The kinds of wall a server puts in place of a page."""

    LOGIN = "login"
    CONSENT = "consent"
    CHALLENGE = "challenge"


@dataclass(frozen=True)
class WallForm:
    """A wall's form found on a page: its kind, and whether the page is that form and
    little else (`alone`): only then is the page a wall by its structure."""

    kind: Wall
    alone: bool


_CONTROLS = "input, select, textarea, button"
_BUTTON_TYPES = frozenset({"submit", "button", "reset", "image"})
_NOT_FIELDS = frozenset({"hidden", "checkbox", "radio", "range", "color", "file", "search"})
_SECRET = re.compile(
    r"passw(?:or)?d|passcode|passphrase|(?<![a-z])(?:pass|pin|otp|totp|mfa|2fa)(?![a-z])|"
    r"pwd|one[-_ ]?time|two[-_ ]?factor|(?:verification|security|auth)[-_ ]?code",
    re.IGNORECASE,
)
_ACCOUNT = re.compile(r"user|login|e-?mail|account|identifier|username", re.IGNORECASE)
_SIGN_IN = re.compile(
    r"\b(?:sign(?:ing)?[- ]?(?:in|on)|log(?:ging)?[- ]?(?:in|on)|login|signin|"
    r"authenticat\w*|single sign-on)\b",
    re.IGNORECASE,
)
_CONSENT_BUTTON = re.compile(
    r"^\W*(?:accept|reject|decline|agree|i agree|allow|consent|got it|"
    r"(?:manage|customi[sz]e)\b.*\b(?:options|preferences|settings|cookies|choices))\b",
    re.IGNORECASE,
)
_CONSENT_WORDS = re.compile(
    r"\b(?:cookies?|consent|privacy|personal data|your (?:data|choices)|gdpr|"
    r"tracking technologies|our partners)\b",
    re.IGNORECASE,
)
_HUMAN = re.compile(
    r"verify (?:that )?you(?:'re| are) (?:a )?human|are you a robot|not a robot|"
    r"prove you(?:'re| are) human|security check|captcha|press (?:&|and) hold|"
    r"checking (?:if the site connection|your browser)",
    re.IGNORECASE,
)
_CAPTCHA_WIDGET = (
    ".g-recaptcha, .h-captcha, .cf-turnstile, .frc-captcha, #challenge-form, "
    "#cf-challenge-running, #px-captcha, [data-sitekey]"
)
_CAPTCHA_FRAME = re.compile(
    r"recaptcha|hcaptcha|challenges\.cloudflare\.com|arkoselabs|funcaptcha|captcha",
    re.IGNORECASE,
)

_LOGIN_WORDS = re.compile(
    r"\b(?:sign(?:ing)? ?in|log(?:ging)? ?in|login|sign[- ]on|authenticat\w+|"
    r"enter your password|two-factor|verification code|one-time code)\b",
    re.IGNORECASE,
)
_CONSENT_HEADLINE = re.compile(
    r"\b(?:cookies?|consent|privacy (?:choices|settings|preferences)|"
    r"before you continue|we value your privacy|accept all|reject all|gdpr)\b",
    re.IGNORECASE,
)
_CHALLENGE_WORDS = re.compile(
    _HUMAN.pattern + r"|enable javascript|javascript is (?:disabled|required)|"
    r"unusual traffic|just a moment|please wait while we",
    re.IGNORECASE,
)


def wall_words(headline: str) -> Wall | None:
    """The kind of wall a page's title and first lines speak of, if any.

    Words alone are a weak sign (a docs page may be about signing in); the gate asks
    for them only of an answer that has fallen apart against the stored version.
    """
    if _CHALLENGE_WORDS.search(headline):
        return Wall.CHALLENGE
    if _CONSENT_HEADLINE.search(headline):
        return Wall.CONSENT
    if _LOGIN_WORDS.search(headline):
        return Wall.LOGIN
    return None


def looks_like_html(body: str) -> bool:
    """Whether a body not served as HTML is an HTML document all the same (a wall
    served under a README's media type)."""
    return (
        re.match(r"\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html)\b", body, re.I | re.S) is not None
    )


def find_wall_form(body: str) -> WallForm | None:
    """The wall form on an HTML page, if it has one (see the module doc), and whether
    the page is that form and little else."""
    lower = body.lower()
    if not any(tag in lower for tag in ("<input", "<button", "<textarea", "<select")) and not (
        "captcha" in lower or "turnstile" in lower or "challenge" in lower
    ):
        return None  # no control, no widget: no wall form (most pages stop here)
    document = parse_page(body, MediaType.HTML)
    # A sign-in page may carry a cookie banner too: every wall part found is taken out
    # before the rest is measured; the first kind found names the wall.
    found = [
        part
        for part in (_login_form(document), _consent_part(document), _challenge_part(document))
        if part is not None
    ]
    if not found:
        return None
    kind = found[0][0]
    for outer in _outermost([part for _, part in found]):
        outer.decompose()
    roots, _ = content_roots(document, MediaType.HTML)
    rest = "".join(visible_text(root) for root in roots)
    return WallForm(kind, alone=_little(rest))


def _outermost(parts: list[LexborNode]) -> list[LexborNode]:
    """The parts no other of them holds (a part may hold another: a consent form in a
    sign-in form's card), so that each is taken out once."""
    ids = {part.mem_id for part in parts}
    kept: dict[int, LexborNode] = {}
    for part in parts:
        parent = part.parent
        while parent is not None and parent.mem_id not in ids:
            parent = parent.parent
        if parent is None:
            kept[part.mem_id] = part
    return list(kept.values())


def _small(part: LexborNode) -> bool:
    """Whether a part is small enough to be a wall's form rather than a page."""
    return sum(len(word) + 1 for word in visible_text(part).split()) < PART_TEXT


def _little(text: str) -> bool:
    """Whether a text is little: few units of prose, few characters."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    prose = sum(1 for line in lines if len(line.split()) >= PROSE_WORDS)
    return prose <= LITTLE_PROSE and sum(map(len, lines)) < LITTLE_TEXT


def _login_form(document: LexborNode) -> tuple[Wall, LexborNode] | None:
    """A form with a secret field, or an account field in a form that says sign in."""
    labels = _labels(document)
    for control in document.css("input, textarea"):
        if _hidden_above(control):
            continue
        kind = (control.attributes.get("type") or "text").strip().lower()
        if kind in _BUTTON_TYPES or kind in _NOT_FIELDS:
            continue
        naming = _naming(control, labels)
        form = _enclosing(control, "form") or control.parent or control
        if not _small(form):
            continue
        if kind == "password" or _SECRET.search(naming):
            return Wall.LOGIN, form
        if kind == "email" or _ACCOUNT.search(naming):
            said = visible_text(form) + " " + " ".join(_button_labels(form))
            if _SIGN_IN.search(said) or _SIGN_IN.search(form.attributes.get("action") or ""):
                return Wall.LOGIN, form
    return None


def _consent_part(document: LexborNode) -> tuple[Wall, LexborNode] | None:
    """A consent button inside the part of the page that speaks of cookies or privacy."""
    for button in _buttons(document):
        if not _CONSENT_BUTTON.search(_button_label(button)):
            continue
        part = button.parent
        while part is not None and (part.tag or "").lower() not in ("body", "html"):
            said = visible_text(part)
            if _CONSENT_WORDS.search(said):
                if _small(part):
                    return Wall.CONSENT, part
                break
            part = part.parent
    return None


def _challenge_part(document: LexborNode) -> tuple[Wall, LexborNode] | None:
    """A captcha widget, or a form that asks to prove to be human."""
    widgets = [n for n in document.css(_CAPTCHA_WIDGET) if not _hidden_above(n)]
    frames = [
        n
        for n in document.css("iframe, script")
        if _CAPTCHA_FRAME.search(n.attributes.get("src") or "")
    ]
    for node in [*widgets, *frames]:
        part = _enclosing(node, "form") or node
        if _small(part):
            return Wall.CHALLENGE, part
    for form in document.css("form"):
        if _HUMAN.search(visible_text(form)) and _small(form):
            return Wall.CHALLENGE, form
    return None


def _labels(document: LexborNode) -> dict[str, str]:
    """The text of each `<label for=…>`, by the id it names."""
    return {
        (label.attributes.get("for") or ""): visible_text(label)
        for label in document.css("label[for]")
    }


def _naming(control: LexborNode, labels: dict[str, str]) -> str:
    """Everything that names a field: its attributes and its label's text."""
    attributes = control.attributes
    names = [
        attributes.get(key) or ""
        for key in ("name", "id", "autocomplete", "placeholder", "aria-label", "title")
    ]
    names.append(labels.get(attributes.get("id") or "\0", ""))
    label = _enclosing(control, "label")
    if label is not None:
        names.append(visible_text(label))
    return " ".join(names)


def _buttons(root: LexborNode) -> list[LexborNode]:
    """The shown buttons under `root`: `<button>`, submit inputs and `role=button`."""
    found = root.css("button, input[type=submit i], input[type=button i], [role=button i]")
    return [b for b in found if not _hidden_above(b)]


def _button_labels(root: LexborNode) -> list[str]:
    return [_button_label(b) for b in _buttons(root)]


def _button_label(button: LexborNode) -> str:
    attributes = button.attributes
    if (button.tag or "").lower() == "input":
        return attributes.get("value") or ""
    return " ".join(visible_text(button).split()) or attributes.get("aria-label") or ""


def _enclosing(node: LexborNode, name: str) -> LexborNode | None:
    """The nearest element named `name` holding `node`, if any."""
    parent = node.parent
    while parent is not None:
        if (parent.tag or "").lower() == name:
            return parent
        parent = parent.parent
    return None


def _hidden_above(node: LexborNode) -> bool:
    """Whether the element or one holding it is hidden from a reader."""
    current: LexborNode | None = node
    while current is not None:
        if (current.tag or "").startswith("-"):
            return False
        if is_hidden(current) and (current.tag or "").lower() != "noscript":
            return True
        current = current.parent
    return False


def wall_form_of(text: str, media: MediaType) -> WallForm | None:
    """The wall form of an HTML page, or of a body served otherwise that is one."""
    if media is MediaType.HTML or looks_like_html(text):
        return find_wall_form(text)
    return None
