"""A network namespace of its own for the rendering browsers, where the machine allows it.

A rendering browser must reach nothing but the guarded proxy. Flags and a script that
removes WebRTC close the ways known today; a network namespace closes every way at
once: in a namespace that holds only a loopback interface, the one thing listening is
the proxy (whose sockets are made inside it), so no packet of a page (TCP, UDP, a
multicast) can go anywhere else, and no other process of the machine can connect to
the proxy: it takes only its own browser.

It is made without a helper program: a thread of ours moves itself into a new network
namespace (`unshare(CLONE_NEWNET)`, which on Linux applies to the calling thread
alone), brings its loopback up, and keeps a descriptor of the namespace. Every socket
that thread creates lives in the namespace, and every process it spawns starts in it.
Later sockets and launches are made the same way, by a short thread that enters the
namespace (`setns`) first. The process itself never leaves the namespace it was in.

Making a namespace takes `CAP_SYS_ADMIN` (root, or a container that grants it). Where
it is refused, or where there is no Linux to ask, `Isolation.start` says so and the
browser runs in the machine's network behind the flags and the script alone.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import socket
import struct
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

_CLONE_NEWNET = 0x40000000
_SIOCGIFFLAGS = 0x8913
_SIOCSIFFLAGS = 0x8914
_IFF_UP = 0x1
_IFREQ = "16sH14s"

T = TypeVar("T")


class Isolation:
    """A network namespace holding only loopback, or, where none can be made, none.

    `start` makes it (once); `listener` gives a listening TCP socket on 127.0.0.1 inside
    it; `spawn` starts a process in it; `close` lets it go (the kernel removes it once
    no process and no socket of it is left).
    """

    def __init__(self) -> None:
        self._fd: int | None = None
        self._tried = False
        self._lock = threading.Lock()
        self.refusal = ""

    def start(self) -> bool:
        """Make the namespace, the first time asked; whether there is one. `refusal`
        says why not."""
        with self._lock:
            if not self._tried:
                self._tried = True
                self._fd, self.refusal = _in_thread(_new_namespace)
            return self._fd is not None

    def listener(self) -> socket.socket | None:
        """A TCP socket listening on 127.0.0.1 (a free port) inside the namespace; None
        without one (the caller listens on the machine's loopback). A namespace that
        can no longer be entered is given up: the browsers started after run in the
        machine's network, behind the other means, and `refusal` says why."""
        fd = self._fd
        if fd is None:
            return None

        def make() -> socket.socket:
            _enter(fd)
            return socket.create_server(("127.0.0.1", 0))

        try:
            return _in_thread(make)
        except OSError as exc:
            with self._lock:
                if self._fd == fd:
                    self._fd = None
                    self.refusal = f"the network namespace could not be entered: {exc}"
            with contextlib.suppress(OSError):
                os.close(fd)
            return None

    def spawn(self, spawn: Callable[[], T]) -> T:
        """Call `spawn` (which starts a process) in a thread inside the namespace, so
        that the process starts in it; as is, without one."""
        fd = self._fd
        if fd is None:
            return spawn()

        def inside() -> T:
            _enter(fd)
            return spawn()

        return _in_thread(inside)

    def close(self) -> None:
        with self._lock:
            fd, self._fd = self._fd, None
            self._tried = False
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _new_namespace() -> tuple[int | None, str]:
    """In the calling thread: a new network namespace with loopback up, and a descriptor
    of it; or None and why not."""
    if not sys.platform.startswith("linux"):
        return None, "network namespaces are Linux's alone"
    try:
        libc = _libc()
        if libc.unshare(_CLONE_NEWNET) != 0:
            code = ctypes.get_errno()
            return None, f"unshare(CLONE_NEWNET) refused: {os.strerror(code)}"
        _loopback_up()
        return os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC), ""
    except (OSError, AttributeError) as exc:
        return None, f"no network namespace: {exc}"


def _loopback_up() -> None:
    """Bring up the loopback interface of the calling thread's namespace."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        asked = struct.pack(_IFREQ, b"lo", 0, b"")
        flags = struct.unpack(_IFREQ, fcntl.ioctl(probe, _SIOCGIFFLAGS, asked))[1]
        fcntl.ioctl(probe, _SIOCSIFFLAGS, struct.pack(_IFREQ, b"lo", flags | _IFF_UP, b""))


def _enter(fd: int) -> None:
    """Move the calling thread into the namespace `fd`."""
    if _libc().setns(fd, _CLONE_NEWNET) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"setns refused: {os.strerror(code)}")


def _in_thread(work: Callable[[], T]) -> T:
    """`work()` in a thread of its own, which ends after it: a thread that entered a
    namespace is never reused for anything else."""
    result: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            result.append(work())
        except BaseException as exc:  # handed to the caller's thread
            failed.append(exc)

    thread = threading.Thread(target=run, name="claimcheck-netns", daemon=True)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]
    return result[0]
