"""How a count is said in a line for a person: "1 claim", "2 claims", "1 new snapshot".

One function, so that every summary line (verify's, snapshot's, lint's, the nightly
commit's) agrees with its number.
"""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`count` and the noun in the number it needs; `plural` where adding "s" is wrong."""
    return f"{count} {noun if count == 1 else (plural or noun + 's')}"
