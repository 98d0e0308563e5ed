"""The HTML report without a browser: self-contained, escaped, the change side by side."""

from __future__ import annotations

import base64
import hashlib
import re

from claimcheck.models import Verdict
from claimcheck.report.formats import OutputFormat, render
from claimcheck.report.formats.html_assets import SCRIPT
from support.sample_reports import HOSTILE_QUOTE, RICH, hostile_report


def test_html_is_self_contained() -> None:
    page = render(RICH, OutputFormat.HTML)
    assert "<link" not in page
    assert not re.search(r"\ssrc=", page)
    assert "@import" not in page
    assert "url(" not in page


def test_html_allows_only_its_own_script() -> None:
    page = render(RICH, OutputFormat.HTML)
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in page
    assert "default-src 'none'" in page
    assert page.count("<script>") == 1


def test_html_has_every_claim_with_its_verdict_and_page() -> None:
    page = render(RICH, OutputFormat.HTML)
    for verdict in Verdict:
        assert f'data-verdict="{verdict.value}"' in page
    assert 'data-page="other"' in page
    # Claims needing attention come first, stale before review.
    assert page.index('id="claim-claim-drifted"') < page.index('id="claim-claim-expired"')
    assert page.index('id="claim-claim-expired"') < page.index('id="claim-claim-verified"')


def test_html_shows_then_and_now_with_the_change_marked() -> None:
    page = render(RICH, OutputFormat.HTML)
    assert "<del>1.5-bit, 2-bit</del> and 4-bit quantization" in page
    assert "<ins>2-bit, 3-bit</ins> and 4-bit quantization" in page
    # The block keeps its line breaks.
    assert "§ Features\nBackends: <del>CUDA, Metal.</del>\nIt supports" in page
    assert "§ Features\nBackends: <ins>CUDA.</ins>\nIt supports" in page
    assert 'href="https://github.com/o/r#:~:text=2%2Dbit%2C%203%2Dbit' in page
    assert "open the source at the quote" in page


def test_html_escapes_every_third_party_string() -> None:
    page = hostile_report()
    assert HOSTILE_QUOTE not in page
    assert "<img" not in page
    assert "<b onmouseover" not in page
    assert "<i>x</i>" not in page
    assert "</article><script>" not in page
    assert 'href="javascript:' not in page
    assert "&lt;script&gt;document.body.dataset.pwned=" in page
    assert 'data-page="p&quot;age"' in page
