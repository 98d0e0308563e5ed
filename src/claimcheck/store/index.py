"""A source folder's index (`index.json`): written from its versions, read back within
the store's rules (an object of the right shape, body files named plainly in their own
folder), any other content a `StoreError` naming the file."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
from pydantic import ValidationError

from claimcheck.errors import StoreError
from claimcheck.json_text import invalid_because
from claimcheck.models import Snapshot
from claimcheck.store.files import RESTORE_HINT, read_store_file

INDEX = "index.json"
_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")

Index = tuple[str, list[Snapshot], dict[str, str], dict[str, str]]
"""An index as read: its URL, versions, history notes and body origins."""


def index_document(
    url: str,
    versions: list[Snapshot],
    history: dict[str, str] | None,
    origins: dict[str, str] | None,
) -> dict[str, object]:
    """The index of a source's folder: its URL, its versions, and its history notes and
    body origins when it has any."""
    document: dict[str, object] = {
        "url": url,
        "versions": [
            s.model_dump(
                mode="json",
                # a version fetched live has no vouched days: its entry is as before
                exclude={"key", "url"} | ({"vouched_until"} if s.vouched_until is None else set()),
                exclude_defaults=False,
            )
            for s in versions
        ],
    }
    if history:
        document["history"] = history
    if origins:
        document["origins"] = dict(sorted(origins.items()))
    return document


def read_index(path: Path, key: str) -> Index | None:
    """The URL, versions, history notes and body origins of the index at `path`, the
    index of `key`'s folder; None when there is none."""
    try:
        raw = read_store_file(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        document = orjson.loads(raw)  # its error is a ValueError, as json's is
        if not isinstance(document, dict):
            raise TypeError(f"the file holds a JSON {type(document).__name__}, not an object")
        url = document["url"]
        if not isinstance(url, str):
            raise TypeError(f"url is {type(url).__name__}, not a string")
        entries = document["versions"]
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise TypeError("versions is not a list of objects")
        versions = [Snapshot.model_validate({**entry, "key": key, "url": url}) for entry in entries]
        history = document.get("history", {})
        origins = document.get("origins", {})
        for name, notes in (("history", history), ("origins", origins)):
            if not isinstance(notes, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in notes.items()
            ):
                raise TypeError(f"{name} is not an object of strings")
    except (ValueError, KeyError, TypeError, ValidationError) as exc:
        problem = f"{path} is not a valid snapshot index: {invalid_because(exc)}"
        raise StoreError(problem, hint=RESTORE_HINT) from exc
    for snapshot in versions:
        if not is_plain_file_name(snapshot.file):
            raise StoreError(
                f"{path}: version of {snapshot.fetched_at.isoformat()} names the file "
                f"{snapshot.file!r}, which is not a file name in its folder",
                hint=RESTORE_HINT,
            )
    return url, sorted(versions, key=lambda s: s.fetched_at), history, origins


def is_plain_file_name(name: str) -> bool:
    """A body file's name: one plain name in its folder (no path, no dot file, no index)."""
    return bool(_FILE_NAME.fullmatch(name)) and name != INDEX
