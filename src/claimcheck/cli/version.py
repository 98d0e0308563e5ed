"""The line `claimcheck --version` prints, for the quick path and the typer app alike."""

from __future__ import annotations


def version_line() -> str:
    """What `claimcheck --version` prints."""
    from importlib.metadata import version

    return f"claimcheck {version('claimcheck-desk')}"
