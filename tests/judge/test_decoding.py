"""Decoding a body as a browser does (issue 12, section 5): BOM, HTTP charset, <meta>, detection.

Table tests of `decode_body`, then the whole path: a page served as ISO-8859-1 or
UTF-16 with a correct charset is stored as UTF-8 and its "café" quote is verified.
"""

from __future__ import annotations

import codecs
import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import pytest

from claimcheck.claims.load import load_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.config import Config, FetchConfig
from claimcheck.judge.decode import charset_of, codec_for, decode_body, meta_charset
from claimcheck.models import Verdict
from claimcheck.observe.online import ONLINE
from claimcheck.pipeline import run_verify
from claimcheck.store.store import Store
from support.claim_files import write_claims
from support.replay_server import ReplayServer

CAFE = "Le café crème coûte 2 € à Zürich"
PAGE = f"<html><head><title>Menu</title></head><body><p>{CAFE}.</p></body></html>"
FRENCH = (
    "Les spécifications décrivent précisément le comportement attendu des éléments, "
    "des attributs et des événements, ainsi que la manière dont les agents utilisateurs "
    "doivent traiter les erreurs rencontrées à l'intérieur des documents déjà publiés. "
) * 4

RUSSIAN = "Привет, мир! Это пример текста на русском языке для проверки кодировки. " * 3
JAPANESE = "これは日本語のテキストです。文字コードの判定を確認します。" * 3


def meta_page(declaration: str, text: str = CAFE) -> str:
    return f"<html><head>{declaration}<title>x</title></head><body><p>{text}</p></body></html>"


@dataclass(frozen=True)
class Case:
    """Bytes with a Content-Type, and the text a browser would show."""

    body: bytes
    content_type: str | None
    expected: str
    html: bool = True


CASES = {
    "utf8-declared": Case(PAGE.encode(), "text/html; charset=utf-8", PAGE),
    "latin1-declared": Case(
        PAGE.replace("€", "EUR").encode("latin-1"),
        "text/html; charset=ISO-8859-1",
        PAGE.replace("€", "EUR"),
    ),
    "latin1-label-is-windows-1252": Case(
        PAGE.encode("cp1252"), "text/html; charset=iso-8859-1", PAGE
    ),
    "windows-1252-quoted-charset": Case(
        PAGE.encode("cp1252"), 'text/html; charset="windows-1252"', PAGE
    ),
    "utf16le-declared-no-bom": Case(PAGE.encode("utf-16-le"), "text/html; charset=utf-16le", PAGE),
    "utf16-label-means-le": Case(PAGE.encode("utf-16-le"), "text/html; charset=UTF-16", PAGE),
    "utf16be-declared": Case(PAGE.encode("utf-16-be"), "text/html; charset=utf-16be", PAGE),
    "utf16-bom-le-no-charset": Case(
        codecs.BOM_UTF16_LE + PAGE.encode("utf-16-le"), "text/html", PAGE
    ),
    "utf16-bom-be-no-charset": Case(codecs.BOM_UTF16_BE + PAGE.encode("utf-16-be"), None, PAGE),
    "bom-beats-a-wrong-http-charset": Case(
        codecs.BOM_UTF8 + PAGE.encode(), "text/html; charset=iso-8859-1", PAGE
    ),
    "utf8-bom-is-dropped": Case(codecs.BOM_UTF8 + PAGE.encode(), None, PAGE),
    "http-charset-beats-meta": Case(
        meta_page('<meta charset="utf-8">').encode("cp1252"),
        "text/html; charset=windows-1252",
        meta_page('<meta charset="utf-8">'),
    ),
    "meta-charset": Case(
        meta_page('<meta charset="iso-8859-15">').encode("iso-8859-15"),
        "text/html",
        meta_page('<meta charset="iso-8859-15">'),
    ),
    "meta-http-equiv": Case(
        meta_page(
            '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
        ).encode("cp1252"),
        None,
        meta_page('<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'),
    ),
    "meta-utf16-means-utf8": Case(
        meta_page('<meta charset="utf-16">').encode(), None, meta_page('<meta charset="utf-16">')
    ),
    "meta-ignored-outside-html": Case(
        f'<meta charset="iso-8859-1"> {CAFE}'.encode(),
        None,
        f'<meta charset="iso-8859-1"> {CAFE}',
        html=False,
    ),
    "unknown-charset-falls-through": Case(PAGE.encode(), "text/html; charset=x-nonsense", PAGE),
    "undeclared-valid-utf8": Case(PAGE.encode(), "text/html", PAGE),
    "undeclared-latin1-detected": Case(FRENCH.encode("cp1252"), "text/plain", FRENCH, html=False),
    "undeclared-latin1-markdown-detected": Case(
        f"# Spécifications\n\n{FRENCH}".encode("cp1252"),
        None,
        f"# Spécifications\n\n{FRENCH}",
        html=False,
    ),
    "undeclared-short-latin1": Case(
        "Un café, s'il vous plaît".encode("latin-1"), None, "Un café, s'il vous plaît", html=False
    ),
    "undeclared-cp1251-detected": Case(RUSSIAN.encode("cp1251"), None, RUSSIAN, html=False),
    "undeclared-shift-jis-detected": Case(JAPANESE.encode("shift_jis"), None, JAPANESE, html=False),
    "github-raw-charset": Case(
        CAFE.encode(), "application/vnd.github.raw+json; charset=utf-8", CAFE, html=False
    ),
}


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_decode_body(case: Case) -> None:
    assert decode_body(case.body, case.content_type, html=case.html) == case.expected


