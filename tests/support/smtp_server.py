"""A tiny SMTP server on 127.0.0.1 that keeps the mails it is sent, for Apprise's
`mailto://`: just enough of RFC 5321 (EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, QUIT),
no TLS, no authentication, standard library only."""

from __future__ import annotations

import email
import email.policy
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage


@dataclass
class Mailbox:
    """The mails taken, each with its envelope recipients; the port it listens on."""

    port: int = 0
    mails: list[tuple[list[str], EmailMessage]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, to: str) -> str:
        """The Apprise URL that mails `to` through this server, in plain SMTP."""
        return f"mailto://127.0.0.1:{self.port}?from=desk@example.org&to={to}&smtp=127.0.0.1"

    def take_all(self) -> list[tuple[list[str], EmailMessage]]:
        with self.lock:
            taken, self.mails = self.mails, []
        return taken


class _Session(socketserver.StreamRequestHandler):
    mailbox: Mailbox

    def _say(self, line: str) -> None:
        self.wfile.write(line.encode("ascii") + b"\r\n")
        self.wfile.flush()

    def handle(self) -> None:
        self._say("220 127.0.0.1 test SMTP")
        recipients: list[str] = []
        while True:
            raw = self.rfile.readline()
            if not raw:
                return
            command = raw.decode("ascii", "replace").strip()
            verb = command.split(" ", 1)[0].upper()
            if verb == "EHLO":
                self._say("250-127.0.0.1")
                self._say("250 8BITMIME")
            elif verb in ("HELO", "NOOP", "MAIL"):
                self._say("250 OK")
            elif verb == "RSET":
                recipients = []
                self._say("250 OK")
            elif verb == "RCPT":
                recipients.append(command.split(":", 1)[1].strip().strip("<>"))
                self._say("250 OK")
            elif verb == "DATA":
                self._say("354 end with <CRLF>.<CRLF>")
                lines = []
                while (line := self.rfile.readline()) not in (b".\r\n", b".\n", b""):
                    lines.append(line[1:] if line.startswith(b"..") else line)
                message = email.message_from_bytes(b"".join(lines), policy=email.policy.default)
                assert isinstance(message, EmailMessage)
                with self.mailbox.lock:
                    self.mailbox.mails.append((recipients, message))
                recipients = []
                self._say("250 OK queued")
            elif verb == "QUIT":
                self._say("221 bye")
                return
            else:
                self._say("502 not implemented")


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


@contextmanager
def smtp_mailbox() -> Iterator[Mailbox]:
    """The SMTP server for the block."""
    mailbox = Mailbox()
    handler = type("Session", (_Session,), {"mailbox": mailbox})
    server = _Server(("127.0.0.1", 0), handler)
    mailbox.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield mailbox
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
