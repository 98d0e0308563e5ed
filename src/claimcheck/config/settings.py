"""`Config`: everything a run needs to know besides the claims, in one typed object."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, Field, field_validator

from claimcheck.config.allowances import ALLOW_ADDRESSES_ENV, operator_hosts, parse_allowance
from claimcheck.config.fields import MAX_JOBS, PathText, Settings, http_url
from claimcheck.config.notify import NotifyConfig
from claimcheck.config.project import Project, repository_path
from claimcheck.config.sections import (
    ArchiveConfig,
    FetchConfig,
    HistoryConfig,
    IssuesConfig,
    VerdictConfig,
)
from claimcheck.config.servers import (
    DEFAULT_FORGEJO_URL,
    DEFAULT_GITLAB_URL,
    DEFAULT_HF_ENDPOINT,
    DEFAULT_WAYBACK_URL,
)
from claimcheck.models import DEFAULT_API_URL


class Config(Settings):
    """Everything a run needs to know besides the claims themselves."""

    root: Path = Path()
    """The project's folder, from the current folder (`.`, `..`) or as --config gave it."""
    project: Project | None = Field(default=None, exclude=True, repr=False)
    claims: list[PathText] = Field(default_factory=lambda: ["claims"])
    snapshots: PathText = "snapshots"
    fetch: FetchConfig = Field(default_factory=FetchConfig)
    jobs: int | None = Field(default=None, ge=0, le=MAX_JOBS)
    """Worker processes that read pages ahead of the judge: 0 for none; None (unset) for
    one a core the run may use, up to four, and none on a single core. Headless browsers
    render pages (`render = "browser"`) one for every two workers, at least one and at
    most four (`render.browsers_to_use`)."""
    verdict: VerdictConfig = Field(default_factory=VerdictConfig)
    issues: IssuesConfig = Field(default_factory=IssuesConfig)
    history: HistoryConfig = Field(default_factory=HistoryConfig)
    notify: NotifyConfig = Field(default_factory=NotifyConfig)
    github_api_url: Annotated[str, AfterValidator(http_url)] = DEFAULT_API_URL
    wayback_url: Annotated[str, AfterValidator(http_url)] = DEFAULT_WAYBACK_URL
    github_token: str | None = Field(default=None, repr=False, exclude=True)
    hf_endpoint: Annotated[str, AfterValidator(http_url)] = DEFAULT_HF_ENDPOINT
    hf_token: str | None = Field(default=None, repr=False, exclude=True)
    gitlab_url: Annotated[str, AfterValidator(http_url)] = DEFAULT_GITLAB_URL
    gitlab_token: str | None = Field(default=None, repr=False, exclude=True)
    forgejo_url: Annotated[str, AfterValidator(http_url)] = DEFAULT_FORGEJO_URL
    forgejo_token: str | None = Field(default=None, repr=False, exclude=True)
    wayback_keys: str | None = Field(default=None, repr=False, exclude=True)
    """The Internet Archive's keys (`ACCESS:SECRET`) for Save Page Now (`archive`)."""
    archive: ArchiveConfig = Field(default_factory=ArchiveConfig)
    allow_addresses_env: list[str] = Field(default_factory=list, exclude=True)
    notices: tuple[str, ...] = Field(default=(), exclude=True)
    """Warnings about the settings (a token withheld), for the command to print."""

    @field_validator("allow_addresses_env")
    @classmethod
    def _env_allowances_parse(cls, entries: list[str]) -> list[str]:
        """Bad entries in CLAIMCHECK_ALLOW_ADDRESSES are config errors, not a crash later."""
        for entry in entries:
            try:
                parse_allowance(entry)
            except ValueError as exc:
                raise ValueError(f"{ALLOW_ADDRESSES_ENV}: {exc}") from exc
        return entries

    @property
    def allowed_addresses(self) -> tuple[str, ...]:
        """Every internal address the fetcher may reach: the file's, the environment's, and
        the hosts of the operator's own GitHub API and Wayback servers."""
        return (
            *self.fetch.allow_addresses,
            *self.allow_addresses_env,
            *operator_hosts(self.github_api_url, self.wayback_url),
        )

    @property
    def snapshots_dir(self) -> Path:
        """The snapshot store's folder, relative paths taken from the config's folder."""
        return self.root / self.snapshots

    @property
    def claim_paths(self) -> list[Path]:
        """The default claim files or folders."""
        return [self.root / p for p in self.claims]

    @property
    def repository(self) -> Path:
        """The absolute folder that report paths are relative to (see `Project`)."""
        return self.project.repository if self.project else Path(os.path.abspath(self.root))

    def report_path(self, file: str | Path) -> str:
        """A claim file's path (from the current folder) as every report shows it:
        POSIX, relative to the repository's root; absolute when outside it."""
        return repository_path(file, self.repository)

    def local_path(self, report_path: str) -> Path:
        """The file a report path names, to open from the current folder."""
        return self.repository / report_path
