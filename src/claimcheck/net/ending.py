"""How a fetched body's end is known: told by the protocol, agreed by two answers, or not.

HTTP/1 ends a body by its Content-Length, by its last chunk, or else by closing the
connection. httpx checks the first two (a body short of its length is an error), but a
closed connection looks the same whether the server finished or the connection
dropped mid-body. A body that ended so is asked for once more (`net.fetch`): two
identical answers are the page as the server sends it; a second that differs or fails
leaves the end unknown, and the plausibility gate (`net.plausible`) weighs such a
body as possibly cut short. Most servers tell the length, so the second request is
rare.
"""

from __future__ import annotations

from enum import StrEnum


class Ending(StrEnum):
    """How the end of a fetched body is known."""

    TOLD = "told"  # a Content-Length, the last chunk, or a protocol that frames bodies
    AGREED = "agreed"  # ended by a closed connection, and a second answer was the same
    UNTOLD = "untold"  # ended by a closed connection, and no second answer agreed
