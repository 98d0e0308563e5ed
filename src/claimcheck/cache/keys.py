"""The one key scheme of the derived caches in `snapshots/.cache/`, and the one switch.

Everything in the cache folder is derived from the store and the claim files and may
be deleted at any time: a run without it derives everything again and gives the same
answers. Every cache (the pages read, the verdicts, the lines a quote stands on, the
citations, the claims a claim file gave) names and keeps its entries the same way:

- **What goes into a key.** The digest of the inputs the answer is derived from
  (`entry_key`), and a version: the digest of the code that derives it
  (`code_version`: the source of its modules and the installed versions of the
  libraries it relies on) together with `FORMAT`, the shape of the entries. A change
  of the inputs, of the code or of the format meets no older entry.
- **One hash.** SHA-256, over the inputs as a JSON array (orjson's bytes; `repr` for a
  text JSON cannot carry, such as a lone surrogate: one starts with `[`, the other
  with `(`, so the two never meet). A page is found by the SHA-256 of its body, the
  digest the store already knows it by.
- **One folder, two shapes of file.** Small answers of one kind are one JSON document
  each, `<kind>.json` (`{"version": ..., "<field>": {key: answer}}`, `kept.Kept`); a
  page, large, is a file of its own, `pages/<version>/<aa>/<sha256>.<medium>.json`
  (`pages.Pages`). The folder holds its own `.gitignore` and `.made-here`, which binds
  it to the folder it was made in (`cache_made_here`): a cache committed or copied
  from elsewhere is read as empty and cleared before anything is kept in it.
- **One write.** By rename (`write_entry`), without an fsync: a lost write only costs
  the next run some work. A read-only checkout writes nothing and still answers.
- **A damaged entry is a miss.** An entry that cannot be read or decoded (a kill while
  writing, a hand edit, random bytes) is treated as absent (`load_entry`): derived
  again, never an error and never an answer.
- **One switch.** `CLAIMCHECK_NO_CACHE` set to anything but empty or `0` bypasses every
  cache: nothing is read from the folder and nothing written to it (`cache_folder`
  gives None). The answers are the same; only the time differs.

The scheduler's record of its last run (`store.state`) lives in the same folder under
the same trust rule, but is no cache: the switch leaves it alone.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import shutil
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, TypeVar

import orjson

from claimcheck.errors import StoreError
from claimcheck.store.files import atomic_write, read_store_file

if TYPE_CHECKING:
    from _hashlib import HASH

CACHE_FOLDER = ".cache"
"""The cache's folder inside the snapshots folder."""

MADE_HERE = ".made-here"
"""The file that binds a cache to the folder it was made in (`cache_made_here`)."""

NO_CACHE = "CLAIMCHECK_NO_CACHE"
"""The environment variable that bypasses every cache (`caches_off`)."""

FORMAT = "2"
"""The shape of the entries: part of every version, so changing it misses every older
entry."""

_GITIGNORE = "# Derived by claimcheck from the snapshots; never committed.\n*\n"

_T = TypeVar("_T")

DAMAGED = (OSError, StoreError, ValueError, TypeError, KeyError, IndexError, AttributeError)
"""What reading or decoding a damaged or absent entry raises: each is a miss."""


def caches_off() -> bool:
    """Whether `CLAIMCHECK_NO_CACHE` bypasses every cache (set, and not empty or `0`)."""
    return os.environ.get(NO_CACHE, "") not in ("", "0")


def cache_folder(snapshots: Path | None) -> Path | None:
    """Where the caches of a snapshots folder live; None for none (no store, or the
    caches switched off): a cache given None reads nothing and writes nothing."""
    if snapshots is None or caches_off():
        return None
    return snapshots / CACHE_FOLDER


