"""Claim files and articles read into claims: the first stage of every run.

Files are read whole (a huge or non-UTF-8 file refused before parsing), claim files
parsed together (`parse.parse_claims`), articles for their highlight links
(`article.parse_article`), and every problem of every file reported at once, in the
files' order. What each claim file gave is kept in the snapshots folder's cache between
runs (`cache.kept`), so an unchanged file is not parsed again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path

import claimcheck.claims
from claimcheck import models
from claimcheck.cache.kept import Kept
from claimcheck.cache.keys import code_version
from claimcheck.claims.article import (
    ArticleError,
    article_media,
    article_too_large,
    not_utf8_article,
    parse_article,
)
from claimcheck.claims.parse import file_too_large, parse_claims
from claimcheck.claims.problems import not_utf8_problem
from claimcheck.claims.yaml_values import ReadDocument
from claimcheck.errors import ClaimFileError
from claimcheck.models import Claim, MediaType
from claimcheck.utf8 import NotUtf8Error, decode_utf8

CLAIMS_FILE = "claims.json"
"""Where the claims of claim files read without a problem are kept between runs."""


def _kept_claims(snapshots: Path | None, *, create: bool) -> Kept | None:
    if snapshots is None or not (create or snapshots.is_dir()):
        return None  # a run without a store (lint in a new folder) writes nothing
    return Kept(snapshots, CLAIMS_FILE, _claims_version())


@functools.cache
def _claims_version() -> str:
    """A digest of everything that decides what a claim file gives besides its text."""
    return code_version((claimcheck.claims, models), ("pydantic", "pyyaml"))


def claim_files(paths: Sequence[Path]) -> list[Path]:
    """The claim files named: files as given, folders as their *.yaml / *.yml files.

    A file named `*.md` / `*.markdown` / `*.html` / `*.htm` is an article, read for its
    highlight links (`claims.article`); folders are never searched for articles.
    """
    files: list[Path] = []
    problems: list[str] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted([*path.glob("*.yaml"), *path.glob("*.yml")]))
        elif path.is_file():
            files.append(path)
        else:
            problems.append(f"{path}: no such claim file or folder")
    if problems:
        raise ClaimFileError(problems)
    return files


def load_claims(
    paths: Sequence[Path],
    *,
    read: ReadDocument,
    kept_in: Path | None = None,
    create: bool = False,
    defer: Callable[[Callable[[], None]], None] | None = None,
) -> list[Claim]:
    """Read claim files and articles (folders mean their *.yaml / *.yml files) and parse them.

    `read` reads a file's YAML (`yaml_read.read_document`), given by the caller so that
    a run whose claim files are all kept imports no YAML library (`cli.support` gives
    it so that the library is imported when a text is first read).

    The claims come in the files' order; an id is unique across claim files and
    articles alike. `kept_in`, the snapshots folder, keeps what each claim file gave
    (`parse_claims`'s `kept`) in its `.cache`, for the next run to take while the file
    is unchanged: when the folder exists, or with `create` (a run that makes the store
    anyway), once every file, claim file and article, has been read without a problem
    and there are claims: a run refused for its input writes nothing. `defer` takes
    that write, to do it once the command's input is accepted (`cli.guard.once_accepted`).
    """
    files = claim_files(paths)
    unreadable: dict[str, str] = {}
    texts: list[tuple[str, str]] = []
    articles: list[tuple[str, str, MediaType]] = []
    for path in files:
        name = path.as_posix()
        media = article_media(name)
        try:
            # A huge file is refused before it is read into memory at all.
            size = path.stat().st_size
            too_large = (
                file_too_large(name, size) if media is None else article_too_large(name, size)
            )
            if too_large is not None:
                unreadable[name] = too_large
                continue
            text = decode_utf8(path.read_bytes())
        except NotUtf8Error as exc:
            unreadable[name] = (
                not_utf8_problem(name, exc) if media is None else not_utf8_article(name, exc)
            )
            continue
        except OSError as exc:
            unreadable[name] = f"{path}:1: cannot read: {exc}"
            continue
        if media is None:
            texts.append((name, text))
        else:
            articles.append((name, text, media))
    problems: list[str] = []
    claims: list[Claim] = []
    in_claim_files = False  # a problem in a claim file: its hint is the claim files'
    kept = _kept_claims(kept_in, create=create)
    try:
        claims = parse_claims(texts, read=read, kept=kept)
    except ClaimFileError as exc:
        problems.extend(exc.problems)
        in_claim_files = True
    seen = {claim.id: f"{claim.file}:{claim.line}" for claim in claims}
    for name, text, media in articles:
        try:
            found = parse_article(name, text, media, read=read)
        except ClaimFileError as exc:
            problems.extend(exc.problems)
            continue
        for claim in found:
            first = seen.setdefault(claim.id, f"{claim.file}:{claim.line}")
            if first != f"{claim.file}:{claim.line}":
                problems.append(
                    f"{claim.file}:{claim.line}: claim {claim.id!r}: id: duplicate id, first "
                    f"defined at {first}"
                )
                continue
            claims.append(claim)
    if problems or unreadable:
        # Every problem at once: an unreadable file does not hide the others'. Only
        # articles' problems: the hint says how an article is read, not the schema.
        in_claim_files = in_claim_files or any(article_media(n) is None for n in unreadable)
        error = ClaimFileError if in_claim_files else ArticleError
        raise error(_in_file_order(files, unreadable, problems))
    if kept is not None and claims:  # a refused run (no claims is one) writes nothing
        (defer or _now)(kept.save)
    if not articles:
        return claims
    order = {path.as_posix(): index for index, path in enumerate(files)}
    return sorted(claims, key=lambda claim: order.get(claim.file, len(order)))


def _now(write: Callable[[], None]) -> None:
    write()


def _in_file_order(
    files: Sequence[Path], unreadable: dict[str, str], parsed: list[str]
) -> list[str]:
    """The problems of unreadable files among the parser's, each file's at its place."""
    names = [path.as_posix() for path in files]

    def file_of(problem: str) -> int:
        owners = [i for i, name in enumerate(names) if problem.startswith(f"{name}:")]
        return max(owners, key=lambda i: len(names[i])) if owners else len(names)

    ordered = sorted(parsed, key=file_of)  # stable: the parser's order within a file
    for name, problem in unreadable.items():
        ordered.insert(sum(1 for p in ordered if file_of(p) < names.index(name)), problem)
    return ordered
