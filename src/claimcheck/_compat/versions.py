"""The installed version of a dependency, and whether a patch of its internals fits it.

A patch of a private part is written against the releases it was read from; a later
release may move or change that part. The version is read from the installed
distribution's metadata (`importlib.metadata`), not from the module, so a check costs
no import.
"""

from __future__ import annotations

import re
from importlib import metadata

Release = tuple[int, ...]

_RELEASE = re.compile(r"\d+(?:\.\d+)*")


def installed(distribution: str) -> Release | None:
    """The release numbers of `distribution` as installed (`1.0.9` is (1, 0, 9)), or
    None when it is not installed or its version does not start with a number."""
    try:
        text = metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None
    found = _RELEASE.match(text)
    return tuple(int(part) for part in found.group().split(".")) if found else None


def supported(distribution: str, low: Release, high: Release) -> bool:
    """Whether the installed `distribution` is at least `low` and below `high`."""
    release = installed(distribution)
    return release is not None and low <= release < high
