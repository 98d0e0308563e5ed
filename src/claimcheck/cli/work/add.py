"""What `claimcheck add` does: find the quote on the source now, then write the claim."""

from __future__ import annotations

import datetime as dt
import re
import shlex
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from claimcheck.claims.edit import derive_id, insert_claim, new_claim_file, write_claim_file
from claimcheck.claims.fragment import FragmentError, split_text_fragment
from claimcheck.claims.lint import find_occurrences, propose_context
from claimcheck.claims.load import load_claims
from claimcheck.claims.parse import parse_claims
from claimcheck.claims.problems import not_utf8_problem
from claimcheck.claims.yaml_read import read_document
from claimcheck.cli.lazy import archive_hook
from claimcheck.cli.project import build_config
from claimcheck.cli.verbosity import err
from claimcheck.cli.work.editing import ANCHOR_KEYS, describe_snapshot
from claimcheck.errors import ClaimFileError, UsageError
from claimcheck.judge.verdict import Observed, Thresholds, judge_claim
from claimcheck.models import Anchor, ExitCode, Verdict
from claimcheck.observe.online import fetch_sources
from claimcheck.observe.stored import with_pages
from claimcheck.store.lock import writing
from claimcheck.store.store import Store
from claimcheck.untrusted import clean_text, shorten
from claimcheck.utf8 import NotUtf8Error, decode_utf8

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.judge.verdict import SourceState
    from claimcheck.models import Claim, ClaimResult, Snapshot


def add(
    *,
    source: str,
    claim_text: str,
    page: str,
    quote: str | None,
    prefix: str | None,
    suffix: str | None,
    claim_id: str | None,
    config_path: Path | None,
    snapshots: Path | None,
) -> int:
    """The work of `claimcheck add`, given its parsed options: its exit code."""

    config = build_config(config_path, snapshots)
    now = dt.datetime.now(dt.UTC)
    base, anchor, given = _anchor_of(source, quote, prefix, suffix)
    _require_slug("--page", page)
    existing = _existing_claims(config)
    taken = {c.id: f"{c.file}:{c.line}" for c in existing}
    if claim_id is not None:
        _require_slug("--id", claim_id)
        if claim_id in taken:
            raise UsageError(
                f"id {claim_id!r} is already used at {taken[claim_id]}",
                hint="choose another --id, or leave it out to derive one",
            )
    new_id = claim_id or derive_id(page, claim_text, set(taken))
    target = _page_file(config, existing, page)
    name = target.as_posix()
    entry = {"id": new_id, "claim": claim_text, "source": base, "quote": anchor.quote}
    entry |= {k: v for k in ANCHOR_KEYS[1:] if (v := getattr(anchor, k)) is not None}
    today = now.date().isoformat()
    # The option each field of the claim came from, to say a problem with it as that.
    given |= {
        "id": "--id" if claim_id is not None else "the id derived from --page and --claim",
        "claim": "--claim",
    }

    def with_claim(text: str | None) -> tuple[str, Claim]:
        with _as_options(name, new_id, given):
            if text is None:
                new_text = new_claim_file(name, page, today, entry)
            else:
                new_text = insert_claim(name, text, entry | {"checked": today})
            claims = parse_claims([(name, new_text)], read=read_document)
        return new_text, next(c for c in claims if c.id == new_id)

    text = _read_claim_file(name, target)
    new_text, claim = with_claim(text)
    if claim.page != page:
        raise UsageError(f"{name} holds page {claim.page!r}, not {page!r}")
    with tempfile.TemporaryDirectory(prefix="claimcheck-add-") as probe:
        # Fetched into a scratch store: a refused claim leaves no snapshot behind.
        scratch = config.model_copy(update={"snapshots": str(Path(probe).resolve())})
        fetched = Store.of(scratch)
        states, _ = fetch_sources([claim], scratch, now=now, store=fetched)
        states = with_pages(fetched, [claim], states)
        state = states[base]
        thresholds = Thresholds(drift_min_score=config.verdict.drift_min_score)
        refused = _refusal(judge_claim(claim, state, thresholds), state)
        if refused:
            return refused
        assert isinstance(state, Observed)
        with writing(config, "add"):
            kept = _keep_snapshot(Store(scratch.snapshots_dir), state.snapshot, config)
    if (current := _read_claim_file(name, target)) != text:  # edited while fetching
        new_text, claim = with_claim(current)
    write_claim_file(target, new_text)
    typer.echo(f"added {clean_text(new_id)} to {clean_text(str(name))}:{claim.line}")
    typer.echo(f"  baseline: {describe_snapshot(kept, config)}")
    if "add" in config.archive.on:
        with writing(config, "add"):
            archive_hook()("add", [claim], config)
    return int(ExitCode.OK)


_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


# How many occurrences of an ambiguous quote `add` lists, each with its options.
_SHOWN = 5


def _anchor_of(
    source: str, quote: str | None, prefix: str | None, suffix: str | None
) -> tuple[str, Anchor, dict[str, str]]:
    """The source URL without its text fragment, the anchor from it or the options, and
    which argument gave each of the claim's source fields (see `_as_options`).

    An option given is taken as given, empty or not: the claim file's rules decide
    whether it can be a prefix, as they decide for `prefix: ""` in a file.
    """
    try:
        base, fragment = split_text_fragment(source.strip())
    except FragmentError as exc:
        raise UsageError(f"SOURCE: {exc}") from exc
    context = {k: v for k, v in (("prefix", prefix), ("suffix", suffix)) if v is not None}
    if fragment is not None and quote is not None:
        raise UsageError("SOURCE carries a text fragment: leave out --quote, or the fragment")
    if fragment is not None and context and (fragment.prefix or fragment.suffix):
        raise UsageError("SOURCE's text fragment has its own prefix/suffix")
    given = {"source": "SOURCE"}
    if fragment is not None:
        anchor = fragment
        given |= {k: f"SOURCE: the text fragment's {k}" for k in ANCHOR_KEYS}
    elif quote is not None:
        anchor = Anchor(quote=quote)
        given["quote"] = "--quote"
    else:
        raise UsageError("give --quote, or a SOURCE with a text fragment (#:~:text=...)")
    given |= {k: f"--{k}" for k in context}
    return base, anchor.model_copy(update=context), given


