"""The editor's everyday commands: add, accept, lint, list and show.

`add` and `accept` are the only commands that write claim files, and they edit them
in place (edit.py) so the author's comments and layout survive. `accept`, `lint`,
`list` and `show` never use the network.
"""

from __future__ import annotations

import datetime as dt
import re
import shlex
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from claimcheck.cli.support import (
    VERDICT_NAMES,
    ConfigOpt,
    PartOpt,
    PathsArg,
    SnapshotsOpt,
    as_reported,
    build_config,
    claim_inputs,
    err,
    find_claim,
    guard,
    part_index,
    say,
    writing,
)
from claimcheck.cli.support import read_claims as read_config_claims
from claimcheck.errors import ClaimFileError, UsageError
from claimcheck.untrusted import clean_text, shorten

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.judge.verdict import SourceState
    from claimcheck.models import Anchor, Claim, ClaimResult, MediaType, Snapshot
    from claimcheck.store.store import Store

_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
# How many occurrences of an ambiguous quote `add` lists, each with its options.
_SHOWN = 5
_ANCHOR_KEYS = ("quote", "quote_end", "prefix", "suffix")


# What `list --verdict` filters on: a verdict, or no verdict yet. Built from the names
# of `Verdict` (a test holds them equal) so that a new verdict is a new choice here too.
_NEVER = "never-judged"
LAST_VERDICTS = (*VERDICT_NAMES, _NEVER)

IdArg = Annotated[str, typer.Argument(metavar="ID", help="The claim's id.", show_default=False)]


def register(app: typer.Typer) -> None:
    """Add the editor's commands to the claimcheck app."""
    app.command()(add)
    app.command()(accept)
    app.command()(lint)
    app.command("list")(list_claims)
    app.command()(show)


