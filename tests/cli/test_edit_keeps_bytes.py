"""`accept` and `add` change only what they edit: a file's line ends, BOM and mode stay.

The real CLI over real files: an article and a claim file resting on llama.cpp's README
history (tests/data/corpus), whose README of 2026-07-31 no longer has the server line
the claims quote and has `NEW_QUOTE` instead. Each expected file is the original's bytes
with only the edited bytes replaced, written out by hand here.
"""

from __future__ import annotations

import datetime as dt
import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from claimcheck.cli.app import app
from claimcheck.store.store import Store
from support.corpus_snapshots import CORPUS, import_history, versions
from support.replay_server import ReplayServer

LLAMA = "https://github.com/ggml-org/llama.cpp"
SERVER = "A lightweight, OpenAI API compatible, HTTP server for serving LLMs"
NEW_QUOTE = "Visit https://llama.app and follow the instructions"  # new on 2026-07-31
OLD = "A%20lightweight%2C%20OpenAI%20API%20compatible%2C%20HTTP%20server%20for%20serving%20LLMs"
NEW = "Visit%20https://llama.app%20and%20follow%20the%20instructions"
PLAIN = "Plain%20C/C%2B%2B%20implementation%20without%20any%20dependencies"
BOM = b"\xef\xbb\xbf"
runner = CliRunner()


def run(*args: str) -> Result:
    return runner.invoke(app, list(args), catch_exceptions=False)


def show(result: Result) -> str:
    return f"exit {result.exit_code}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"


def today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose store holds llama.cpp's README history up to 2026-07-31."""
    (tmp_path / "claims").mkdir()
    (tmp_path / "claimcheck.toml").write_text("[verdict]\nmax_age_days = 0\n")
    store = Store(tmp_path / "snapshots")
    through = dt.date(2026, 7, 31)
    stored = [v for v in versions(CORPUS / "ggml-org__llama.cpp") if v.committed.date() <= through]
    snapshot = import_history(store, stored, through=through)[-1]
    store.note_history(snapshot.key, snapshot.url, readme_path="README.md")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def article_lines(end: list[str]) -> list[bytes]:
    """The article's lines, each ended as `end` says (cycled); the link is on line 9."""
    lines = [
        "---",
        "page: engines",
        "checked: 2026-06-30",
        "---",
        "",
        "# Engines",
        "",
        f"llama.cpp is a [plain C/C++ implementation]({LLAMA}#:~:text={PLAIN}).",
        f"It serves models [over HTTP]({LLAMA}#:~:text={OLD})<!-- claim: server -->.",
        "",
        "That is all.",
    ]
    return [(line + end[i % len(end)]).encode() for i, line in enumerate(lines)]


# Line ends: CRLF, mixed (CRLF, LF and a lone CR), without a final line end, with a BOM.
ARTICLES = {
    "crlf": b"".join(article_lines(["\r\n"])),
    "mixed": b"".join(article_lines(["\r\n", "\n", "\r\n", "\r", "\n"])),
    "no-final-end": b"".join(article_lines(["\r\n"])).removesuffix(b"\r\n"),
    "bom": BOM + b"".join(article_lines(["\r\n", "\n"])),
}


HTML_LINES = [
    '<html><head><meta name="claimcheck:checked" content="2026-06-30"></head><body>',
    f'<p>It serves models <a href="{LLAMA}#:~:text={OLD}">over HTTP</a>.</p>',
    "</body></html>",
]


def test_accept_in_a_crlf_html_article_replaces_only_the_links_bytes(site: Path) -> None:
    original = "".join(line + "\r\n" for line in HTML_LINES).encode()
    article = site / "engines.html"
    article.write_bytes(original)
    article.chmod(0o600)
    listed = run("list", "engines.html")
    assert listed.exit_code == 0, show(listed)
    (claim_id,) = [line.split()[0] for line in listed.stdout.splitlines()[1:]]

    result = run("accept", claim_id, "engines.html", "--quote", NEW_QUOTE)

    assert result.exit_code == 0, show(result)
    assert article.read_bytes() == original.replace(OLD.encode(), NEW.encode())
    assert mode(article) == 0o600


