"""Settings from `claimcheck.toml` and the environment, validated in one typed object.

The project is found as git finds `.git` (`find_project`): the nearest `claimcheck.toml`
from the current folder up, not above the top of a git work tree (a folder holding
`.git` and no `claimcheck.toml` is the project, with the defaults). Relative `claims`
and `snapshots` are taken from the project's folder, wherever the command runs; the
paths reports show are relative to the repository's root (`Config.report_path`).
`snapshots` names a folder of its own inside the project (`store_folder_problem`):
never the project's folder, one above it, or one holding or inside the claims, since
every run writes into it and a nightly commit commits from it.

Flags override the file, the file overrides the defaults. The server URLs are read from
the environment first (`GITHUB_API_URL`, `WAYBACK_URL`, `HF_ENDPOINT`, `GITLAB_URL`,
`FORGEJO_URL`), then the file's `github_api_url` / `wayback_url` / `hf_endpoint` /
`gitlab_url` / `forgejo_url`, then the defaults; `GITHUB_TOKEN`, `HF_TOKEN`,
`GITLAB_TOKEN` and `FORGEJO_TOKEN` only ever come from the environment, and a token,
password or secret key in the file is refused, its line and key named and its value
never shown (`_refuse_secrets`). Unknown keys are
errors: a misspelt threshold silently ignored would change verdicts without anyone
noticing.
Every value has a range (finite numbers, positive limits, one-line printable text), so
a value that would hang a run (`per_host_interval = inf`), crash it later
(`hosts = {"x" = 0}`) or forge a header (a CR/LF in `user_agent`) is an error that
names its file, line and key before anything is fetched; so is a server URL with a
user name or password in it, which would go to that server with every request. The
problems of a file are listed one a line, in its order, as a claim file's are. And
every value has its TOML type (`Settings`): `max_age_days = true` is no number of days,
where pydantic alone would read it as 1 and expire every claim.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal, TypeGuard
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from claimcheck.errors import ConfigError
from claimcheck.forges.forge_hosts import (
    DEFAULT_FORGEJO_URL,
    DEFAULT_GITLAB_URL,
    DEFAULT_HF_ENDPOINT,
)
from claimcheck.models import DEFAULT_API_URL
from claimcheck.net.addresses import parse_allowance
from claimcheck.untrusted import carried_credentials, clean_text
from claimcheck.utf8 import NotUtf8Error, decode_utf8

CONFIG_FILE = "claimcheck.toml"
GIT_MARKER = ".git"
"""A git work tree's top holds `.git` (a folder, or a file in a worktree or submodule)."""
ALLOW_ADDRESSES_ENV = "CLAIMCHECK_ALLOW_ADDRESSES"
"""Internal addresses to open for this process (comma-separated, like allow_addresses)."""


