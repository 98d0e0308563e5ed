"""The caches' one key scheme (`cache/keys.py`): one hash over the inputs, a version that
moves with the code and the format, and a damaged entry read as a miss.

Every cache that keeps entries on disk is checked here through its own public door
(`Kept`, `Pages`) on real files; the expected pages come from `read_page`, which keeps
nothing.
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimcheck.cache import keys
from claimcheck.cache.kept import Kept
from claimcheck.cache.keys import CACHE_FOLDER, MADE_HERE, NO_CACHE, entry_key
from claimcheck.cache.page_json import page_document
from claimcheck.cache.pages import Pages
from claimcheck.judge import units
from claimcheck.judge.units import read_page
from claimcheck.models import MediaType
from support import paths

README = "# Tool\n\n## Install\n\nRun `pip install tool`.\n\n- Works on CPUs.\n- Works on GPUs.\n"
OTHER = "# Other\n\nText.\n"


def test_a_key_is_the_digest_of_its_terms_whatever_text_they_hold() -> None:
    """Keys hash the terms' JSON; a text JSON cannot carry (a lone surrogate, which claim
    files refuse but a key must not crash on) is hashed by its repr, a form that starts
    with another character, so no JSON-hashed key can equal it."""
    plain = ("https://github.com/o/r", None, "a quote", "ü")
    assert entry_key(*plain) == hashlib.sha256(orjson.dumps(plain)).hexdigest()
    odd = ("https://github.com/o/r", None, "a \ud800 quote")
    assert entry_key(*odd) == hashlib.sha256(repr(odd).encode("utf-8", "surrogatepass")).hexdigest()
    assert entry_key(*odd) != entry_key("https://github.com/o/r", None, "a  quote")
    assert len({entry_key(*t) for t in [("a", None), ("a", "None"), ("a",), (None, "a")]}) == 4


@given(st.lists(st.one_of(st.none(), st.text()), max_size=4), st.text(min_size=1))
def test_a_key_made_in_steps_is_the_key_of_its_parts(terms: list[str | None], more: str) -> None:
    """The verdicts' keys share a digest per source and complete a copy per claim: the
    copy completed is the digest of the shared part followed by the rest, and two
    different rests never give one key."""
    shared = keys.entry_digest(*terms)
    one, two = shared.copy(), shared.copy()
    one.update(more.encode("utf-8", "surrogatepass"))
    two.update((more + "x").encode("utf-8", "surrogatepass"))
    assert one.hexdigest() != two.hexdigest()
    assert shared.hexdigest() == entry_key(*terms)


def test_a_change_of_format_misses_every_older_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The format is part of every version, so a document kept under another format's
    version is ignored: an older claimcheck's cache is never read."""
    before = keys.code_version((units,), ("orjson",))
    snapshots = tmp_path / "snapshots"
    keeper = Kept(snapshots, "answers.json", before)
    keeper.put("k", {"verdict": "verified"})
    keeper.save()
    assert Kept(snapshots, "answers.json", before).get("k") == {"verdict": "verified"}

    monkeypatch.setattr(keys, "FORMAT", str(int(keys.FORMAT) + 1))
    after = keys.code_version((units,), ("orjson",))
    assert after != before
    assert len(after) == len(before) == 16
    assert Kept(snapshots, "answers.json", after).get("k") is None


def _cache_files(snapshots: Path, *, marker: bool) -> list[Path]:
    return [
        path
        for path in sorted((snapshots / CACHE_FOLDER).rglob("*"))
        if path.is_file() and (marker or path.name != MADE_HERE)
    ]


@settings(max_examples=25)
@given(st.binary(max_size=64), st.booleans())
def test_a_damaged_kept_document_is_a_miss_and_is_written_again(
    tmp_path_factory: pytest.TempPathFactory, damage: bytes, marker: bool
) -> None:
    """Random bytes in the document (and, or not, in the marker that binds the cache to
    its folder) read as no answer at all, never as an error; the next save keeps the
    answers again, and they are read back."""
    snapshots = tmp_path_factory.mktemp("kept") / "snapshots"
    keeper = Kept(snapshots, "answers.json", "v1")
    keeper.put("k", {"verdict": "missing"})
    keeper.save()
    for path in _cache_files(snapshots, marker=marker):
        path.write_bytes(damage)
    damaged = Kept(snapshots, "answers.json", "v1")
    assert damaged.get("k") is None
    damaged.put("k", {"verdict": "missing"})
    damaged.save()
    assert Kept(snapshots, "answers.json", "v1").get("k") == {"verdict": "missing"}


