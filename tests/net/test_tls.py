"""Sources over HTTPS: a TLS server on 127.0.0.1 with certificates from a test CA.

Every real source is fetched over TLS, and the connection guard connects to an address
it checked, never to the name (`net/guard.py`). What must still hold is that TLS
verifies the server's certificate against the URL's name. A name the test resolver
maps to 127.0.0.1 is served with a certificate for that name (fetched) or for another
name (refused, never judged); a certificate from a CA the fetcher does not trust is
refused too. The test CA is trusted the way an operator trusts a private one:
`SSL_CERT_FILE` (trustme makes the CA and its certificates).
"""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
import trustme

from claimcheck.net.fetch import Fetched, FetchFailed, FetchRequest
from claimcheck.net.fetcher import Fetcher, FetchSettings
from support.claim_files import claim, write_claims
from support.cli_runs import run, show
from support.local_http import RecordingServer, running, send_answer

NAME = "docs.example.test"
PAGE = b"<html><body><main><p>The engine supports 4-bit and 8-bit weights.</p></main></body></html>"


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        send_answer(self, 200, {"Content-Type": "text/html; charset=utf-8"}, PAGE)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read the fetch's outcome."""


@contextmanager
def serving_tls(certificate: trustme.LeafCert) -> Iterator[int]:
    """An HTTPS server on 127.0.0.1 presenting `certificate`, for the block: its port."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    certificate.configure_cert(context)
    server = RecordingServer(("127.0.0.1", 0), _Page, errors=[])
    server.socket = context.wrap_socket(server.socket, server_side=True)
    # A refused handshake is the client's doing, and what the tests want: not an error.
    server.handle_error = lambda request, address: None  # type: ignore[method-assign]
    with running(server):
        yield server.server_address[1]


@pytest.fixture
def ca(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> trustme.CA:
    """A test CA the fetcher trusts, as an operator trusts a private one."""
    authority = trustme.CA()
    bundle = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    return authority


async def _to_loopback(host: str, port: int) -> Sequence[str]:
    return ["127.0.0.1"]  # every name is this machine: the certificate decides


def _fetch(port: int) -> object:
    """The outcome of fetching the page by its name, retries allowed (and instant)."""
    settings = FetchSettings(allow_addresses=(NAME,), retries=3, per_host_interval=0)

    async def no_wait(seconds: float) -> None:
        return None

    async def go() -> object:
        async with Fetcher(settings, resolver=_to_loopback, sleep=no_wait) as fetcher:
            return await fetcher.fetch(FetchRequest(f"https://{NAME}:{port}/features"))

    return asyncio.run(go())


def test_a_certificate_for_the_urls_name_is_fetched(ca: trustme.CA) -> None:
    with serving_tls(ca.issue_cert(NAME)) as port:
        outcome = _fetch(port)

    assert isinstance(outcome, Fetched), outcome
    assert outcome.body == PAGE


def test_a_certificate_for_another_name_is_refused_though_the_address_is_allowed(
    ca: trustme.CA,
) -> None:
    """The guard connects to 127.0.0.1, the address it checked; TLS still checks the
    certificate against the URL's name, not against the address connected to."""
    with serving_tls(ca.issue_cert("other.example.test")) as port:
        outcome = _fetch(port)

    assert isinstance(outcome, FetchFailed), outcome
    assert outcome.reason == "its TLS certificate is for another host name"
    assert "SSL_CERT_FILE" in outcome.hint
    assert outcome.attempts == 1  # the same certificate would fail again: no retry


def test_a_certificate_from_an_untrusted_ca_is_refused(
    ca: trustme.CA, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE")  # the system's CAs only: they never signed it
    with serving_tls(ca.issue_cert(NAME)) as port:
        outcome = _fetch(port)

    assert isinstance(outcome, FetchFailed), outcome
    assert outcome.reason == "its TLS certificate is signed by an untrusted authority"
    assert outcome.attempts == 1


def test_verify_judges_an_https_source_and_never_one_it_cannot_trust(
    ca: trustme.CA, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the CLI, by this machine's address: the claim on the source whose
    certificate is for that address is verified; on a server whose certificate names
    another host, it is unreachable (exit 3), never stale, and the report says why."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claimcheck.toml").write_text(
        '[fetch]\nallow_addresses = ["127.0.0.1"]\nper_host_interval = 0\n'
    )
    quote = "The engine supports 4-bit and 8-bit weights."
    with (
        serving_tls(ca.issue_cert("127.0.0.1")) as good,
        serving_tls(ca.issue_cert("other.example.test")) as bad,
    ):
        write_claims(
            tmp_path / "claims",
            [
                claim("trusted", quote=quote, source=f"https://127.0.0.1:{good}/features"),
                claim("mismatched", quote=quote, source=f"https://127.0.0.1:{bad}/features"),
            ],
        )
        result = run("verify", "--format", "json", "--no-progress")

    assert result.exit_code == 3, show(result)
    verdicts = {r["id"]: r["verdict"] for r in json.loads(result.stdout)["results"]}
    assert verdicts == {"trusted": "verified", "mismatched": "unreachable"}
    reasons = {r["id"]: r["reason"] for r in json.loads(result.stdout)["results"]}
    assert "its TLS certificate is for another address" in reasons["mismatched"]