@contextmanager
def _as_options(name: str, claim_id: str, given: Mapping[str, str]) -> Iterator[None]:
    """Problems of a claim made from command-line arguments, said as the arguments.

    `add` checks its arguments by writing the claim they make into its claim file's
    text and parsing that, so they meet every rule a claim file does, in its words. The
    parser names the file and line of each problem, but the claim is not written there
    (nor may the file exist yet): a problem with one of the claim's fields is said as
    the argument that gave it (`--quote: must not be empty or whitespace only`); any
    other is about the file as it is, and keeps its place.
    """
    try:
        yield
    except ClaimFileError as exc:
        head = re.compile(rf"{re.escape(name)}:\d+: claim {re.escape(repr(claim_id))}: ([^:]+): ")
        said: list[str] = []
        for problem in exc.problems:
            found = head.match(problem)
            if found and found.group(1) in given:
                said.append(f"{given[found.group(1)]}: {problem[found.end() :]}")
            else:
                said.append(problem)
        if said == exc.problems:
            raise
        raise UsageError(
            "\n".join(said), hint="see `claimcheck add --help`", problems=said
        ) from None


def _require_slug(option: str, value: str) -> None:
    if not _SLUG.match(value):
        raise UsageError(f"{option} {value!r}: use letters, digits, '.', '_' and '-' only")


def _existing_claims(config: Config) -> list[Claim]:
    """Every claim of the config's claim files; none yet in a project without claims."""
    paths = [p for p in config.claim_paths if p.exists()]
    return load_claims(paths, read=read_document) if paths else []


def _page_file(config: Config, existing: list[Claim], page: str) -> Path:
    """The file that holds the page's claims, else PAGE.yaml in the first claim folder."""
    for claim in existing:
        if claim.page == page:
            return Path(claim.file)
    first = next((p for p in config.claim_paths if p.is_dir()), config.claim_paths[0])
    folder = first.parent if first.is_file() or first.suffix in (".yaml", ".yml") else first
    return folder / f"{page}.yaml"


def _read_claim_file(name: str, path: Path) -> str | None:
    try:
        return decode_utf8(path.read_bytes())
    except FileNotFoundError:
        return None
    except NotUtf8Error as exc:
        raise ClaimFileError([not_utf8_problem(name, exc)]) from exc
    except OSError as exc:
        raise ClaimFileError([f"{name}:1: cannot read: {exc}"]) from exc


def _refusal(result: ClaimResult, state: SourceState) -> int:
    """Why `add` refuses a claim, printed; 0 when the quote holds as given."""
    anchor = result.claim.anchor
    assert anchor is not None
    if result.verdict in (Verdict.VERIFIED, Verdict.MOVED):
        if result.occurrences > 1 and anchor.prefix is None and anchor.suffix is None:
            assert isinstance(state, Observed)
            err(f"error: the quote occurs {result.occurrences} times on the source")
            _print_proposals(anchor, state.text)
            return int(ExitCode.STALE)
        if result.moved_to:
            err(f"warning: the source moved permanently to {clean_text(result.moved_to)}")
        return int(ExitCode.OK)
    err(f"error: {clean_text(result.reason)}")
    if result.verdict is Verdict.UNREACHABLE:
        return int(ExitCode.UNCHECKED)
    if result.found is not None and result.score is not None and result.score < 100:
        err(f"closest text ({result.score:.0f}%): {clean_text(shorten(result.found, 300))}")
        if result.diff:
            err(f"diff: {clean_text(shorten(result.diff, 300))}")
    elif result.found is not None and isinstance(state, Observed):
        _print_proposals(anchor, state.text)
    return int(ExitCode.STALE)


def _print_proposals(anchor: Anchor, text: str) -> None:
    """Each occurrence of the quote with the --prefix/--suffix options that pick it."""
    spans = find_occurrences(anchor, text)
    err("pick the occurrence you mean and run the command again with its options:")
    for number, span in enumerate(spans[:_SHOWN], 1):
        proposal = propose_context(anchor, text, span)
        where = text[max(0, span[0] - 60) : span[1] + 60]
        if proposal is None:
            err(f"  {number}. no context of a few words picks it: …{clean_text(where)}…")
            continue
        options = " ".join(
            f"--{key} {shlex.quote(clean_text(value))}"
            for key, value in zip(("prefix", "suffix"), proposal, strict=True)
            if value
        )
        err(f"  {number}. {options}")
        err(f"     …{clean_text(where)}…")
    if len(spans) > _SHOWN:
        err(f"  … and {len(spans) - _SHOWN} more")


def _keep_snapshot(scratch: Store, snapshot: Snapshot, config: Config) -> Snapshot:
    """Store the fetched snapshot for good: the claim's baseline."""
    body = (scratch.folder(snapshot.key) / snapshot.file).read_bytes()
    return Store.of(config).save(
        key=snapshot.key,
        url=snapshot.url,
        final_url=snapshot.final_url,
        status=snapshot.status,
        body=body,
        media=snapshot.media,
        fetched_at=snapshot.fetched_at,
        etag=snapshot.etag,
        last_modified=snapshot.last_modified,
        origin=snapshot.origin,
    )