@pytest.mark.parametrize("name", list(ARTICLES))
def test_accept_in_an_article_replaces_only_the_links_bytes_and_keeps_its_mode(
    site: Path, name: str
) -> None:
    original = ARTICLES[name]
    article = site / "engines.md"
    article.write_bytes(original)
    article.chmod(0o600)

    result = run("accept", "server", "engines.md", "--quote", NEW_QUOTE)

    assert result.exit_code == 0, show(result)
    assert original.count(OLD.encode()) == 1
    assert article.read_bytes() == original.replace(OLD.encode(), NEW.encode())
    assert mode(article) == 0o600
    verified = run("verify", "--offline", "engines.md")
    assert verified.exit_code == 0, show(verified)


CLAIM_FILE = f"""\
# The engines page's claims.
page: engines
checked: 2026-06-30
claims:
  - id: server
    claim: llama.cpp ships an HTTP server
    source: {LLAMA}
    quote: "{SERVER}"   # the server line

  - id: plain
    claim: llama.cpp has no dependencies
    source: {LLAMA}
    quote: Plain C/C++ implementation without any dependencies
"""


@pytest.mark.parametrize(
    ("name", "nl", "head"), [("crlf", "\r\n", b""), ("bom-crlf", "\r\n", BOM), ("lf", "\n", b"")]
)
def test_accept_in_a_claim_file_keeps_its_line_ends_bom_and_mode(
    site: Path, name: str, nl: str, head: bytes
) -> None:
    path = site / "claims" / "engines.yaml"
    original = head + CLAIM_FILE.replace("\n", nl).encode()
    path.write_bytes(original)
    path.chmod(0o600)

    result = run("accept", "server", "--quote", NEW_QUOTE)

    assert result.exit_code == 0, show(result)
    # The quote line changes (its comment stays); the claim's own check date is added
    # after its last key, ended as the file's lines are.
    old_line = f'    quote: "{SERVER}"   # the server line{nl}'
    new_lines = f'    quote: "{NEW_QUOTE}"   # the server line{nl}    checked: {today()}{nl}'
    assert original.count(old_line.encode()) == 1
    assert path.read_bytes() == original.replace(old_line.encode(), new_lines.encode())
    assert mode(path) == 0o600


def test_add_to_a_crlf_claim_file_writes_crlf_lines_and_keeps_its_mode(
    site: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    path = site / "claims" / "engines.yaml"
    original = CLAIM_FILE.replace("\n", "\r\n").encode()
    path.write_bytes(original)
    path.chmod(0o640)
    quote = "Plain C/C++ implementation without any dependencies"

    result = run(
        "add", LLAMA, "--quote", quote, "--claim", "It is plain C", "--id", "c", "--page", "engines"
    )

    assert result.exit_code == 0, show(result)
    # In the file's styles (plain, as its last claim writes them), after a blank line.
    added = (
        f"\r\n  - id: c\r\n    claim: It is plain C\r\n    source: {LLAMA}\r\n"
        f"    quote: {quote}\r\n    checked: {today()}\r\n"
    )
    assert path.read_bytes() == original + added.encode()
    assert mode(path) == 0o640


def test_a_claim_files_owner_and_group_stay(site: Path) -> None:
    """Root gives the new file the old one's owner; a user one of their other groups
    (with no other group, the file is theirs and stays so)."""
    groups = [g for g in os.getgroups() if g != os.getgid()]
    if os.geteuid() == 0:
        owner = (65534, 65534)
    else:
        owner = (os.getuid(), groups[0] if groups else os.getgid())
    path = site / "claims" / "engines.yaml"
    path.write_text(CLAIM_FILE, encoding="utf-8")
    os.chown(path, *owner)

    result = run("accept", "server", "--quote", NEW_QUOTE)

    assert result.exit_code == 0, show(result)
    assert NEW_QUOTE in path.read_text(encoding="utf-8")
    assert (path.stat().st_uid, path.stat().st_gid) == owner
