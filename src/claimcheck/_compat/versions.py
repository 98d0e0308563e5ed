"""The installed version of a dependency, and whether a patch of its internals fits it.

A patch of a private part is written against the releases it was read from; a later
release may move or change that part. The version is read from the installed
distribution's metadata (`importlib.metadata`), not from the module, so a check costs
no import.
"""

from __future__ import annotations

import re
from importlib import metadata

from claimcheck.errors import ClaimcheckError

Release = tuple[int, ...]

_RELEASE = re.compile(r"\d+(?:\.\d+)*")


class UnsupportedVersionError(ClaimcheckError):
    """An installed dependency is outside the range a patch of its internals needs."""


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


def spelled(low: Release, high: Release) -> str:
    """A range as pip writes it: `>=1.0,<1.1`."""
    return f">={'.'.join(map(str, low))},<{'.'.join(map(str, high))}"


def require(distribution: str, low: Release, high: Release, needed_for: str) -> None:
    """Raise `UnsupportedVersionError` unless the installed `distribution` is in range."""
    if supported(distribution, low, high):
        return
    release = installed(distribution)
    found = "not installed" if release is None else ".".join(map(str, release)) + " is installed"
    raise UnsupportedVersionError(
        f"{needed_for} needs {distribution}{spelled(low, high)}; {distribution} {found}",
        hint=f"install a supported release: pip install '{distribution}{spelled(low, high)}'",
    )
