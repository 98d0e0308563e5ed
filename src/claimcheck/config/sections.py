"""The tables of claimcheck.toml: `[fetch]`, `[verdict]`, `[issues]`, `[history]` and
`[archive]`."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from claimcheck.config.allowances import parse_allowance
from claimcheck.config.fields import (
    MAX_CONCURRENCY,
    HostName,
    LabelName,
    Settings,
    one_line,
)


class FetchConfig(Settings):
    """How sources are fetched."""

    concurrency: int = Field(default=8, ge=1, le=MAX_CONCURRENCY)
    per_host: int = Field(default=2, ge=1, le=MAX_CONCURRENCY)
    per_host_interval: float = Field(default=0.25, ge=0, le=60, allow_inf_nan=False)
    hosts: dict[HostName, Annotated[int, Field(ge=1, le=MAX_CONCURRENCY)]] = Field(
        default_factory=dict, description="Per-host concurrency overrides, by host name."
    )
    timeout: float = Field(default=20.0, gt=0, le=600, allow_inf_nan=False)
    retries: int = Field(default=3, ge=0, le=10)
    suspect_limit: int = Field(
        default=3,
        ge=1,
        le=365,
        description="Consecutive runs whose answer was not the page (a bot challenge, an "
        "error page, ...) before the claim says a person must look.",
    )
    max_bytes: int = Field(default=5_000_000, ge=1024, le=1_000_000_000)
    user_agent: Annotated[str, Field(max_length=512), AfterValidator(one_line)] = (
        "claimcheck/0.1 (+https://github.com/claimcheck/claimcheck)"
    )
    allow_addresses: list[str] = Field(
        default_factory=list,
        description="Internal networks (CIDRs) or host names that may be fetched.",
    )
    render: dict[HostName, Literal["browser", "plain"]] = Field(
        default_factory=dict,
        description="How web pages are read, by host (or host:port): `browser` renders "
        "them in headless Chromium, `plain` reads their HTML as served (the default). A "
        "claim's own `render` wins.",
    )

    @field_validator("allow_addresses")
    @classmethod
    def _allowances_parse(cls, entries: list[str]) -> list[str]:
        """A misspelt entry would allow nothing, silently: say which one it is."""
        for entry in entries:
            parse_allowance(entry)
        return entries


class VerdictConfig(Settings):
    """Thresholds of the judgement."""

    drift_min_score: float = Field(default=70.0, ge=0, le=100, allow_inf_nan=False)
    max_age_days: int = Field(
        default=180,
        ge=0,
        le=36_500,
        description="Check dates older than this are `expired`; 0: never.",
    )


class IssuesConfig(Settings):
    """Which claims `claimcheck issues` and the nightly run file issues for, and how
    those issues are labelled.

    Every stale verdict files one; `review` adds the review verdicts (context-changed,
    moved), `expired` the expired check dates. `label` marks claimcheck's issues (it
    and the hidden marker are how they are found again); `stale_label` and
    `review_label` say which kind each is. `max_new` caps the issues one run creates,
    so that a report of thousands of stale claims (or a forged one) cannot open
    thousands of issues at once.
    """

    review: bool = Field(
        default=True, description="File issues for context-changed and moved claims."
    )
    expired: bool = Field(default=False, description="File issues for expired claims.")
    label: LabelName = "claimcheck"
    stale_label: LabelName = "stale"
    review_label: LabelName = "review"
    max_new: int = Field(
        default=20,
        ge=0,
        description="The most issues one run creates (`--max-new` overrides it); the "
        "rest are created by the next runs, and the run exits 4 to say so.",
    )

    @model_validator(mode="after")
    def _labels_differ(self) -> IssuesConfig:
        """Three labels with three jobs: one shared would make the kind unreadable."""
        names = [self.label, self.stale_label, self.review_label]
        if len({name.casefold() for name in names}) < len(names):
            raise ValueError(
                "label, stale_label and review_label must be three different labels "
                f"(case does not count): {', '.join(repr(n) for n in names)}"
            )
        return self


class HistoryConfig(Settings):
    """Where sources as they were are asked for (backfilled baselines, citations)."""

    wayback: bool = Field(
        default=True,
        description="Ask the Wayback Machine (`wayback_url`) for pages that are not on a "
        "forge, and for a gone source's last capture; false: never, so no source URL "
        "goes to it. A source on an internal address is never sent to it either way.",
    )


ArchiveMoment = Literal["add", "accept", "drift"]
"""When a source is sent to Save Page Now without asking: a claim added on it, a claim on
it accepted, a claim on it found drifted by an online run."""


class ArchiveConfig(Settings):
    """Captures of sources in the Wayback Machine (Save Page Now), made when claims are
    written, so that a copy exists before a source changes or goes."""

    on: list[ArchiveMoment] = Field(
        default_factory=list,
        description='When to ask for a capture besides `claimcheck archive`: "add", '
        '"accept", "drift". Needs WAYBACK_KEYS in the environment.',
    )
    within: Annotated[str, Field(pattern=r"^\d+[smhdwy]( ?\d+[smhdwy])*$")] | None = Field(
        default="1d",
        description="Make no new capture when the archive holds one this recent "
        '(Save Page Now\'s `if_not_archived_within`: "30d", "12h", "1d 6h").',
    )
    timeout: float = Field(
        default=120.0,
        gt=0,
        le=3600,
        allow_inf_nan=False,
        description="How long to wait for one capture, in seconds.",
    )
    poll_seconds: float = Field(
        default=5.0,
        ge=0,
        le=300,
        allow_inf_nan=False,
        description="How long to wait between two looks at a pending capture.",
    )
    concurrency: int = Field(
        default=4,
        ge=1,
        le=12,
        description="Captures asked for at once (fewer when the archive says the keys "
        "may start fewer).",
    )
