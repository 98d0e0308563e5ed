"""A hostile page that tries WebRTC at listeners of ours, rendered, and what reached them.

The page asks for an `RTCPeerConnection` (from its window, or from a fresh frame's)
with STUN and TURN servers aimed only at a UDP and a TCP listener on 127.0.0.1, opens
a data channel and an offer so that ICE gathers, and writes what it found into its DOM.
An image that takes `HOLD` seconds keeps the page loading meanwhile. The listeners
count every datagram and connection: a render must leave both at zero.

With loopback alone Chromium gathers no WebRTC candidate, so `main` (run as
`python -m support.webrtc_probe` under `unshare -n`) first gives its own network
namespace loopback plus a veth pair carrying the default route, whose far end is in
another namespace it makes (`unshare -n sleep`): no packet can leave the machine, and
WebRTC left in the page would send its STUN datagrams to the UDP listener. It prints
the result as JSON. Where `strace` is present the browser runs under it too, and every
network call it made with an internet address is listed: a datagram sent (`sendto`,
`sendmsg`, `sendmmsg`) or a connection to anything but 127.0.0.1 is an escape.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from claimcheck.net.addresses import AddressPolicy
from claimcheck.render.render import Rendered, render_page
from support.local_http import RecordingServer, running, send_answer

HOLD = 2.0
"""Seconds the page's image keeps it loading: time for ICE to gather and send."""

PAGE = """<!doctype html>
<html><head><title>probe</title></head><body>
<p id="said">nothing ran</p>
<img src="/hold.png" alt="">
<script>
const said = [];
const names = ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel",
  "RTCIceCandidate", "RTCSessionDescription"];
for (const name of names) said.push(name + "=" + typeof window[name]);
const frame = document.createElement("iframe");
document.body.appendChild(frame);
const fromFrame = frame.contentWindow && frame.contentWindow.RTCPeerConnection;
said.push("frame=" + typeof fromFrame);
const Made = window.RTCPeerConnection || window.webkitRTCPeerConnection || fromFrame;
try {
  const connection = new Made({iceServers: [
    {urls: "stun:127.0.0.1:{UDP}"},
    {urls: ["turn:127.0.0.1:{UDP}?transport=udp", "turn:127.0.0.1:{TCP}?transport=tcp"],
     username: "u", credential: "p"},
  ]});
  connection.createDataChannel("probe");
  connection.createOffer().then((offer) => connection.setLocalDescription(offer));
  said.push("connection=made");
} catch (error) {
  said.push("connection=failed");
}
document.getElementById("said").textContent = said.join(" ");
</script>
</body></html>
"""


@dataclass
class Probe:
    """What a render of the hostile page left: the page's own words, and the datagrams
    and connections that reached the listeners."""

    said: str
    datagrams: int
    connections: int
    escapes: list[str] | None = None


class _Listeners:
    """A UDP and a TCP listener on 127.0.0.1 that count what reaches them."""

    def __init__(self) -> None:
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.datagrams = 0
        self.connections = 0
        for target in (self._count_udp, self._count_tcp):
            threading.Thread(target=target, daemon=True).start()

    def _count_udp(self) -> None:
        while True:
            try:
                self.udp.recv(65_536)
            except OSError:
                return
            self.datagrams += 1

    def _count_tcp(self) -> None:
        while True:
            try:
                connection, _ = self.tcp.accept()
            except OSError:
                return
            self.connections += 1
            connection.close()

    def close(self) -> None:
        self.udp.close()
        self.tcp.close()


class _Site(RecordingServer):
    def __init__(self, page: bytes) -> None:
        super().__init__(("127.0.0.1", 0), _Handler, [])
        self.page = page