def add(
    source: Annotated[
        str,
        typer.Argument(
            metavar="SOURCE",
            help="The source URL; a text-fragment URL (#:~:text=...) as copied with "
            '"Copy link to highlight" carries the quote.',
            show_default=False,
        ),
    ],
    claim_text: Annotated[
        str,
        typer.Option("--claim", help="The statement as the page states it.", show_default=False),
    ],
    page: Annotated[
        str,
        typer.Option(
            "--page",
            help="Slug of the published page: the claim goes into the file holding that "
            "page, else into claims/PAGE.yaml.",
            show_default=False,
        ),
    ],
    quote: Annotated[
        str | None,
        typer.Option(
            "--quote",
            help="The supporting text as a reader sees it [default: the URL's text fragment].",
            show_default=False,
        ),
    ] = None,
    prefix: Annotated[
        str | None,
        typer.Option("--prefix", help="Text right before the quote, to pick one occurrence."),
    ] = None,
    suffix: Annotated[
        str | None,
        typer.Option("--suffix", help="Text right after the quote, to pick one occurrence."),
    ] = None,
    claim_id: Annotated[
        str | None,
        typer.Option(
            "--id", help="The claim's id [default: PAGE-words-of-the-claim, made unique]."
        ),
    ] = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Add a claim after checking that its quote is on the source now.

    Fetches the source, stores it as the claim's baseline snapshot and writes the
    claim into its page's claim file with `checked` set to today (UTC). A quote
    found more than once needs --prefix/--suffix: nothing is written, and each
    occurrence is listed with the options that pick it.

    Exit 0: added; 1: the quote is not on the source (the closest text is shown) or
    occurs more than once; 2: bad input (an argument a claim file would refuse, such
    as a blank --prefix, a duplicate id, a malformed claim file); 3: the source could
    not be fetched.
    """

    def work() -> int:
        import tempfile

        from claimcheck.claims.edit import (
            derive_id,
            insert_claim,
            new_claim_file,
            write_claim_file,
        )
        from claimcheck.claims.parse import parse_claims
        from claimcheck.claims.yaml_read import read_document
        from claimcheck.judge.verdict import Observed, Thresholds, judge_claim
        from claimcheck.models import ExitCode
        from claimcheck.observe.online import fetch_sources
        from claimcheck.observe.stored import with_pages
        from claimcheck.store.store import Store

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
        entry |= {k: v for k in _ANCHOR_KEYS[1:] if (v := getattr(anchor, k)) is not None}
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
        typer.echo(f"  baseline: {_describe_snapshot(kept, config)}")
        return int(ExitCode.OK)

    raise typer.Exit(guard(work))


def accept(
    claim_id: IdArg,
    paths: PathsArg = None,
    quote: Annotated[
        str | None,
        typer.Option(
            "--quote",
            help="The new quote, which must be in the latest snapshot exactly [default: "
            "the text closest to the old quote].",
            show_default=False,
        ),
    ] = None,
    span: Annotated[
        bool,
        typer.Option(
            "--span",
            help="Take only the part of the new text aligned with the old quote (widened "
            "to whole tokens), not the whole sentence, list item or table row.",
        ),
    ] = False,
    part: PartOpt = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Re-baseline a reviewed claim on the latest stored snapshot of its source.

    For a person who reviewed a drifted, context-changed or expired claim: the quote
    becomes the text that replaced it in the latest snapshot — the whole sentence,
    list item or table row (with --span, only its aligned part), or --quote; a quote
    that would cut a number, version or name is refused. Its
    prefix/suffix follow it or go when they no longer fit, and `checked` becomes
    today (UTC), so the claim's baseline moves to that snapshot. With --part (a claim
    on several sources) only that part's quote changes; `checked`, every part's
    baseline, stays. An absence claim (`absent`) is accepted the same way: its
    check date moves, unless the latest snapshot says one of its absent texts (then
    only an edit of the claim can help). A claim read from an article gets its link's
    text fragment rewritten in place, every other byte of the article kept. Never run
    by any other command; no network.

    Exit 0: accepted; 1: the new quote is not in the latest snapshot, or the source
    says what the claim says it does not; 2: unknown id, a claim without source, a
    --quote a claim file would refuse (blank, or with a control character), --quote
    or --span for an absence claim, or a range quote that changed (edit it by hand);
    3: no snapshot of the source is stored.
    """

    def work() -> int:
        from claimcheck.claims.edit import set_anchor, update_claim, write_claim_file
        from claimcheck.claims.field_checks import text_problem
        from claimcheck.claims.lint import NotRebased, absent_said, rebase_anchor
        from claimcheck.judge.verdict import Observed
        from claimcheck.models import ExitCode
        from claimcheck.observe.known import accept_as_found
        from claimcheck.observe.stored import observe_stored

        # A quote the claim file would refuse is bad input, not a quote the page lacks.
        problem = None if quote is None else text_problem(quote)
        if problem is not None:
            raise UsageError(f"--quote: {problem}")
        config = build_config(config_path, snapshots)
        found = find_claim(read_config_claims(paths, config), claim_id)
        index = part_index(found, "accept", part)
        claim = found if index is None else found.view(found.parts[index])
        from claimcheck.claims.article import article_media

        media = article_media(claim.file)
        if claim.source is None:
            raise UsageError(
                f"claim {claim_id!r} has no source (citation needed): nothing to accept"
            )
        if claim.anchor is None:
            _require_no_quote_options(claim_id, quote, span)
        states, _ = observe_stored([claim], config, pages=True)
        state = states[claim.source]
        if not isinstance(state, Observed):
            err(f"error: no snapshot of {clean_text(claim.source)} is stored")
            err("hint: run `claimcheck verify` (or `claimcheck snapshot`) first")
            return int(ExitCode.UNCHECKED)
        said = absent_said(claim, state)
        if said is not None:  # a new baseline cannot make it hold: a person must edit it
            err(f"error: cannot accept {claim_id!r}: {clean_text(said.reason)}")
            if said.found:
                err(f"it says: {clean_text(shorten(said.found, 300))}")
            err(
                "hint: accepting cannot make an absence claim the source contradicts hold: "
                "rewrite the claim (or its `absent` texts), or remove it"
            )
            return int(ExitCode.STALE)
        anchor = None
        if claim.anchor is not None:
            rebased = rebase_anchor(
                claim.anchor,
                state.text,
                new_quote=quote,
                min_score=config.verdict.drift_min_score,
                aligned_only=span,
            )
            if isinstance(rebased, NotRebased):
                err(f"error: cannot accept {claim_id!r}: {clean_text(rebased.reason)}")
                if rebased.usage:
                    err("hint: edit the claim's quote by hand, then accept it")
                    return int(ExitCode.BAD_INPUT)
                return int(ExitCode.STALE)
            anchor = rebased.anchor
        today = dt.datetime.now(dt.UTC).date()
        path = config.local_path(claim.file)  # claim.file is as reports show it
        text = path.read_text(encoding="utf-8")
        if media is not None and anchor is not None:  # an article's claims all quote
            code = _accept_in_article(claim, anchor, path, text, media, today)
            accept_as_found(claim, config)
            return code
        # A part's quote alone: the claim's check date is every part's baseline.
        checked = today.isoformat() if index is None else None
        if anchor is not None:
            new_text = set_anchor(claim.file, text, claim.id, anchor, checked, index)
        elif checked is not None:  # an absence claim: only its check date moves
            new_text = update_claim(claim.file, text, claim.id, {"checked": checked})
        else:
            new_text = text
        if new_text != text:
            write_claim_file(path, new_text)
        stands = accept_as_found(claim, config)  # a move it was reviewed on is no longer news
        which = f" (part {index + 1}, {clean_text(claim.source)})" if index is not None else ""
        typer.echo(f"accepted {clean_text(claim.id)}{which} in {clean_text(claim.file)}")
        for key in _ANCHOR_KEYS if anchor is not None else ():
            before, after = getattr(claim.anchor, key), getattr(anchor, key)
            if before != after:
                typer.echo(f"  {key}: {_shown(before)} -> {_shown(after)}")
        if claim.absent:
            texts = ", ".join(_shown(text) for text in claim.absent)
            typer.echo(f"  absent: {texts} (not in the latest snapshot)")
        if index is None:
            typer.echo(f"  checked: {claim.checked} -> {today}")
        else:
            typer.echo(f"  checked: stays {claim.checked} (the other parts keep their baseline)")
        typer.echo(f"  baseline: {_describe_snapshot(state.snapshot, config)}")
        if stands is not None:
            typer.echo(f"  stands on: {clean_text(stands)} (where its source leads now)")
        return int(ExitCode.OK)

    raise typer.Exit(guard(work))


def _require_no_quote_options(claim_id: str, quote: str | None, span: bool) -> None:
    """An absence claim has no quote: --quote and --span, which re-baseline one, are
    refused rather than ignored."""
    given = [name for name, used in (("--quote", quote is not None), ("--span", span)) if used]
    if given:
        raise UsageError(
            f"claim {claim_id!r} is an absence claim (`absent`, no quote): "
            f"{' and '.join(given)} {'are' if len(given) > 1 else 'is'} for a claim with a quote",
            hint=f"run `claimcheck accept {claim_id}` alone to move its check date, or add "
            "a `quote` to the claim by hand",
        )


def _accept_in_article(
    claim: Claim,
    anchor: Anchor,
    path: Path,
    text: str,
    media: MediaType,
    today: dt.date,
) -> int:
    """Accept a claim read from an article: its link's text directive is rewritten in
    place, every other byte of the article kept; the check date is the article's."""
    from claimcheck.claims.article_edit import set_link_anchor
    from claimcheck.claims.edit import write_claim_file
    from claimcheck.models import ExitCode

    edited, after = set_link_anchor(claim.file, text, media, claim, anchor, today)
    if edited != text:
        write_claim_file(path, edited)
    typer.echo(f"accepted {clean_text(claim.id)} in {clean_text(claim.file)}:{claim.line}")
    assert claim.anchor is not None
    for key in _ANCHOR_KEYS:
        before, now = getattr(claim.anchor, key), getattr(anchor, key)
        if before != now:
            typer.echo(f"  {key}: {_shown(before)} -> {_shown(now)}")
    if after.id != claim.id:
        typer.echo(
            f"  id: {clean_text(claim.id)} -> {clean_text(after.id)} (derived from the quote; "
            "`<!-- claim: ID -->` after the link keeps one)"
        )
    typer.echo(
        f"  checked: stays {claim.checked} (the article's; `<!-- checked: {today} -->` "
        "after the link moves its baseline)"
    )
    return int(ExitCode.OK)


def lint(
    paths: PathsArg = None, config_path: ConfigOpt = None, snapshots: SnapshotsOpt = None
) -> None:
    """Check every claim file offline, against the latest stored snapshots.

    Errors: schema and duplicate-id (as the parser reports them), quote-not-found,
    context-mismatch (the prefix/suffix do not fit), absent-found (the source says
    what an absence claim says it does not), no-snapshot. Warnings:
    short-quote (under 3 words or 12 characters), ambiguous-quote (several
    occurrences and no prefix/suffix). One finding a line on stdout.

    Exit 0: no errors (warnings allowed); 1: errors; 2: a claim file cannot be used
    (schema, duplicate ids) or bad usage.
    """

    def work() -> int:
        from claimcheck.claims.lint import (
            findings_from_problems,
            lint_claims,
            lint_exit_code,
            summarize,
        )
        from claimcheck.claims.load import claim_files, load_claims
        from claimcheck.claims.yaml_read import read_document
        from claimcheck.observe.stored import observe_stored

        config = build_config(config_path, snapshots)
        files = claim_files(claim_inputs(paths, config))
        findings = []
        try:
            claims = load_claims(files, read=read_document)
        except ClaimFileError as exc:
            shown = {file.as_posix(): config.report_path(file) for file in files}
            findings = findings_from_problems(exc.problems, shown)
            claims = _claims_of_good_files(files)
        claims = as_reported(claims, config)
        states, _ = observe_stored(claims, config, pages=True)
        findings += lint_claims(claims, states, min_score=config.verdict.drift_min_score)
        findings = sorted(set(findings))
        for finding in findings:
            typer.echo(finding.render())
        say(summarize(findings, len(claims), len(files)))
        return int(lint_exit_code(findings))

    raise typer.Exit(guard(work))


def list_claims(
    paths: PathsArg = None,
    page: Annotated[
        list[str] | None,
        typer.Option(
            "--page",
            metavar="PAGE",
            help="Only this page's claims; repeatable.",
            show_default=False,
        ),
    ] = None,
    source: Annotated[
        str | None,
        typer.Option(
            "--source", help="Only claims whose source URL (or citation) contains this text."
        ),
    ] = None,
    verdict: Annotated[
        list[str] | None,
        typer.Option(
            "--verdict",
            metavar="VERDICT",
            help="Only claims whose last verdict is VERDICT; repeatable "
            f"({', '.join(LAST_VERDICTS)}).",
            show_default=False,
        ),
    ] = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """List the claims with their last verdicts (of the last run that fetched).

    Filters combine; a claim no run has judged yet shows `never-judged`.
    """

    def work() -> int:
        from claimcheck.models import ExitCode
        from claimcheck.store.state import load_state

        unknown = sorted(set(verdict or ()) - set(LAST_VERDICTS))
        if unknown:
            raise UsageError(
                f"--verdict {unknown[0]!r}: expected one of {', '.join(LAST_VERDICTS)}"
            )
        config = build_config(config_path, snapshots)
        claims = read_config_claims(paths, config)
        state = load_state(config.snapshots_dir)
        rows = []
        for claim in claims:
            last = state.claims.get(claim.id)
            judged = last.verdict.value if last else _NEVER
            cited = claim.source or claim.cited or ""
            if page and claim.page not in page:
                continue
            if source and source.casefold() not in cited.casefold():
                continue
            if verdict and judged not in verdict:
                continue
            since = str(last.since.date()) if last else "-"
            origin = claim.source or f"cited: {claim.cited}"
            rows.append((claim.id, claim.page, judged, since, str(claim.checked), origin))
        _print_rows(("id", "page", "verdict", "since", "checked", "source"), rows)
        say(f"{len(rows)} of {len(claims)} claims")
        return int(ExitCode.OK)

    raise typer.Exit(guard(work))


def show(
    claim_id: IdArg,
    paths: PathsArg = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Show one claim: every field, its last verdict and reason, and its snapshots.

    Exit 0: shown; 2: unknown id.
    """

    def work() -> int:
        from claimcheck.forges.resolve import source_ref
        from claimcheck.history.baseline import baseline_of
        from claimcheck.models import Anchor, ExitCode
        from claimcheck.store.state import load_state
        from claimcheck.store.store import Store

        config = build_config(config_path, snapshots)
        claim = find_claim(read_config_claims(paths, config), claim_id)
        last = load_state(config.snapshots_dir).claims.get(claim.id)
        store = Store.of(config)

        def anchor_fields(view: Claim, named: str) -> list[tuple[str, str | None]]:
            anchor = view.anchor or Anchor(quote="")
            return [
                (f"{named}source", view.source),
                *([] if named else [("cited", view.cited)]),
                (f"{named}quote", anchor.quote or None),
                (f"{named}quote_end", anchor.quote_end),
                (f"{named}prefix", anchor.prefix),
                (f"{named}suffix", anchor.suffix),
            ]

        def snapshot_fields(view: Claim, named: str) -> list[tuple[str, str | None]]:
            if view.source is None:
                return []
            key = source_ref(view.source, config).key
            # The judge's baseline: of a check date's versions, the newest the quote held in.
            latest, baseline = store.latest(key), baseline_of(store, view, config)
            return [
                (f"{named}snapshot", _describe_snapshot(latest, config) if latest else "none"),
                (f"{named}baseline", _describe_snapshot(baseline, config) if baseline else "none"),
            ]

        # A claim on several sources shows each part's fields, named `sources[K].…`.
        views = claim.views()
        named = [f"sources[{k}]." if len(views) > 1 else "" for k in range(1, len(views) + 1)]
        fields: list[tuple[str, str | None]] = [
            ("id", claim.id),
            ("page", claim.page),
            ("file", f"{claim.file}:{claim.line}"),
            ("claim", claim.claim),
        ]
        for view, name in zip(views, named, strict=True):
            fields.extend(anchor_fields(view, name))
        fields += [
            ("checked", str(claim.checked)),
            ("verdict", f"{last.verdict} (since {last.since.date()})" if last else _NEVER),
            ("reason", last.reason if last else None),
        ]
        for view, name in zip(views, named, strict=True):
            fields.extend(snapshot_fields(view, name))
        width = max(len(name) for name, _ in fields) + 1
        for name, value in fields:
            if value is not None:
                typer.echo(f"{name + ':':<{width}} {clean_text(value)}")
        return int(ExitCode.OK)

    raise typer.Exit(guard(work))


def _anchor_of(
    source: str, quote: str | None, prefix: str | None, suffix: str | None
) -> tuple[str, Anchor, dict[str, str]]:
    """The source URL without its text fragment, the anchor from it or the options, and
    which argument gave each of the claim's source fields (see `_as_options`).

    An option given is taken as given, empty or not: the claim file's rules decide
    whether it can be a prefix, as they decide for `prefix: ""` in a file.
    """
    from claimcheck.claims.fragment import FragmentError, split_text_fragment
    from claimcheck.models import Anchor

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
        given |= {k: f"SOURCE: the text fragment's {k}" for k in _ANCHOR_KEYS}
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
    from claimcheck.claims.load import load_claims
    from claimcheck.claims.yaml_read import read_document

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
    from claimcheck.claims.problems import not_utf8_problem
    from claimcheck.utf8 import NotUtf8Error, decode_utf8

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
    from claimcheck.judge.verdict import Observed
    from claimcheck.models import ExitCode, Verdict

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
    from claimcheck.claims.lint import find_occurrences, propose_context

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
    from claimcheck.store.store import Store

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


def _describe_snapshot(snapshot: Snapshot, config: Config) -> str:
    path = config.snapshots_dir / snapshot.key / snapshot.file
    return f"snapshot of {snapshot.fetched_at.date()} ({path.as_posix()})"


def _claims_of_good_files(files: list[Path]) -> list[Claim]:
    """The claims of every file that parses on its own, first of each id only."""
    from claimcheck.claims.load import load_claims
    from claimcheck.claims.yaml_read import read_document

    claims: dict[str, Claim] = {}
    for file in files:
        try:
            for claim in load_claims([file], read=read_document):
                claims.setdefault(claim.id, claim)
        except ClaimFileError:
            continue
    return list(claims.values())


def _print_rows(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> None:
    """Plain aligned columns, the last one unpadded; untrusted text cleaned."""
    table = [header, *[tuple(clean_text(cell) for cell in row) for row in rows]]
    widths = [max(len(row[i]) for row in table) for i in range(len(header) - 1)]
    for row in table:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        sys.stdout.write("  ".join([*cells, row[-1]]).rstrip() + "\n")


def _shown(value: str | None) -> str:
    return "(none)" if value is None else repr(shorten(clean_text(value), 120))
