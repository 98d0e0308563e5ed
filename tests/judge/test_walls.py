"""Walls read by their structure (`sources.walls`): what makes a wall, and what never does.

Property tests: a sign-in wall is one whatever its secret field's `type` says and
whatever words it is headed with (the defect of issue 37 was a password field not
marked `type=password`); a wall's form in a real page's chrome (its header, navigation,
sidebar, footer, a closed dialog) never makes the page a wall.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claimcheck.judge.answer import Answer, Expect, NewVersion, Previous, Suspect, Suspicion
from claimcheck.judge.plausible import judge_answer
from claimcheck.judge.verdict import page_text
from claimcheck.judge.walls import Wall, WallForm, find_wall_form, wall_words
from claimcheck.models import MediaType
from support.fault_server import (
    COOKIE_CONSENT_WALL,
    HELP_HTML,
    RECAPTCHA_FORM,
    SIGN_IN_UNTYPED_PASSWORD,
)
from support.paths import DATA

URL = "https://docs.example.org/page.html"
PAGES = sorted((DATA / "pages").glob("*.html"))
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _gate(body: str, before: str | None) -> object:
    previous = None if before is None else Previous(before, page_text(before, MediaType.HTML))
    answer = Answer(200, {"content-type": "text/html"}, body.encode(), URL, URL)
    return judge_answer(answer, Expect.PAGE, MediaType.HTML, previous)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(SIGN_IN_UNTYPED_PASSWORD.decode(), WallForm(Wall.LOGIN, True), id="sign-in"),
        pytest.param(COOKIE_CONSENT_WALL.decode(), WallForm(Wall.CONSENT, True), id="consent"),
        pytest.param(RECAPTCHA_FORM.decode(), WallForm(Wall.CHALLENGE, True), id="captcha"),
        pytest.param(HELP_HTML.decode(), None, id="help-page-no-form"),
        pytest.param(
            "<main>"
            + "<p>Widget draws charts for dashboards, with themes and axes.</p>" * 8
            + '<form><input name="password"><button>Sign in</button></form></main>',
            WallForm(Wall.LOGIN, False),
            id="sign-in-form-beside-a-page",
        ),
        pytest.param(
            '<form role="search"><input type="search" name="q"><button>Search</button></form>',
            None,
            id="search-form",
        ),
        pytest.param(
            '<form><input name="compass"><input name="bypass_cache"><button>Go</button></form>',
            None,
            id="words-holding-pass-are-no-password",
        ),
    ],
)
def test_find_wall_form(body: str, expected: WallForm | None) -> None:
    assert find_wall_form(body) == expected


@pytest.mark.parametrize(
    ("headline", "expected"),
    [
        ("Sign in\nPlease sign in to continue", Wall.LOGIN),
        ("Before you continue to Widget", Wall.CONSENT),
        ("JavaScript is required\nPlease enable JavaScript to continue.", Wall.CHALLENGE),
        ("Widget\nWidget draws charts.", None),
    ],
)
def test_wall_words(headline: str, expected: Wall | None) -> None:
    assert wall_words(headline) is expected


@SETTINGS
@given(
    kind=st.sampled_from([None, "text", "password", "PASSWORD", "tel", "number"]),
    naming=st.sampled_from(
        [
            'name="password"',
            'name="pwd"',
            'id="passwd"',
            'autocomplete="current-password"',
            'placeholder="Password"',
            'aria-label="Passcode"',
            'name="otp"',
            'autocomplete="one-time-code"',
            'name="user[password]"',
        ]
    ),
    heading=st.sampled_from(["Sign in", "Log in", "Welcome back", "Members", "Widget", ""]),
    in_form=st.booleans(),
    before=st.sampled_from([None, HELP_HTML.decode(), *[str(p) for p in PAGES]]),
)
def test_a_sign_in_wall_is_one_however_its_secret_field_is_typed(
    kind: str | None, naming: str, heading: str, in_form: bool, before: str | None
) -> None:
    typed = f' type="{kind}"' if kind is not None else ""
    field = f"<input{typed} {naming}><button>Continue</button>"
    controls = f'<form method="post">{field}</form>' if in_form else f"<div>{field}</div>"
    body = (
        f"<html><head><title>Widget</title></head><body><h1>{heading}</h1>{controls}</body></html>"
    )
    previous = (
        Path(before).read_text(encoding="utf-8") if before and before.endswith(".html") else before
    )
    found = _gate(body, previous)
    assert isinstance(found, Suspect), found
    assert found.kind is Suspicion.LOGIN, found


@SETTINGS
@given(
    page=st.sampled_from(PAGES),
    wall=st.sampled_from(
        [
            '<form action="/session"><input name="username"><input name="password">'
            "<button>Sign in</button></form>",
            '<div class="consent"><p>We use cookies to measure audience.</p>'
            "<button>Accept all</button><button>Reject all</button></div>",
            '<form><div class="g-recaptcha" data-sitekey="x"></div><button>Go</button></form>',
        ]
    ),
    place=st.sampled_from(["header", "nav", "aside", "footer", "dialog"]),
    first=st.booleans(),
)
def test_a_wall_form_in_a_real_pages_chrome_leaves_it_a_page(
    page: Path, wall: str, place: str, first: bool
) -> None:
    body = page.read_text(encoding="utf-8")
    chrome = f"<{place}>{wall}</{place}>"
    if first:
        walled = re.sub(r"(<body\b[^>]*>)", lambda m: m[1] + chrome, body, count=1)
    else:
        walled = body.replace("</body>", f"{chrome}</body>", 1)
    assert walled != body
    for before in (None, body):
        found = _gate(walled, before)
        assert isinstance(found, NewVersion), (page.name, place, found)
