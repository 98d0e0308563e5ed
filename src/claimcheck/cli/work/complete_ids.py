"""What a shell's completion of a claim's id does: the ids of the current project's claims.

Offline and quick: the claims are read as every command reads them, from the claim files
of PATHS or of the config (an unchanged file's claims as its last read kept them in the
snapshots' cache), and nothing is fetched or written. When a claim file is broken (a
person is editing it), the ids of the others are still offered.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from claimcheck.claims.load import claim_files
from claimcheck.cli.project import build_config, claim_inputs
from claimcheck.cli.selection import read_claims
from claimcheck.errors import ClaimcheckError


def claim_ids_to_complete(params: dict[str, Any], incomplete: str) -> list[str]:
    """The ids that start with `incomplete`, each once, in the claim files' order.

    `params` are the command's values parsed so far (PATHS, --config and --snapshots
    when the line gives them before the id); a value of another type is ignored.
    """
    config_path, snapshots = params.get("config_path"), params.get("snapshots")
    paths = params.get("paths")
    config = build_config(
        config_path if isinstance(config_path, Path) else None,
        snapshots if isinstance(snapshots, Path) else None,
    )
    given = [p for p in paths if isinstance(p, Path)] if isinstance(paths, list) else []
    try:
        claims = read_claims(given or None, config)
    except ClaimcheckError:  # one file is broken: the ids of the others, file by file
        claims = []
        for file in claim_files(claim_inputs(given or None, config)):
            with contextlib.suppress(ClaimcheckError):
                claims.extend(read_claims([file], config))
    ids = (claim.id for claim in claims)
    return list(dict.fromkeys(i for i in ids if i.startswith(incomplete)))
