"""cache/kept.py: answers kept between runs, under one set of rules for every kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcheck.cache.kept import Kept


def test_an_answer_put_in_one_run_is_got_in_the_next(tmp_path: Path) -> None:
    first = Kept(tmp_path, "answers.json", "v1")
    first.put("a", [1, 2])
    first.save()

    again = Kept(tmp_path, "answers.json", "v1")

    assert again.get("a") == [1, 2]
    assert again.get("b") is None


def test_another_version_or_a_damaged_file_is_ignored(tmp_path: Path) -> None:
    first = Kept(tmp_path, "answers.json", "v1")
    first.put("a", "x")
    first.save()
    assert Kept(tmp_path, "answers.json", "v2").get("a") is None
    (tmp_path / ".cache" / "answers.json").write_bytes(b"\xff{")
    assert Kept(tmp_path, "answers.json", "v1").get("a") is None


def test_a_run_that_met_nothing_new_writes_nothing(tmp_path: Path) -> None:
    first = Kept(tmp_path, "answers.json", "v1")
    first.put("a", 1)
    first.save()
    path = tmp_path / ".cache" / "answers.json"
    before = path.stat().st_mtime_ns
    path.touch()
    touched = path.stat().st_mtime_ns

    again = Kept(tmp_path, "answers.json", "v1")
    assert again.get("a") == 1
    again.save()

    assert path.stat().st_mtime_ns == touched
    assert touched >= before


@pytest.mark.parametrize("asked", [0, 3])
def test_answers_not_asked_for_are_dropped_in_time(tmp_path: Path, asked: int) -> None:
    first = Kept(tmp_path, "answers.json", "v1")
    for n in range(10):
        first.put(f"old-{n}", n)
    first.save()

    run = Kept(tmp_path, "answers.json", "v1")
    for n in range(asked):
        assert run.get(f"old-{n}") == n
    run.put("new", "y")
    run.save()
    left = Kept(tmp_path, "answers.json", "v1")

    kept = [f"old-{n}" for n in range(10) if left.get(f"old-{n}") is not None]
    assert left.get("new") == "y"
    used = asked + 1  # the answers this run took or put
    assert len(kept) == 2 * used - 1  # the file holds them and as many again, "new" one of them
    assert all(f"old-{n}" in kept for n in range(asked))


def test_without_a_store_nothing_is_written(tmp_path: Path) -> None:
    kept = Kept(None, "answers.json", "v1")
    kept.put("a", 1)
    kept.save()
    assert kept.get("a") == 1  # this run's own answer
    assert Kept(None, "answers.json", "v1").get("a") is None  # the next run's: none
    assert list(tmp_path.iterdir()) == []


def test_an_answer_put_in_a_run_is_found_in_the_same_run(tmp_path: Path) -> None:
    # A run keeps a quote's lines while it judges, and finds them when it cites.
    kept = Kept(tmp_path, "answers.json", "v1")
    assert kept.get("a") is None
    kept.put("a", [3, 4])
    assert kept.get("a") == [3, 4]
    kept.save()
    assert Kept(tmp_path, "answers.json", "v1").get("a") == [3, 4]