@settings(max_examples=25)
@given(st.binary(max_size=64), st.booleans())
def test_a_damaged_page_entry_is_read_again_from_the_body(
    tmp_path_factory: pytest.TempPathFactory, damage: bytes, marker: bool
) -> None:
    """A kept page overwritten with random bytes gives the page read from the body, as
    `read_page` reads it, and is kept again."""
    snapshots = tmp_path_factory.mktemp("pages") / "snapshots"
    digest = hashlib.sha256(README.encode()).hexdigest()
    expected = page_document(read_page(README, MediaType.MARKDOWN))
    first = Pages(snapshots, jobs=0)
    first.stored(digest, MediaType.MARKDOWN, lambda: README)
    assert first.written == 1
    for path in _cache_files(snapshots, marker=marker):
        path.write_bytes(damage)
    again = Pages(snapshots, jobs=0)
    page = again.stored(digest, MediaType.MARKDOWN, lambda: README)
    assert page_document(page) == expected
    assert (again.read, again.written) == (1, 1)
    warm = Pages(snapshots, jobs=0)
    assert page_document(warm.stored(digest, MediaType.MARKDOWN, lambda: "not read")) == expected
    assert warm.read == 0


def test_the_switch_reads_and_writes_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With `CLAIMCHECK_NO_CACHE`, neither kind of cache reads what is kept nor keeps
    anything; `0` or empty leaves the caches on."""
    snapshots = tmp_path / "snapshots"
    digest = hashlib.sha256(README.encode()).hexdigest()
    keeper = Kept(snapshots, "answers.json", "v1")
    keeper.put("k", 1)
    keeper.save()
    Pages(snapshots, jobs=0).stored(digest, MediaType.MARKDOWN, lambda: README)
    kept_before = {p: p.read_bytes() for p in _cache_files(snapshots, marker=True)}

    for off in ("1", "yes"):
        monkeypatch.setenv(NO_CACHE, off)
        assert keys.caches_off()
        bypassing = Kept(snapshots, "answers.json", "v1")
        assert bypassing.get("k") is None
        bypassing.put("other", 2)
        bypassing.save()
        pages = Pages(snapshots, jobs=0)
        pages.stored(digest, MediaType.MARKDOWN, lambda: README)
        other = hashlib.sha256(OTHER.encode()).hexdigest()
        pages.stored(other, MediaType.MARKDOWN, lambda: OTHER)
        assert (pages.read, pages.written) == (2, 0)
        after = {p: p.read_bytes() for p in _cache_files(snapshots, marker=True)}
        assert after == kept_before

    for on in ("0", ""):
        monkeypatch.setenv(NO_CACHE, on)
        assert not keys.caches_off()
        assert Kept(snapshots, "answers.json", "v1").get("k") == 1


CACHE_PACKAGE = paths.ROOT / "src" / "claimcheck" / "cache"


@pytest.mark.parametrize("path", sorted(CACHE_PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_every_cache_reads_and_writes_through_the_one_scheme(path: Path) -> None:
    """No cache module imports inside a function, and only `keys.py` writes or reads a
    cache file itself: every other one goes through `write_entry` and `load_entry`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imports = (ast.Import, ast.ImportFrom)
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            found = [n for n in ast.walk(function) if isinstance(n, imports)]
            assert not found, f"{path.name}: {function.name} imports inside a function"
    if path.name == "keys.py":
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "claimcheck.store.files":
            names = {alias.name for alias in node.names}
            assert not names & {"atomic_write", "read_store_file"}, path.name


@given(st.text(), st.text(), st.text())
def test_the_claims_cache_keys_a_file_by_the_one_scheme(name: str, text: str, other: str) -> None:
    """A claim file's kept claims are keyed like every other entry: by its name and text."""
    assert Kept.key(name, text) == entry_key(name, text)
    if other != text:
        assert Kept.key(name, other) != Kept.key(name, text)
