"""The run lock of the snapshot folder, for a command that writes it."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING

from claimcheck.store.lock import acquire_lock

if TYPE_CHECKING:
    from claimcheck.config import Config


def writing(
    config: Config, command: str, *, offline: bool = False
) -> AbstractContextManager[object]:
    """The run lock of the snapshot folder for a command that writes it (none offline).

    `schedule` holds the same lock for its whole life, so a verify by hand never writes
    the store at the same moment as the nightly run.
    """
    if offline:
        return nullcontext()
    return acquire_lock(config.snapshots_dir, command)
