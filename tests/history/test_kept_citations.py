"""Citations kept from run to run: taken only for exactly the inputs they were made from.

The oracle is a citation made with no kept answers at all (a store without its
`.cache`); a kept citation must equal it, and every input a citation is made from —
the version the store knows the body is, the README's path, the quote, where the
source moved to — must make it afresh when it changes.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from claimcheck.config import Config
from claimcheck.forges.resolve import resolve_source
from claimcheck.history.citations import CITATIONS_FILE, Citer
from claimcheck.models import ClaimResult, MediaType, Snapshot, Verdict
from claimcheck.store.store import FETCHED, Store
from support.claim_results import result

WHEN = dt.datetime(2026, 11, 20, 3, 0, tzinfo=dt.UTC)
URL = "https://github.com/owner-a/engine"
BODY = "# A\n\nIntro.\n\n- Supports CUDA graphs\n- Runs on Metal\n"
QUOTES = ("Supports CUDA graphs", "Runs on Metal")


def stored(root: Path, origin: str = "commit " + "1" * 40) -> Snapshot:
    store = Store(root)
    key = resolve_source(URL).key
    snapshot = store.save(
        key=key, url=URL, final_url=URL, status=200, body=BODY.encode(),
        media=MediaType.MARKDOWN, fetched_at=WHEN, origin=origin,
    )  # fmt: skip
    store.note_history(key, URL, readme_path="README.md")
    return snapshot


def results(snapshot: Snapshot, **fields: object) -> list[ClaimResult]:
    return [
        result(f"c{n}", Verdict.VERIFIED, source=URL, quote=quote, snapshot=snapshot, **fields)
        for n, quote in enumerate(QUOTES)
    ]


class Counting(Citer):
    """A citer that counts the citations it makes afresh."""

    made = 0

    def _made(self, *args: object, **kwargs: object) -> object:  # type: ignore[override]
        Counting.made += 1
        return super()._made(*args, **kwargs)  # type: ignore[arg-type]


def cite(root: Path, these: list[ClaimResult]) -> tuple[list[ClaimResult], int]:
    """The results cited by a new citer on the store at `root`, and how many were made."""
    Counting.made = 0
    citer = Counting(Store(root), Config(root=root, snapshots="."))
    cited = citer.cite_all(list(these))
    citer.save()
    return cited, Counting.made


def fresh(root: Path, these: list[ClaimResult], tmp_path: Path) -> list[ClaimResult]:
    """The oracle: the same results cited on a copy of the store with nothing kept."""
    copy = tmp_path / "oracle"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".cache"))
    cited, made = cite(copy, these)
    assert made == len(these)
    return cited


def test_a_second_run_takes_every_citation_and_each_is_the_one_made_afresh(
    tmp_path: Path,
) -> None:
    root = tmp_path / "snapshots"
    these = results(stored(root))
    first, made = cite(root, these)
    assert made == len(these)
    again, made = cite(root, these)
    assert made == 0
    assert again == first == fresh(root, these, tmp_path)
    assert all(r.citation is not None and r.citation.lines for r in again)


def test_a_version_learnt_since_makes_the_citation_afresh(tmp_path: Path) -> None:
    root = tmp_path / "snapshots"
    snapshot = stored(root, origin=FETCHED)
    these = results(snapshot)
    first, _ = cite(root, these)
    assert all(r.citation is not None and r.citation.permalink is None for r in first)
    Store(root).note_origin(snapshot.key, URL, snapshot.sha256, "commit " + "2" * 40)
    again, made = cite(root, these)
    assert made == len(these)
    assert again == fresh(root, these, tmp_path)
    assert all(r.citation is not None and "2222" in (r.citation.permalink or "") for r in again)


def test_another_readme_path_makes_the_permalink_afresh(tmp_path: Path) -> None:
    root = tmp_path / "snapshots"
    snapshot = stored(root)
    these = results(snapshot)
    cite(root, these)
    Store(root).note_history(snapshot.key, URL, readme_path="docs/README.md")
    again, made = cite(root, these)
    assert made == len(these)
    assert all("docs/README.md" in (r.citation.permalink or "") for r in again if r.citation)
    assert again == fresh(root, these, tmp_path)


@pytest.mark.parametrize(
    "change",
    [
        {"quote": "Runs on Metal"},  # another quote on the same page
        {"moved_to": "https://github.com/owner-b/engine"},  # the repository moved
    ],
    ids=["quote", "moved"],
)
def test_another_claim_or_move_is_cited_afresh(tmp_path: Path, change: dict[str, str]) -> None:
    root = tmp_path / "snapshots"
    snapshot = stored(root)
    cite(root, results(snapshot)[:1])
    quote = change.get("quote", QUOTES[0])
    moved = {"moved_to": change["moved_to"]} if "moved_to" in change else {}
    other = [result("c0", Verdict.VERIFIED, source=URL, quote=quote, snapshot=snapshot, **moved)]
    again, made = cite(root, other)
    assert made == 1
    assert again == fresh(root, other, tmp_path)


def test_a_kept_answer_that_is_no_citation_is_made_again(tmp_path: Path) -> None:
    root = tmp_path / "snapshots"
    these = results(stored(root))
    first, _ = cite(root, these)
    path = root / ".cache" / CITATIONS_FILE
    document = json.loads(path.read_text())
    document["answers"] = {key: {"live": 5, "lines": "x"} for key in document["answers"]}
    path.write_text(json.dumps(document))
    again, made = cite(root, these)
    assert made == len(these)
    assert again == first
