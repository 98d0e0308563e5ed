"""claimcheck: keep published claims honest against their sources.

The library's API is what `__all__` names, e.g.:

    import claimcheck

    report = claimcheck.verify(offline=True)
    raise SystemExit(claimcheck.exit_code(report))

Each name is imported from its module when first asked for, so that `import
claimcheck` (which every `claimcheck` command does first) costs nothing: the command
line starts as fast with the API as without it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from claimcheck.api import load_claims, verify
    from claimcheck.config import Config, load_config
    from claimcheck.errors import (
        ClaimcheckError,
        ClaimFileError,
        ConfigError,
        StoreError,
        UsageError,
    )
    from claimcheck.models import Claim, ClaimResult, ExitCode, Report, Verdict
    from claimcheck.report.build import exit_code

_HOMES = {
    "verify": "claimcheck.api",
    "load_claims": "claimcheck.api",
    "load_config": "claimcheck.config",
    "Config": "claimcheck.config",
    "exit_code": "claimcheck.report.build",
    "Claim": "claimcheck.models",
    "ClaimResult": "claimcheck.models",
    "ExitCode": "claimcheck.models",
    "Report": "claimcheck.models",
    "Verdict": "claimcheck.models",
    "ClaimcheckError": "claimcheck.errors",
    "ClaimFileError": "claimcheck.errors",
    "ConfigError": "claimcheck.errors",
    "StoreError": "claimcheck.errors",
    "UsageError": "claimcheck.errors",
}

__all__ = [
    "Claim",
    "ClaimFileError",
    "ClaimResult",
    "ClaimcheckError",
    "Config",
    "ConfigError",
    "ExitCode",
    "Report",
    "StoreError",
    "UsageError",
    "Verdict",
    "exit_code",
    "load_claims",
    "load_config",
    "verify",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'claimcheck' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # asked once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