_PRINTABLE = re.compile(r"[\x20-\x7e]+")
_HOST = re.compile(r"[A-Za-z0-9._\-\[\]:]{1,260}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _one_line(value: str) -> str:
    """Header text: printable ASCII on one line (a CR/LF would start another header)."""
    if not _PRINTABLE.fullmatch(value):
        bad = next((c for c in value if not _PRINTABLE.fullmatch(c)), None)
        what = f": character U+{ord(bad):04X}" if bad else ""
        raise ValueError(f"must be printable ASCII on one line, not empty{what}")
    return value


def _host_name(value: str) -> str:
    if not _HOST.fullmatch(value):
        raise ValueError(f"{value!r} is not a host name (or host:port)")
    return value


def _a_path(value: str) -> str:
    if not _path_text(value):
        raise ValueError("must be a non-empty path without control characters")
    return value


def _http_url(value: str) -> str:
    """A server's URL: http(s), with a host, and no user name or password in it, which
    httpx would send to that host with every request and messages would show (a
    server's token comes from the environment, see `_tokens_for_servers`)."""
    carried = carried_credentials(value)
    if carried is not None:
        raise ValueError(
            f"{carried}: claimcheck sends no credentials written in a server URL; give"
            " the URL without them, and a forge's token in the environment (GITHUB_TOKEN,"
            " HF_TOKEN, GITLAB_TOKEN, FORGEJO_TOKEN)"
        )
    try:
        parts = urlsplit(value)
        _ = parts.port
    except ValueError as exc:
        raise ValueError(f"is not a valid URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or _CONTROL.search(value):
        raise ValueError("must be an http(s) URL with a host")
    return value


LABEL_MAX = 50
"""GitHub refuses label names longer than this."""


def _label_name(value: str) -> str:
    """A GitHub label name: 1-50 characters, no commas (listing filters take a comma-
    separated list), no control characters, no leading or trailing space."""
    if not value.strip() or value != value.strip() or "," in value or _CONTROL.search(value):
        raise ValueError(
            "must be a label name: not empty, no commas, control characters or surrounding spaces"
        )
    if len(value) > LABEL_MAX:
        raise ValueError(f"a GitHub label has at most {LABEL_MAX} characters")
    return value


MAX_CONCURRENCY = 64
"""The most requests in flight, overall and to one host (`per_host`, `hosts`): one host
may take every slot, as one loopback or GitHub Enterprise server does in a benchmark."""
MAX_JOBS = 64
"""The most worker processes `jobs` may ask for."""

HostName = Annotated[str, AfterValidator(_host_name)]
PathText = Annotated[str, AfterValidator(_a_path)]
LabelName = Annotated[str, AfterValidator(_label_name)]


class Settings(BaseModel):
    """Base of the config's models: no unknown key, and every value of its own type.

    Strict: TOML types its values, so none is converted. pydantic would otherwise take
    `true` for 1 and `false` for 0 wherever a number is asked (a boolean is an int in
    Python), and 1 or 0 for a boolean, so a misplaced `true` would change verdicts
    without a word; a quoted `"20"` or a `3.0` where a count is asked is refused the
    same way. A whole number where a fraction is asked (`timeout = 20`) is a number
    still, and taken.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


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
    user_agent: Annotated[str, Field(max_length=512), AfterValidator(_one_line)] = (
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
        "forge; false: never, so no source URL goes to it. A source on an internal "
        "address is never sent to it either way.",
    )


@dataclass(frozen=True)
class Project:
    """Where a run's config, claims and snapshots are, as `find_project` found them.

    Every path is absolute. `root` is the folder of `config` (claimcheck.toml), or the
    folder the search stopped at without one: the top of a git work tree (`boundary`),
    else the folder it started from. `repository` is the top of the git work tree that
    holds `root` (else `root`): the paths in reports are relative to it, as GitHub
    places annotations and code-scanning alerts relative to the checkout's root.
    """

    root: Path
    config: Path | None
    repository: Path
    start: Path
    boundary: Path | None = None


def find_project(start: Path, config: Path | None = None) -> Project:
    """The project of a command run in `start`; `config` (--config) names it outright.

    From `start` up to the filesystem's root, the first folder holding claimcheck.toml
    is the project. A folder holding `.git` and no claimcheck.toml ends the search: it
    is the project, with the defaults (a claimcheck.toml above a repository belongs to
    another project). Without either, `start` is the project.
    """
    start = Path(os.path.abspath(start))
    if config is not None:
        file = Path(os.path.abspath(config))
        return Project(file.parent, file, _work_tree(file.parent) or file.parent, start)
    for folder in (start, *start.parents):
        if os.path.isfile(folder / CONFIG_FILE):
            return Project(folder, folder / CONFIG_FILE, _work_tree(folder) or folder, start)
        if os.path.lexists(folder / GIT_MARKER):
            return Project(folder, None, folder, start, boundary=folder)
    return Project(start, None, start, start)


def _work_tree(folder: Path) -> Path | None:
    """The top of the git work tree holding `folder` (the nearest `.git`), if any."""
    return next((f for f in (folder, *folder.parents) if os.path.lexists(f / GIT_MARKER)), None)


def repository_path(file: str | Path, repository: Path) -> str:
    """`file` (as given, from the current folder) as a POSIX path from `repository`.

    A file outside the repository keeps its absolute path. Symlinks are followed only
    when the path as written is outside it (a symlinked checkout, a logical `$PWD`).
    """
    written = Path(os.path.abspath(file))
    for path in (written, _resolved(written)):
        for top in (repository, _resolved(repository)):
            if path.is_relative_to(top):
                return path.relative_to(top).as_posix()
    return written.as_posix()


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: the path as written
        return path


def _from_cwd(path: Path, cwd: Path) -> Path:
    """`path` relative to the current folder when it can be (`..`, `../..`)."""
    try:
        return Path(os.path.relpath(path, cwd))
    except ValueError:  # another drive
        return path


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
    github_api_url: Annotated[str, AfterValidator(_http_url)] = DEFAULT_API_URL
    wayback_url: Annotated[str, AfterValidator(_http_url)] = "https://archive.org"
    github_token: str | None = Field(default=None, repr=False, exclude=True)
    hf_endpoint: Annotated[str, AfterValidator(_http_url)] = DEFAULT_HF_ENDPOINT
    hf_token: str | None = Field(default=None, repr=False, exclude=True)
    gitlab_url: Annotated[str, AfterValidator(_http_url)] = DEFAULT_GITLAB_URL
    gitlab_token: str | None = Field(default=None, repr=False, exclude=True)
    forgejo_url: Annotated[str, AfterValidator(_http_url)] = DEFAULT_FORGEJO_URL
    forgejo_token: str | None = Field(default=None, repr=False, exclude=True)
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


_SET_BY_CLAIMCHECK = ("root", "project")
"""Config fields that the search sets; the file cannot (a `root` key would be ignored)."""


def load_config(path: Path | None, env: Mapping[str, str] | None = None) -> Config:
    """Read the project's config file (if any) and the GitHub environment variables.

    Without `path` (--config) the project is found from the current folder up
    (`find_project`); with it, its folder is the project. Either way relative
    `claims` and `snapshots` are taken from the project's folder.
    """
    env = os.environ if env is None else env
    explicit = path is not None
    cwd = Path.cwd()
    project = find_project(cwd, path)
    if path is None:
        root = _from_cwd(project.root, cwd)
        path = root / CONFIG_FILE if project.config else Path(CONFIG_FILE)
    else:
        root = path.parent
    data: dict[str, object] = {}
    text = ""
    if path.is_file():
        try:
            text = decode_utf8(path.read_bytes())
            data = tomllib.loads(text)
        except NotUtf8Error as exc:
            key = _toml_key_at(exc.before) or "cannot read"
            raise ConfigError(f"{path}:{exc.line}: {key}: {exc}") from exc
        except (OSError, tomllib.TOMLDecodeError, RecursionError) as exc:
            at = re.search(r"\(at line (\d+)", str(exc))
            where = f"{path}:{at.group(1)}" if at else f"{path}:1"
            raise ConfigError(f"{where}: cannot read: {exc or type(exc).__name__}") from exc
    elif explicit:
        raise _not_a_config_file(path)
    _refuse_secrets(data, path, text)
    for key in _SET_BY_CLAIMCHECK:
        if key in data:
            raise ConfigError(
                f"{path}:{_toml_line(text, [key])}: {key}: unknown key",
                hint="claims and snapshots are taken from the folder of claimcheck.toml",
            )
    # A server URL set in the environment wins over the file's, and the file's over the
    # default: GitHub Actions sets GITHUB_API_URL in every job, to the server the
    # workflow runs on (GitHub Enterprise included), which is where the API is.
    servers = {key: env[name] for key, name in _ENVIRONMENT.items() if env.get(name)}
    tokens, notices = _tokens_for_servers(data, servers, env, path, text)
    from_env = {
        **servers,
        **tokens,  # never from a file, and only to a server the file did not name
        "allow_addresses_env": split_allowances(env.get(ALLOW_ADDRESSES_ENV, "")),
        "notices": notices,
    }
    store = _store_key_problem(data, project.root, path, text)
    try:
        config = Config.model_validate({**data, "root": root, "project": project, **from_env})
    except ValidationError as exc:
        # One a line in the file's order, as a claim file's problems are: the file's
        # first (by line), then the environment's.
        problems = sorted(
            [
                *(
                    _describe(path, text, e["loc"], e["msg"], from_env=servers)
                    for e in exc.errors()
                ),
                *([store] if store else []),
            ],
            key=lambda problem: problem[0],
        )
        hint = STORE_HINT if store else ""
        raise ConfigError(*(problem for _, problem in problems), hint=hint) from exc
    if store:
        raise ConfigError(store[1], hint=STORE_HINT)
    return config


STORE_HINT = (
    "the snapshots folder holds only what claimcheck stores, and `schedule --commit` "
    "commits from it: give it a folder of its own inside the project, such as "
    'snapshots = "snapshots"'
)
STORE_FLAG_HINT = (
    "the snapshots folder holds only what claimcheck stores: give --snapshots a folder of "
    "its own, apart from the claims and not above them"
)


def store_folder_problem(
    store: Path, root: Path, claims: Sequence[Path], *, outside: bool = False
) -> str | None:
    """Why `store` cannot be the snapshots folder; None when it is a folder of its own.

    Every run writes into the store and a nightly commit commits from it, so it holds
    nothing else: it is below the project's folder `root`, neither that folder (which
    holds claimcheck.toml and the whole work tree: `.env` files, keys, drafts) nor one
    above it, and apart from the claims (`claims`, files or folders): it neither holds
    one nor is inside one. Paths are compared as they resolve, `..` taken and symlinks
    followed, so `claims/..` or a link to `.` is the project's folder. `outside` lets a
    folder outside the project through (an operator's scratch store, `--snapshots`).
    """
    at, top = _resolved(Path(os.path.abspath(store))), _resolved(Path(os.path.abspath(root)))
    if at == top:
        return f"is the project's folder {top.as_posix()} itself"
    if top.is_relative_to(at):
        return f"holds the project's folder {top.as_posix()}: it is {at.as_posix()}"
    if not outside and not at.is_relative_to(top):
        return f"is outside the project's folder {top.as_posix()}: it is {at.as_posix()}"
    for claim_path in claims:
        held = _resolved(Path(os.path.abspath(claim_path)))
        if held == at:
            return f"is where the claims are, {held.as_posix()}"
        if held.is_relative_to(at):
            return f"holds the claims at {held.as_posix()}"
        if at.is_relative_to(held):
            return f"is inside the claims at {held.as_posix()}"
    return None


def _store_key_problem(
    data: Mapping[str, object], root: Path, path: Path, text: str
) -> tuple[float, str] | None:
    """The file's `snapshots` as `store_folder_problem` judges it, with its line; None
    when it is fine, or when it or `claims` is of no use (their own errors say so).
    With no `snapshots` key, the default folder is judged at the `claims` key: it is
    the claims that were put where the store goes."""
    store = data.get("snapshots", Config.model_fields["snapshots"].default)
    claims = data.get("claims", ["claims"])
    if not _path_text(store) or not isinstance(claims, list) or not all(map(_path_text, claims)):
        return None
    problem = store_folder_problem(root / store, root, [root / c for c in claims])
    if problem is None:
        return None
    value = clean_text(store)
    if "snapshots" not in data:
        line = _toml_line(text, ["claims"])
        return line, f"{path}:{line}: claims: the default snapshots folder {value!r} {problem}"
    line = _toml_line(text, ["snapshots"])
    return line, f"{path}:{line}: snapshots: {value!r} {problem}"


def _path_text(value: object) -> TypeGuard[str]:
    """Whether `value` is a path as `PathText` takes it (else its own error says so)."""
    return isinstance(value, str) and bool(value.strip()) and not _CONTROL.search(value)


def checked_store_flag(config: Config, folder: Path) -> Path:
    """`--snapshots FOLDER` (from the current folder), absolute, once it is a folder of
    its own (`store_folder_problem`): not the project's folder, one above it, or one
    holding or inside the claims. A folder outside the project is the operator's own
    choice (a scratch store for a trial run), so it is let through."""
    root = config.project.root if config.project else Path(os.path.abspath(config.root))
    problem = store_folder_problem(folder, root, config.claim_paths, outside=True)
    if problem is not None:
        shown = clean_text(str(folder))
        raise ConfigError(f"--snapshots {shown}: {problem}", hint=STORE_FLAG_HINT)
    return folder.resolve()


_SECRET_NAMES = frozenset({"token", "password", "secret"})
_SECRET_ENDINGS = ("_token", "_password", "_secret")


def is_secret_key(name: str) -> bool:
    """Whether a config key names a secret (`github_token`, `token`, `smtp_password`)."""
    lowered = name.lower()
    return lowered in _SECRET_NAMES or lowered.endswith(_SECRET_ENDINGS)


def _secret_keys(data: object, prefix: str = "") -> Iterator[str]:
    """The dotted names of the secret keys in parsed TOML, at any depth, in order."""
    if isinstance(data, dict):
        for key, value in data.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if is_secret_key(str(key)):
                yield name
            else:
                yield from _secret_keys(value, name)
    elif isinstance(data, list):
        for item in data:
            yield from _secret_keys(item, prefix)


def _refuse_secrets(data: Mapping[str, object], path: Path, text: str) -> None:
    """Refuse a token, password or secret written into the config file, naming its line
    and key and never its value.

    Tokens come from the environment only; the file is committed, and one written
    there is already exposed to everyone who can read the repository, so the user is
    told at once rather than the key being ignored.
    """
    found = list(_secret_keys(data))
    if not found:
        return
    problems = []
    for name in found:
        line = _toml_line(text, name.split("."))
        variable = _TOKENS[name][0] if name in _TOKENS else ""
        instead = f"set {variable} in the environment" if variable else "use the environment"
        problems.append(
            f"{path}:{line}: {name}: a secret is never read from {CONFIG_FILE}, which is"
            f" committed: remove it (and revoke it if it was pushed), and {instead} instead"
        )
    raise ConfigError(
        *problems,
        hint="tokens come only from the environment: GITHUB_TOKEN, HF_TOKEN, GITLAB_TOKEN,"
        " FORGEJO_TOKEN",
    )


def _not_a_config_file(path: Path) -> ConfigError:
    """What --config names when it is no file: a folder (the project's, likely) is said
    to be one, with the config file in it when there is one; else it is not there."""
    if not path.is_dir():
        return ConfigError(f"{path}: no such config file")
    inside = path / CONFIG_FILE
    hint = (
        f"give the file itself: --config {inside}"
        if inside.is_file()
        else "--config takes a claimcheck.toml file, not its folder"
    )
    return ConfigError(f"{path}: is a folder, not a config file", hint=hint)


_ENVIRONMENT = {
    "github_api_url": "GITHUB_API_URL",
    "wayback_url": "WAYBACK_URL",
    "hf_endpoint": "HF_ENDPOINT",
    "gitlab_url": "GITLAB_URL",
    "forgejo_url": "FORGEJO_URL",
}
"""The server URLs that an environment variable sets, over the file's key."""

_TOKENS = {
    "github_token": ("GITHUB_TOKEN", "github_api_url", DEFAULT_API_URL),
    "hf_token": ("HF_TOKEN", "hf_endpoint", DEFAULT_HF_ENDPOINT),
    "gitlab_token": ("GITLAB_TOKEN", "gitlab_url", DEFAULT_GITLAB_URL),
    "forgejo_token": ("FORGEJO_TOKEN", "forgejo_url", DEFAULT_FORGEJO_URL),
}
"""Each token: its environment variable, the server it is for, and that server's default."""


def _tokens_for_servers(
    data: Mapping[str, object],
    servers: Mapping[str, str],
    env: Mapping[str, str],
    path: Path,
    text: str,
) -> tuple[dict[str, str | None], tuple[str, ...]]:
    """The tokens from the environment, each withheld from a server only the file names.

    A token is sent to its server's default (api.github.com, huggingface.co) or to the
    server the environment names (GitHub Actions sets GITHUB_API_URL in every job). A
    `claimcheck.toml` is the repository's, and a pull request can change it: were its
    `github_api_url` given the job's GITHUB_TOKEN, one line would send the token to any
    host. So a server that only the file names is asked without the token, and the run
    says how to give it one (name the server in the environment, where the operator,
    not the repository, decides).
    """
    tokens: dict[str, str | None] = {}
    notices: list[str] = []
    for field, (variable, server, default) in _TOKENS.items():
        token = env.get(variable) or None
        named = data.get(server)
        if (
            token is not None
            and server not in servers
            and isinstance(named, str)
            and _origin(named) != _origin(default)
        ):
            token = None
            shown = clean_text(_origin(named)[1])
            notices.append(
                f"{path}:{_toml_line(text, [server])}: {server}: {variable} is not sent to "
                f"{shown}, a server only this file names; to send it there, set "
                f"{_ENVIRONMENT[server]} to that URL in the environment"
            )
        tokens[field] = token
    return tokens, tuple(notices)


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    try:
        port = str(parts.port or _DEFAULT_PORT.get(parts.scheme) or "")
    except ValueError:
        port = "?"
    return parts.scheme.lower(), f"{(parts.hostname or '').lower()}:{port}"


_DEFAULT_PORT = {"http": 80, "https": 443}


def _describe(
    path: Path,
    text: str,
    loc: Sequence[int | str],
    msg: str,
    *,
    from_env: Mapping[str, str],
) -> tuple[float, str]:
    """'FILE:LINE: KEY: message' for one validation error (the environment's: its name),
    with the line to sort it by (the environment's after the file's)."""
    msg = msg.replace("Extra inputs are not permitted", "unknown key")
    msg = msg.removeprefix("Value error, ")
    keys = [str(p) for p in loc if p != "[key]"]
    if keys and keys[0] in from_env:
        return math.inf, f"{_ENVIRONMENT[keys[0]]} (environment): {msg}"
    if keys and keys[0] == "allow_addresses_env":
        return math.inf, f"{ALLOW_ADDRESSES_ENV} (environment): {msg}"
    line = _toml_line(text, keys)
    return line, f"{path}:{line}: {'.'.join(keys)}: {msg}"


_TABLE = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_TOML_KEY = re.compile(r"^\s*([A-Za-z0-9_.\-\"' ]+?)\s*=")


def _toml_line(text: str, keys: Sequence[str]) -> int:
    """The line of the deepest of `keys` found in the TOML text (tomllib gives none), or 1.

    A key is looked up as written in its table (`[fetch]` then `timeout =`) or dotted
    at the top (`fetch.timeout =`); an inline table's entry is found at its table's key,
    an unknown table at its header.
    """
    for depth in range(len(keys), 0, -1):
        wanted = ".".join(keys[:depth])
        for number, key, _ in _toml_rows(text):
            if key == wanted:
                return number
    return 1


def _toml_key_at(text: str) -> str | None:
    """The key whose line `text` ends in (`fetch.user_agent`), if that line is a key's:
    where a byte that is not UTF-8 is, `text` being the file up to it."""
    line = text.count("\n") + 1
    return next((k for n, k, header in _toml_rows(text) if n == line and not header), None)


def _toml_rows(text: str) -> Iterator[tuple[int, str, bool]]:
    """Each table header and `key =` line of the TOML text, as written: its line, its
    full key (`fetch.timeout`; a header's: its table's) and whether it is a header."""
    current = ""
    for number, row in enumerate(text.split("\n"), 1):
        header = _TABLE.match(row)
        if header:
            current = header.group(1).replace('"', "").replace(" ", "")
            yield number, current, True
            continue
        found = _TOML_KEY.match(row)
        if found is not None:
            written = found.group(1).replace('"', "").replace("'", "").replace(" ", "")
            yield number, f"{current}.{written}" if current else written, False


def split_allowances(text: str) -> list[str]:
    """The entries of CLAIMCHECK_ALLOW_ADDRESSES: separated by commas or white space."""
    return text.replace(",", " ").split()


def operator_hosts(*urls: str) -> list[str]:
    """The origins (`host:port`) of the operator's own server URLs, trusted like
    allow_addresses: that one server, not every port of its host."""
    origins: list[str] = []
    for url in urls:
        parts = urlsplit(url)
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:  # a bad port: the URL is refused where it is used
            continue
        if parts.hostname:
            host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
            origins.append(f"{host}:{port}")
    return origins


def environment_allowances(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """What the environment alone allows: CLAIMCHECK_ALLOW_ADDRESSES and the operator's
    GITHUB_API_URL and WAYBACK_URL hosts (the defaults' when unset). The file's server
    URLs count through `Config.allowed_addresses`, which a run passes to the fetcher."""
    env = os.environ if env is None else env
    return (
        *split_allowances(env.get(ALLOW_ADDRESSES_ENV, "")),
        *operator_hosts(
            env.get("GITHUB_API_URL") or DEFAULT_API_URL,
            env.get("WAYBACK_URL") or "https://archive.org",
        ),
    )