@pytest.mark.parametrize(
    ("header", "charset"),
    [
        ("text/html; charset=utf-8", "utf-8"),
        ('text/html;charset="ISO-8859-1"', "ISO-8859-1"),
        ("text/html; q=1; Charset = shift_jis", "shift_jis"),
        ("text/html", None),
        (None, None),
    ],
    ids=["plain", "quoted-no-space", "after-another-parameter", "none", "no-header"],
)
def test_charset_of(header: str | None, charset: str | None) -> None:
    assert charset_of(header) == charset


@pytest.mark.parametrize(
    ("label", "codec"),
    [
        ("ISO-8859-1", "cp1252"),
        ("latin1", "cp1252"),
        ("us-ascii", "cp1252"),
        ("utf-16", "utf-16-le"),
        ("UTF8", "utf-8"),
        ("shift_jis", "cp932"),
        ("gb2312", "gb18030"),
        ("koi8-r", "koi8-r"),
        ("no-such-encoding", None),
        ("", None),
    ],
    ids=lambda value: str(value),
)
def test_codec_for_follows_whatwg_labels(label: str, codec: str | None) -> None:
    assert codec_for(label) == codec


def test_meta_is_only_read_in_the_first_1024_bytes() -> None:
    late = b"<html><head>" + b" " * 1100 + b'<meta charset="iso-8859-1"></head></html>'
    assert meta_charset(late) is None
    assert meta_charset(b"<HTML><HEAD><META CHARSET=latin1>") == "latin1"


def test_undecodable_bytes_become_replacement_characters() -> None:
    assert decode_body(b"caf\xe9", "text/plain; charset=utf-8") == "caf\ufffd"


# -- the whole path: fetched, stored as UTF-8, verified ----------------------------------


@pytest.mark.parametrize(
    ("encoding", "content_type"),
    [
        ("latin-1", "text/html; charset=ISO-8859-1"),
        ("utf-16", "text/html; charset=UTF-16"),  # Python's utf-16 writes a BOM
        ("utf-16-le", "text/html; charset=utf-16le"),
        ("cp1252", "text/html"),  # undeclared: detected
    ],
    ids=["latin1-charset", "utf16-bom-and-charset", "utf16le-charset", "cp1252-detected"],
)
def test_a_page_in_another_encoding_is_stored_as_utf8_and_verified(
    tmp_path: Path, encoding: str, content_type: str
) -> None:
    quote = "Le café crème coûte deux euros à Zürich"
    text = f"<p>{quote}.</p><p>{FRENCH}</p>" if encoding == "cp1252" else f"<p>{quote}.</p>"
    page = f"<html><head><title>Menu</title></head><body>{text}</body></html>"
    with ReplayServer(None) as server:
        server.set_page("/menu.html", page.encode(encoding), content_type=content_type)
        today = dt.datetime.now(dt.UTC).date().isoformat()
        entry = {
            "id": "cafe",
            "claim": "the café serves crème",
            "source": server.url("/menu.html"),
            "quote": quote,
        }
        claims = load_claims(
            [write_claims(tmp_path / "claims", [entry], checked=today)], read=read_document
        )
        config = Config(
            root=tmp_path,
            fetch=FetchConfig(per_host_interval=0, retries=0),
            github_api_url=server.base_url,
            wayback_url=server.base_url,
        )
        report, _ = run_verify(claims, config, online=ONLINE)
    (result,) = report.results
    assert result.verdict is Verdict.VERIFIED, result.reason
    store = Store(config.snapshots_dir)
    latest = store.latest(result.snapshot.key) if result.snapshot else None
    assert latest is not None
    stored = (store.folder(latest.key) / latest.file).read_bytes()
    assert quote.encode("utf-8") in stored  # stored as UTF-8
