"""`verify --changed-since REF`: the claims a change since REF can have changed the verdict of.

A pull request's gate judges only what the pull request touched. Git says which files
changed: those of the commits since REF (`git diff REF...HEAD`, from where the branch
left REF, as a pull request's diff is shown), plus the work tree's uncommitted changes
and untracked files, so a run before committing sees what the commit will hold. A
rename counts as a change of both names (`--no-renames`).

A claim is selected when its claim file or article changed, when a file of a stored
snapshot of one of its sources changed (the store's folder of the source's key), or
when the config file changed (then every claim, since any setting can change a verdict).
Each selected claim keeps the first reason found, in that order, for the report.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from claimcheck.errors import UsageError
from claimcheck.forges.resolve import source_ref
from claimcheck.store.store import Store
from claimcheck.untrusted import clean_text, markdown_code

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.models import Claim

log = logging.getLogger(__name__)

_HINT = "--changed-since takes a commit git knows (a branch, tag or hash, e.g. origin/main)"


_SNAPSHOT = "snapshot changed"


@dataclass(frozen=True)
class Selected:
    """A claim chosen for the run, and why: the file or source whose change chose it."""

    claim: Claim
    what: str
    """The claim file or article, the config file, or the source's snapshot key: an
    untrusted name, cleaned or escaped wherever it is shown."""
    why: str
    """`changed` (a file) or `snapshot changed` (a source)."""

    @property
    def reason(self) -> str:
        """`claims/a.yaml (changed)`, `github.com/o/r/README (snapshot changed)`."""
        return f"{clean_text(self.what)} ({self.why})"


@dataclass(frozen=True)
class ChangedClaims:
    """The claims `--changed-since` chose, out of how many, since which ref."""

    ref: str
    selected: list[Selected]
    total: int

    @property
    def claims(self) -> list[Claim]:
        """The chosen claims, in the order they were read."""
        return [s.claim for s in self.selected]

    def line(self) -> str:
        """What was judged and why, in one line for stderr."""
        ref = clean_text(self.ref)
        if not self.selected:
            return f"judging 0 of {self.total} claims: nothing they rest on changed since {ref}"
        counts = Counter((s.why, s.reason) for s in self.selected)
        why = ", ".join(
            f"{n} {'on' if kind == _SNAPSHOT else 'in'} {reason}"
            for (kind, reason), n in counts.items()
        )
        return f"judging {len(self.selected)} of {self.total} claims changed since {ref}: {why}"

    def markdown(self) -> str:
        """A job summary's section: how many claims were judged, and each one's reason."""
        head = [
            "## Claims changed since " + markdown_code(self.ref),
            "",
            f"Judged {len(self.selected)} of {self.total} claims: "
            + (
                "those whose claim file or article, config or source's stored snapshot changed."
                if self.selected
                else "nothing they rest on changed."
            ),
            "",
        ]
        if not self.selected:
            return "\n".join(head) + "\n"
        rows = [
            f"| {markdown_code(s.claim.id)} | {markdown_code(s.what)} {s.why} |"
            for s in self.selected
        ]
        return "\n".join([*head, "| Claim | Why it was judged |", "|---|---|", *rows, "", ""])


def select_changed(claims: list[Claim], ref: str, config: Config) -> ChangedClaims:
    """The claims of `claims` that a change since `ref` (a commit git knows) may concern.

    Raises a usage error when `ref` is not a commit, starts with `-` (it would be read
    as an option), the project is not in a git work tree, or git is not installed.
    """
    changed = changed_files(ref, Path(os.path.abspath(config.root)))
    config_file = config.project.config if config.project else None
    if config_file is not None and _real(config_file) in changed:
        name = config.report_path(config_file)
        picked = [Selected(c, name, "changed") for c in claims]
        return ChangedClaims(ref, picked, len(claims))
    store = Store.of(config)
    snapshots = _real(config.snapshots_dir)
    # Every folder of the store holding a changed file: a source's folder is among them
    # when a file of its snapshots changed, however deep (one set lookup a claim).
    in_store = {
        folder
        for p in changed
        if p.is_relative_to(snapshots)
        for folder in p.parents
        if folder.is_relative_to(snapshots) and folder != snapshots
    }
    changed_names = {
        name for name in {c.file for c in claims} if _real(config.local_path(name)) in changed
    }
    picked = []
    for claim in claims:
        found = _reason(claim, changed_names, in_store, store, config)
        if found is not None:
            picked.append(found)
    for one in picked:
        log.info("judging %s: %s", clean_text(one.claim.id), one.reason)
    return ChangedClaims(ref, picked, len(claims))


def _reason(
    claim: Claim, changed: set[str], in_store: set[Path], store: Store, config: Config
) -> Selected | None:
    """The claim and why it is selected (its file is among the `changed` claim files and
    articles, or a source's snapshot folder is among the store's folders `in_store` that
    hold a changed file), or None when nothing it rests on changed."""
    if claim.file in changed:
        return Selected(claim, claim.file, "changed")
    if not in_store:
        return None
    for view in claim.views():
        if view.source is None:
            continue
        key = source_ref(view.source, config).key
        if _real(store.folder(key)) in in_store:
            return Selected(claim, key, _SNAPSHOT)
    return None


def changed_files(ref: str, folder: Path) -> set[Path]:
    """Every file of `folder`'s git work tree changed since `ref`: committed since the
    branch left it, uncommitted, or untracked; absolute, symlinks resolved."""
    if not ref or ref.startswith("-"):
        raise UsageError(f"--changed-since {clean_text(ref)!r} is not a git ref", hint=_HINT)
    not_a_repository = UsageError(
        f"--changed-since: {clean_text(str(folder))} is not in a git repository",
        hint="run it in a clone of the project",
    )
    top = _git(folder, "rev-parse", "--show-toplevel", failed=lambda _: not_a_repository)
    top_dir = Path(top.strip())
    no_commit = UsageError(f"--changed-since: no commit {clean_text(ref)!r}", hint=_HINT)
    _git(
        top_dir, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", failed=lambda _: no_commit
    )
    names: list[str] = []
    for args in (
        ("diff", "--name-only", "--no-renames", "-z", f"{ref}...HEAD", "--"),
        ("diff", "--name-only", "--no-renames", "-z", "HEAD", "--"),
        ("ls-files", "--others", "--exclude-standard", "-z"),
    ):
        names += [n for n in _git(top_dir, *args, failed=_not_listed).split("\0") if n]
    return {_real(top_dir / name) for name in names}


def _not_listed(problem: str) -> UsageError:
    """git could not list the changed files: most often a shallow clone."""
    return UsageError(
        f"--changed-since: could not list changed files: {problem}",
        hint="a shallow clone lacks the commits since REF: fetch them "
        "(`git fetch --unshallow`, or `fetch-depth: 0` with actions/checkout)",
    )


def _git(folder: Path, *args: str, failed: Callable[[str], UsageError]) -> str:
    """git's output of `args` run in `folder`; when git fails, the usage error `failed`
    makes of what git said."""
    git = shutil.which("git")
    if git is None:
        raise UsageError(
            "--changed-since asks git what changed, and git is not installed",
            hint="install git, or run verify without --changed-since",
        )
    done = subprocess.run(  # noqa: S603 - fixed git arguments, no shell; the ref is checked
        [git, "-C", str(folder), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        said = [line for line in done.stderr.strip().splitlines() if line]
        raise failed(clean_text(said[0]) if said else f"git exited {done.returncode}")
    return done.stdout


def _real(path: Path) -> Path:
    """The path absolute with symlinks resolved, as git's top folder is given."""
    return Path(os.path.realpath(path))