class _Handler(BaseHTTPRequestHandler):
    server: _Site

    def log_message(self, *_args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/hold.png":
            time.sleep(HOLD)
            send_answer(self, 404, {"Content-Type": "text/plain"}, b"no image")
            return
        send_answer(self, 200, {"Content-Type": "text/html; charset=utf-8"}, self.server.page)


@contextmanager
def _served(page: bytes) -> Iterator[int]:
    """The hostile page served on 127.0.0.1 for a `with` block; its port."""
    with running(_Site(page)) as site:
        yield site.server_address[1]


def probe(browser: str, *, isolate: bool) -> Probe:
    """Render the hostile page and count what reached the listeners."""
    listeners = _Listeners()
    udp = listeners.udp.getsockname()[1]
    tcp = listeners.tcp.getsockname()[1]
    page = PAGE.replace("{UDP}", str(udp)).replace("{TCP}", str(tcp)).encode()
    try:
        with _served(page) as port:
            outcome = render_page(
                f"http://127.0.0.1:{port}/probe.html",
                policy=AddressPolicy.parse([f"127.0.0.1:{port}"]),
                timeout=30,
                max_bytes=1_000_000,
                browser=browser,
                isolate=isolate,
            )
            time.sleep(0.5)  # a straggling packet still counts
    finally:
        listeners.close()
    assert isinstance(outcome, Rendered), outcome
    text = outcome.dom.decode("utf-8")
    said = text.split('<p id="said">', 1)[1].split("</p>", 1)[0]
    return Probe(said, listeners.datagrams, listeners.connections)


def _veth() -> subprocess.Popen[bytes]:
    """Loopback up, and a veth pair carrying the default route to a namespace of its
    own (held by the process returned); IPv6 off."""
    far = subprocess.Popen(["unshare", "-n", "sleep", "300"])
    time.sleep(0.2)
    commands = [
        ["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"],
        ["sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1"],
        ["ip", "link", "set", "lo", "up"],
        ["ip", "link", "add", "ccnear", "type", "veth", "peer", "name", "ccfar"],
        ["ip", "link", "set", "ccfar", "netns", str(far.pid)],
        ["ip", "addr", "add", "10.213.0.1/24", "dev", "ccnear"],
        ["ip", "link", "set", "ccnear", "up"],
        ["nsenter", f"--net=/proc/{far.pid}/ns/net", "ip", "link", "set", "ccfar", "up"],
        ["ip", "route", "add", "default", "via", "10.213.0.2"],
    ]
    for command in commands:
        subprocess.run(command, check=True, capture_output=True)
    return far


_SENT = re.compile(r"\b(sendto|sendmsg|sendmmsg)\(.*sa_family=AF_INET6?\b")
_CONNECTED = re.compile(r"\bconnect\(\d+, \{sa_family=AF_INET\b(?!.*inet_addr\(\"127\.0\.0\.1\"\))")


def escapes(trace: str) -> list[str]:
    """The lines of an strace log of the browser that sent a datagram to an internet
    address, or connected to an IPv4 address other than 127.0.0.1 (the proxies').
    A UDP `connect` sends nothing (Chromium's IPv6 probe makes one), so IPv6 connects
    are left to the datagram rule."""
    return [line for line in trace.splitlines() if _SENT.search(line) or _CONNECTED.search(line)]


def main() -> None:
    """Under `unshare -n`: the veth pair, then the probe (under strace where present);
    its result as JSON."""
    browser, isolate = sys.argv[1], sys.argv[2] == "isolate"
    far = _veth()
    strace = shutil.which("strace")
    folder = tempfile.mkdtemp(prefix="webrtc-probe-")
    log = os.path.join(folder, "trace")
    if strace is not None:
        wrapper = os.path.join(folder, "chromium")
        with open(wrapper, "w", encoding="utf-8") as script:
            script.write(
                f"#!/bin/sh\nexec {strace} -f -qq -e trace=connect,sendto,sendmsg,sendmmsg"
                f' -o {log} {browser} "$@"\n'
            )
        os.chmod(wrapper, 0o700)
        browser = wrapper
    try:
        found = probe(browser, isolate=isolate)
        if strace is not None:
            with open(log, encoding="utf-8", errors="replace") as trace:
                found.escapes = escapes(trace.read())
    finally:
        far.kill()
        far.wait()
        shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(asdict(found)))
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