def code_version(modules: Iterable[ModuleType], libraries: Iterable[str] = ()) -> str:
    """The version of some kept answers: a digest of `FORMAT`, the source files of the
    modules that derive them (every `*.py` of a package) and the installed versions of
    the libraries they rely on.

    Computed from the files rather than kept as a number to bump by hand: any change to
    the code makes every older answer unreachable.
    """
    digest = hashlib.sha256(f"format {FORMAT}\0".encode())
    for file in _source_files(modules):
        digest.update(file.name.encode())
        digest.update(file.read_bytes())
    for library in libraries:
        try:
            digest.update(f"{library}={importlib.metadata.version(library)}".encode())
        except importlib.metadata.PackageNotFoundError:
            digest.update(f"{library}=none".encode())
    return digest.hexdigest()[:16]


def _source_files(modules: Iterable[ModuleType]) -> list[Path]:
    files: list[Path] = []
    for module in modules:
        source = Path(module.__file__ or "")
        is_package = hasattr(module, "__path__")
        files += sorted(source.parent.glob("*.py")) if is_package else [source]
    return files


def entry_digest(*terms: str | None) -> HASH:
    """The SHA-256 of a key's terms, open for more: a key made in steps (the part shared
    by many keys digested once, then copied and completed for each)."""
    try:
        encoded = orjson.dumps(terms)
    except orjson.JSONEncodeError:  # a text JSON cannot carry (a lone surrogate)
        encoded = repr(terms).encode("utf-8", "surrogatepass")
    return hashlib.sha256(encoded)


def entry_key(*terms: str | None) -> str:
    """The key of an entry: the SHA-256 of exactly the inputs it is derived from."""
    return entry_digest(*terms).hexdigest()


def load_entry(path: Path, decode: Callable[[bytes], _T]) -> _T | None:
    """The entry at `path` decoded, or None when it is absent or damaged: unreadable,
    not what `decode` takes (which raises one of `DAMAGED` for it)."""
    try:
        return decode(read_store_file(path))
    except DAMAGED:
        return None


def write_entry(path: Path, data: bytes) -> bool:
    """Write an entry by rename, without an fsync; False when it could not be written
    (a read-only checkout: the run still answers, and derives again next time)."""
    try:
        atomic_write(path, data, durable=False)
    except (OSError, StoreError):
        return False
    return True


def cache_made_here(snapshots: Path) -> bool:
    """Whether the store's `.cache` is one claimcheck made in this very folder.

    Everything in it is trusted as derived here: a kept verdict is taken without
    judging. But the folder is only ignored by git, not out of its reach: a pull
    request can commit a `.cache` (`git add -f`) whose kept verdicts say `verified`,
    and a CI gate's checkout would take them. So the cache names the folder it was
    made in, by device and inode, in `.made-here`; a checkout, a copy or an older
    claimcheck's cache makes a new folder with another inode, and is not trusted: it
    is read as empty, and cleared before anything is kept in it again.
    """
    cache = snapshots / CACHE_FOLDER
    try:
        folder = os.lstat(cache)
        marker = read_store_file(cache / MADE_HERE)
    except (OSError, StoreError):
        return False
    return stat.S_ISDIR(folder.st_mode) and marker == _identity(folder)


def _identity(folder: os.stat_result) -> bytes:
    return f"{folder.st_dev}:{folder.st_ino}\n".encode()


def prepare_cache(snapshots: Path) -> Path:
    """The store's cache folder, made here (`cache_made_here`), with the `.gitignore`
    that keeps it uncommitted; a cache not made here is cleared first."""
    cache = snapshots / CACHE_FOLDER
    if not cache_made_here(snapshots):
        if cache.is_symlink() or cache.is_file():
            cache.unlink()
        elif cache.is_dir():
            shutil.rmtree(cache)  # links inside are removed, never followed
        cache.mkdir(parents=True)
        atomic_write(cache / MADE_HERE, _identity(os.lstat(cache)), durable=False)
    ignore = cache / ".gitignore"
    if not ignore.exists():
        atomic_write(ignore, _GITIGNORE.encode("utf-8"), durable=False)
    return cache
