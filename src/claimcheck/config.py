"""Settings from `claimcheck.toml` and the environment, validated in one typed object.

Flags override the file, the file overrides the defaults. Unknown keys are errors:
a misspelt threshold silently ignored would change verdicts without anyone noticing.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from claimcheck.errors import ConfigError
from claimcheck.models import DEFAULT_API_URL

CONFIG_FILE = "claimcheck.toml"


class FetchConfig(BaseModel):
    """How sources are fetched."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    concurrency: int = Field(default=8, ge=1, le=64)
    per_host: int = Field(default=2, ge=1, le=16)
    per_host_interval: float = Field(default=0.25, ge=0)
    hosts: dict[str, int] = Field(
        default_factory=dict, description="Per-host concurrency overrides, by host name."
    )
    timeout: float = Field(default=20.0, gt=0)
    retries: int = Field(default=3, ge=0, le=10)
    max_bytes: int = Field(default=5_000_000, ge=1024)
    user_agent: str = "claimcheck/0.1 (+https://github.com/claimcheck/claimcheck)"


class VerdictConfig(BaseModel):
    """Thresholds of the judgement."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    drift_min_score: float = Field(default=70.0, ge=0, le=100)
    max_age_days: int = Field(
        default=180, ge=0, description="Check dates older than this are `expired`; 0: never."
    )


class Config(BaseModel):
    """Everything a run needs to know besides the claims themselves."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    root: Path = Path()
    claims: list[str] = Field(default_factory=lambda: ["claims"])
    snapshots: str = "snapshots"
    fetch: FetchConfig = Field(default_factory=FetchConfig)
    verdict: VerdictConfig = Field(default_factory=VerdictConfig)
    github_api_url: str = DEFAULT_API_URL
    wayback_url: str = "https://archive.org"
    github_token: str | None = Field(default=None, repr=False, exclude=True)

    @property
    def snapshots_dir(self) -> Path:
        """The snapshot store's folder, relative paths taken from the config's folder."""
        return self.root / self.snapshots

    @property
    def claim_paths(self) -> list[Path]:
        """The default claim files or folders."""
        return [self.root / p for p in self.claims]


def load_config(path: Path | None, env: Mapping[str, str] | None = None) -> Config:
    """Read the config file (if any) and the GitHub environment variables."""
    env = os.environ if env is None else env
    explicit = path is not None
    path = path or Path(CONFIG_FILE)
    data: dict[str, object] = {}
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: cannot read: {exc}") from exc
    elif explicit:
        raise ConfigError(f"{path}: no such config file")
    from_env = {
        "github_api_url": env.get("GITHUB_API_URL") or DEFAULT_API_URL,
        "github_token": env.get("GITHUB_TOKEN") or None,
        "wayback_url": env.get("WAYBACK_URL") or "https://archive.org",
    }
    try:
        return Config.model_validate({**data, "root": path.parent, **from_env})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: "
            + e["msg"].replace("Extra inputs are not permitted", "unknown key")
            for e in exc.errors()
        )
        raise ConfigError(f"{path}: {problems}") from exc
