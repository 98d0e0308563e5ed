"""claimcheck as a library: what `claimcheck verify` does, called from Python.

    import claimcheck

    report = claimcheck.verify(offline=True)  # the project of the current folder
    for result in report.results:
        print(result.claim.id, result.verdict, result.reason)
    raise SystemExit(claimcheck.exit_code(report))

`verify` reads the project's `claimcheck.toml` as the command does, takes the same
claims and runs the same pipeline, so its report is the one `claimcheck verify -f json`
prints (a test holds them equal). An online run holds the snapshots folder's lock, as
the command does; an offline run writes nothing but the derived cache.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from claimcheck.claims import load
from claimcheck.claims.yaml_read import read_document
from claimcheck.config import Config, load_config
from claimcheck.models import Claim, Report
from claimcheck.observe.online import ONLINE
from claimcheck.pipeline import run_verify
from claimcheck.store.lock import writing

__all__ = ["load_claims", "verify"]

PathLike = str | os.PathLike[str]


def load_claims(paths: Sequence[PathLike], config: Config | None = None) -> list[Claim]:
    """The claims of these claim files, articles and folders, each `file` as reports show
    it; a problem in any raises `ClaimFileError` listing every one (file, line, field)."""
    settings = config if config is not None else load_config(None)
    claims = load.load_claims([Path(p) for p in paths], read=read_document)
    return load.as_reported(claims, settings)


def verify(
    paths: Sequence[PathLike] | None = None,
    *,
    config: PathLike | None = None,
    offline: bool = False,
    cite: bool = False,
) -> Report:
    """Verify the claims of `paths` (default: the project's `claims`) and return the report.

    `config` is a `claimcheck.toml` (default: found from the current folder up, as the
    command finds it). Offline, each claim is judged on the stored snapshots alone;
    online, every source is fetched and new snapshots are stored. Errors are
    `ClaimcheckError`s: `ClaimFileError`, `ConfigError`, `StoreError` (a run already
    holds the lock, among others).
    """
    settings = load_config(Path(config) if config is not None else None)
    inputs = [Path(p) for p in paths] if paths else settings.claim_paths
    claims = load.as_reported(
        load.load_claims(
            inputs, read=read_document, kept_in=settings.snapshots_dir, create=not offline
        ),
        settings,
    )
    with writing(settings, "verify", offline=offline):
        report, _ = run_verify(claims, settings, online=None if offline else ONLINE, cite=cite)
    return report
