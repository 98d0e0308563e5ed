"""config: where each setting comes from, and the ranges of the fetch limits.

The server URLs come from the environment when it sets them, else from
`claimcheck.toml`, else from the defaults; a verify run then asks the server the file
names. `per_host` may go as high as `concurrency`: one host may take every slot.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path, PurePosixPath
from types import NoneType
from typing import Any, get_args
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from typer.testing import CliRunner

from claimcheck.cli.app import app
from claimcheck.config import (
    MAX_CONCURRENCY,
    MAX_JOBS,
    ArchiveConfig,
    Config,
    FetchConfig,
    HistoryConfig,
    IssuesConfig,
    Settings,
    VerdictConfig,
    checked_store_flag,
    load_config,
)
from claimcheck.config.notify import NotifyConfig
from claimcheck.errors import ConfigError
from claimcheck.models import DEFAULT_API_URL
from support import stored_readme
from support.claim_files import README_API, claim, write_claims
from support.local_http import RecordingServer, running

WAYBACK_DEFAULT = "https://archive.org"
SERVERS = [
    ("github_api_url", "GITHUB_API_URL", DEFAULT_API_URL),
    ("wayback_url", "WAYBACK_URL", WAYBACK_DEFAULT),
]
FILE_URL = "https://ghe.example.test/api/v3"
ENV_URL = "https://other.example.test/api/v3"


def write_config(folder: Path, text: str) -> Path:
    path = folder / "claimcheck.toml"
    path.write_text(text, encoding="utf-8")
    return path


def refusal(path: Path, env: dict[str, str] | None = None) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path, env={} if env is None else env)
    return str(caught.value)


# --- [fetch] per_host ----------------------------------------------------------------


def test_per_host_may_go_as_high_as_concurrency(tmp_path: Path) -> None:
    fields = FetchConfig.model_fields
    caps = {
        name: next(m.le for m in fields[name].metadata if hasattr(m, "le"))
        for name in ("concurrency", "per_host")
    }
    assert caps == {"concurrency": MAX_CONCURRENCY, "per_host": MAX_CONCURRENCY}
    assert FetchConfig().per_host == 2  # the default stays polite

    path = write_config(tmp_path, "[fetch]\nconcurrency = 32\nper_host = 32\n")
    config = load_config(path, env={})
    assert (config.fetch.concurrency, config.fetch.per_host) == (32, 32)

    path = write_config(
        tmp_path, f'[fetch]\nper_host = {MAX_CONCURRENCY}\nhosts = {{"a.test" = 32}}\n'
    )
    assert load_config(path, env={}).fetch.per_host == MAX_CONCURRENCY
    assert load_config(path, env={}).fetch.hosts == {"a.test": 32}


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (f"[fetch]\nconcurrency = 8\nper_host = {MAX_CONCURRENCY + 1}\n", ":3: fetch.per_host: "),
        (f'[fetch]\n\nhosts = {{"a.test" = {MAX_CONCURRENCY + 1}}}\n', ":3: fetch.hosts.a.test: "),
        (f"fetch.per_host = {MAX_CONCURRENCY + 1}\n", ":1: fetch.per_host: "),
    ],
    ids=["per-host", "host-override", "dotted"],
)
def test_per_host_above_the_cap_names_file_line_and_key(
    tmp_path: Path, text: str, where: str
) -> None:
    path = write_config(tmp_path, text)
    assert refusal(path) == (
        f"{path}{where}Input should be less than or equal to {MAX_CONCURRENCY}"
    )


# --- jobs: worker processes reading pages ahead -------------------------------------


def test_jobs_is_unset_unless_the_file_sets_it(tmp_path: Path) -> None:
    assert load_config(write_config(tmp_path, "[fetch]\nretries = 1\n"), env={}).jobs is None
    assert load_config(write_config(tmp_path, "jobs = 0\n"), env={}).jobs == 0
    assert load_config(write_config(tmp_path, f"jobs = {MAX_JOBS}\n"), env={}).jobs == MAX_JOBS


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "claims = ['claims']\njobs = -1\n",
            ":2: jobs: Input should be greater than or equal to 0",
        ),
        (f"jobs = {MAX_JOBS + 1}\n", f":1: jobs: Input should be less than or equal to {MAX_JOBS}"),
        ('jobs = "four"\n', ":1: jobs: Input should be a valid integer"),
    ],
    ids=["negative", "above-the-cap", "not-a-number"],
)
def test_a_bad_jobs_names_file_line_and_key(tmp_path: Path, text: str, problem: str) -> None:
    path = write_config(tmp_path, text)
    assert refusal(path).startswith(f"{path}{problem}")


# --- every value has its TOML type -------------------------------------------------


def numeric_keys(model: type[Settings] = Config, table: str = "") -> list[tuple[str, str]]:
    """(table, key) of every number the file may set, found in the models themselves, so
    that a numeric key added later is held to the same rule without a test naming it."""
    found: list[tuple[str, str]] = []
    for name, field in model.model_fields.items():
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, Settings):
            found += numeric_keys(kind, name)
        elif kind in (int, float) or set(get_args(kind)) in ({int, NoneType}, {float, NoneType}):
            found.append((table, name))
    return found


NUMERIC_KEYS = numeric_keys()


def test_the_numeric_keys_are_found_in_the_models() -> None:
    assert {
        ("", "jobs"),
        ("fetch", "concurrency"),
        ("fetch", "per_host"),
        ("fetch", "per_host_interval"),
        ("fetch", "timeout"),
        ("fetch", "retries"),
        ("fetch", "suspect_limit"),
        ("fetch", "max_bytes"),
        ("verdict", "drift_min_score"),
        ("verdict", "max_age_days"),
    } <= set(NUMERIC_KEYS)


def run_with(project: Path, toml: str, *args: str) -> Any:
    """`claimcheck verify --offline` in a project of one citation-needed claim."""
    write_config(project, toml)
    write_claims(project / "claims", [claim("talk", quote=None, source=None, cited="a talk")])
    return CliRunner().invoke(app, ["verify", "--offline", *args], catch_exceptions=False)


@pytest.mark.parametrize("value", ["true", "false"])
@pytest.mark.parametrize(("table", "key"), NUMERIC_KEYS, ids=lambda k: str(k))
def test_a_boolean_is_no_number_for_any_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: str, key: str, value: str
) -> None:
    """pydantic alone reads `true` as 1 and `false` as 0: `max_age_days = true` expired
    every claim, `drift_min_score = false` took any text for the quote."""
    monkeypatch.chdir(tmp_path)
    toml = f'claims = ["claims"]\n[{table}]\n{key} = {value}\n' if table else f"{key} = {value}\n"
    line = 3 if table else 1
    named = f"{table}.{key}" if table else key

    result = run_with(tmp_path, toml)

    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: claimcheck.toml:{line}: {named}: Input should be a ")
    assert "Traceback" not in result.output
    assert not (tmp_path / "snapshots").exists()


def test_max_age_days_true_no_longer_expires_a_verified_claim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reproduction: a claim checked days ago, `max_age_days = true` read as one day."""
    monkeypatch.chdir(tmp_path)
    stored_readme.store_readme(tmp_path / "snapshots", "# Engine\n\nLicense: MIT License\n")
    write_claims(
        tmp_path / "claims",
        [claim("license", quote="MIT License", source="https://github.com/o/r")],
        checked="2026-01-01",
    )
    write_config(tmp_path, "[verdict]\nmax_age_days = 0\n")
    valid = CliRunner().invoke(app, ["verify", "--offline", "--format", "json"])
    write_config(tmp_path, "[verdict]\nmax_age_days = true\n")
    refused = CliRunner().invoke(app, ["verify", "--offline", "--format", "json"])

    assert valid.exit_code == 0, valid.output
    assert '"verdict": "verified"' in valid.stdout
    assert refused.exit_code == 2, refused.output
    assert "claimcheck.toml:2: verdict.max_age_days: Input should be a valid integer" in (
        refused.stderr
    )
    assert refused.stdout == ""


def test_the_wayback_machine_is_on_unless_the_file_turns_it_off(tmp_path: Path) -> None:
    assert load_config(write_config(tmp_path, ""), env={}).history.wayback is True
    off = load_config(write_config(tmp_path, "[history]\nwayback = false\n"), env={})
    assert off.history.wayback is False


def test_a_whole_number_is_a_number_where_a_fraction_is_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    toml = "[fetch]\ntimeout = 20\nper_host_interval = 1\n[verdict]\ndrift_min_score = 1\n"

    result = run_with(tmp_path, toml)
    config = load_config(tmp_path / "claimcheck.toml", env={})

    assert result.exit_code == 0, result.output
    assert (config.fetch.timeout, config.fetch.per_host_interval) == (20.0, 1.0)
    assert config.verdict.drift_min_score == 1.0


@pytest.mark.parametrize(
    ("toml", "problem"),
    [
        (
            '[fetch]\nretries = "3"\n',
            "claimcheck.toml:2: fetch.retries: Input should be a valid integer",
        ),
        (
            "[fetch]\nretries = 3.0\n",
            "claimcheck.toml:2: fetch.retries: Input should be a valid integer",
        ),
        ('[verdict]\ndrift_min_score = "70"\n', "claimcheck.toml:2: verdict.drift_min_score: "),
        ('claims = "claims"\n', "claimcheck.toml:1: claims: Input should be a valid list"),
        ("[issues]\nexpired = 1\n", "claimcheck.toml:2: issues.expired: Input should be a valid"),
        (
            "[history]\nwayback = 0\n",
            "claimcheck.toml:2: history.wayback: Input should be a valid boolean",
        ),
        (
            '[history]\nwayback = "false"\n',
            "claimcheck.toml:2: history.wayback: Input should be a valid boolean",
        ),
        ("[history]\nwayback = false\nwaybak = true\n", "claimcheck.toml:3: history.waybak: "),
    ],
    ids=[
        "quoted-count",
        "fraction-for-a-count",
        "quoted-score",
        "text-for-a-list",
        "number-flag",
        "number-for-the-wayback-switch",
        "quoted-wayback-switch",
        "misspelt-history-key",
    ],
)
def test_no_value_is_converted_to_the_type_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toml: str, problem: str
) -> None:
    monkeypatch.chdir(tmp_path)

    result = run_with(tmp_path, toml)

    assert result.exit_code == 2, result.output
    assert problem in result.stderr


def test_every_table_of_the_file_is_read_strictly() -> None:
    """A key added to any table, a boolean one too (`= 1` is no `true`), is held to its
    type: every model of the file is a `Settings`, and those are strict."""
    tables = [Config, *(f.annotation for f in Config.model_fields.values())]
    models = [t for t in tables if isinstance(t, type) and issubclass(t, BaseModel)]

    assert models == [
        Config,
        FetchConfig,
        VerdictConfig,
        IssuesConfig,
        HistoryConfig,
        NotifyConfig,
        ArchiveConfig,
    ]
    assert all(issubclass(m, Settings) and m.model_config.get("strict") for m in models)


# --- server URLs: environment > claimcheck.toml > default ----------------------------


@pytest.mark.parametrize(("key", "variable", "default"), SERVERS)
def test_the_files_server_url_counts_when_the_environment_sets_none(
    tmp_path: Path, key: str, variable: str, default: str
) -> None:
    path = write_config(tmp_path, f'{key} = "{FILE_URL}"\n')
    assert getattr(load_config(path, env={}), key) == FILE_URL
    assert getattr(load_config(path, env={variable: ""}), key) == FILE_URL  # empty: unset


@pytest.mark.parametrize(("key", "variable", "default"), SERVERS)
def test_the_environment_overrides_the_files_server_url(
    tmp_path: Path, key: str, variable: str, default: str
) -> None:
    """GitHub Actions sets GITHUB_API_URL in every job, to the API it runs next to."""
    path = write_config(tmp_path, f'{key} = "{FILE_URL}"\n')
    assert getattr(load_config(path, env={variable: ENV_URL}), key) == ENV_URL


@pytest.mark.parametrize(("key", "variable", "default"), SERVERS)
def test_the_default_server_url_without_file_or_environment(
    tmp_path: Path, key: str, variable: str, default: str
) -> None:
    path = write_config(tmp_path, "[fetch]\nretries = 1\n")
    assert getattr(load_config(path, env={}), key) == default
    assert getattr(load_config(path, env={variable: ENV_URL}), key) == ENV_URL


def test_the_files_server_urls_are_trusted_like_the_environments(tmp_path: Path) -> None:
    path = write_config(
        tmp_path, 'github_api_url = "http://10.1.2.3:8080/api"\nwayback_url = "http://[::1]:81"\n'
    )
    allowed = load_config(path, env={}).allowed_addresses
    assert "10.1.2.3:8080" in allowed
    assert "[::1]:81" in allowed
    assert "api.github.com:443" not in allowed


@pytest.mark.parametrize(("key", "variable", "default"), SERVERS)
def test_a_bad_server_url_is_blamed_where_it_came_from(
    tmp_path: Path, key: str, variable: str, default: str
) -> None:
    path = write_config(tmp_path, f'claims = ["claims"]\n{key} = "ftp://x.test/"\n')
    assert refusal(path) == f"{path}:2: {key}: must be an http(s) URL with a host"
    assert refusal(path, {variable: "http://[::1"}).startswith(f"{variable} (environment): ")
    assert getattr(load_config(path, env={variable: ENV_URL}), key) == ENV_URL


def test_the_token_never_comes_from_the_file(tmp_path: Path) -> None:
    """A token key in the file is refused (tests/test_config_secrets.py); the
    environment's token is the one used."""
    refused = write_config(tmp_path, 'github_token = "ghp_fromTheFile"\n')
    assert refusal(refused).startswith(f"{refused}:1: github_token: a secret is never read")
    path = write_config(tmp_path, 'claims = ["claims"]\n')
    assert load_config(path, env={}).github_token is None
    assert load_config(path, env={"GITHUB_TOKEN": "ghp_fromEnv"}).github_token == "ghp_fromEnv"


# --- a verify run asks the server the file names ------------------------------------


class _Missing(BaseHTTPRequestHandler):
    """Every path is 404, recorded: enough to see which server a run asked."""

    server: Any

    def do_GET(self) -> None:
        self.server.paths.append(urlsplit(self.path).path)
        self.server.authorizations.append(self.headers.get("Authorization"))
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def api() -> Iterator[RecordingServer]:
    server = RecordingServer(("127.0.0.1", 0), _Missing, errors=[])
    server.paths = []  # type: ignore[attr-defined]
    server.authorizations = []  # type: ignore[attr-defined]
    with running(server):
        yield server


def test_verify_asks_the_api_server_the_file_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, api: RecordingServer
) -> None:
    host, port = api.server_address[:2]
    base = f"http://{host!s}:{port}"
    for name in ("GITHUB_API_URL", "WAYBACK_URL", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    write_claims(tmp_path / "claims", [claim()])
    write_config(
        tmp_path,
        f'github_api_url = "{base}"\nwayback_url = "{base}"\n\n'
        "[fetch]\nper_host_interval = 0\nretries = 0\n\n[verdict]\nmax_age_days = 0\n",
    )

    result = CliRunner().invoke(app, ["verify", "--format", "json"], catch_exceptions=False)

    assert '"source-gone"' in result.stdout, result.output
    assert README_API in api.paths  # type: ignore[attr-defined]


# --- a token goes only to a server the environment (or the default) names -------------

TOKENS = [
    ("github_api_url", "GITHUB_API_URL", "GITHUB_TOKEN", "github_token", DEFAULT_API_URL),
    ("hf_endpoint", "HF_ENDPOINT", "HF_TOKEN", "hf_token", "https://huggingface.co"),
    ("gitlab_url", "GITLAB_URL", "GITLAB_TOKEN", "gitlab_token", "https://gitlab.com"),
    ("forgejo_url", "FORGEJO_URL", "FORGEJO_TOKEN", "forgejo_token", "https://codeberg.org"),
]


@pytest.mark.parametrize(("key", "server_env", "token_env", "field", "default"), TOKENS)
def test_a_token_is_withheld_from_a_server_only_the_file_names(
    tmp_path: Path, key: str, server_env: str, token_env: str, field: str, default: str
) -> None:
    path = write_config(tmp_path, f'# a pull request could write this\n{key} = "{FILE_URL}"\n')

    withheld = load_config(path, env={token_env: "secret-123"})
    named_by_env = load_config(path, env={token_env: "secret-123", server_env: FILE_URL})
    default_named = load_config(
        write_config(tmp_path, f'{key} = "{default}/"\n'), env={token_env: "secret-123"}
    )

    assert getattr(withheld, field) is None
    [notice] = withheld.notices
    assert notice.startswith(f"{path}:2: {key}: {token_env} is not sent to ghe.example.test:443")
    assert server_env in notice
    assert "secret-123" not in notice
    assert getattr(named_by_env, field) == "secret-123"
    assert named_by_env.notices == ()
    assert getattr(default_named, field) == "secret-123"
    assert default_named.notices == ()


def test_verify_asks_a_server_the_file_names_without_the_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, api: RecordingServer
) -> None:
    host, port = api.server_address[:2]
    base = f"http://{host!s}:{port}"
    for name in ("GITHUB_API_URL", "WAYBACK_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_notForThatHost")
    monkeypatch.chdir(tmp_path)
    write_claims(tmp_path / "claims", [claim()])
    write_config(
        tmp_path,
        f'github_api_url = "{base}"\nwayback_url = "{base}"\n\n'
        "[fetch]\nper_host_interval = 0\nretries = 0\n\n[verdict]\nmax_age_days = 0\n",
    )

    withheld = CliRunner().invoke(app, ["verify", "--format", "json"], catch_exceptions=False)
    seen_without = list(api.authorizations)  # type: ignore[attr-defined]
    monkeypatch.setenv("GITHUB_API_URL", base)  # the operator names it: the token goes
    given = CliRunner().invoke(app, ["verify", "--format", "json"], catch_exceptions=False)
    seen_with = api.authorizations[len(seen_without) :]  # type: ignore[attr-defined]

    assert seen_without
    assert all(a is None for a in seen_without)
    assert "warning: claimcheck.toml:1: github_api_url: GITHUB_TOKEN is not sent" in (
        withheld.stderr
    )
    assert "ghp_notForThatHost" not in withheld.output
    assert seen_with
    assert all(a is not None and "ghp_notForThatHost" in a for a in seen_with)
    assert "warning" not in given.stderr


# --- which file: --config > the nearest claimcheck.toml up > the defaults ---------------


def test_the_config_option_wins_over_the_file_found_above(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(tmp_path, "[fetch]\nretries = 1\n\n[verdict]\nmax_age_days = 7\n")
    sub = tmp_path / "claims" / "drafts"
    sub.mkdir(parents=True)
    (sub / "alt.toml").write_text("[fetch]\nretries = 5\n", encoding="utf-8")
    monkeypatch.chdir(sub)

    found = load_config(None, env={})
    named = load_config(Path("alt.toml"), env={})

    assert (found.fetch.retries, found.verdict.max_age_days) == (1, 7)
    assert found.root == Path("..", "..")
    assert found.snapshots_dir == Path("..", "..", "snapshots")
    assert (named.fetch.retries, named.verdict.max_age_days) == (5, 180)  # nothing merged
    assert named.root == Path()
    assert named.claim_paths == [Path("claims")]  # beside alt.toml, in the current folder
    with pytest.raises(ConfigError, match=r"^nope\.toml: no such config file$"):
        load_config(Path("nope.toml"), env={})  # named, never looked for elsewhere


# --- how the file's problems are listed ---------------------------------------------


def test_the_problems_of_the_config_are_listed_one_a_line_in_the_files_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """They came joined by `; ` on one line, in the models' order (4, 2, 3): now one a
    line under one `error:`, by line, the environment's after the file's, as a claim
    file's problems are listed."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_API_URL", "ftp://x.test/")
    toml = 'jobs = "two"\n[fetch]\ntimeout = "y"\nconcurrency = "z"\nretries = "x"\n'

    result = run_with(tmp_path, toml)

    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [
        "error: claimcheck.toml:1: jobs: Input should be a valid integer",
        "claimcheck.toml:3: fetch.timeout: Input should be a valid number",
        "claimcheck.toml:4: fetch.concurrency: Input should be a valid integer",
        "claimcheck.toml:5: fetch.retries: Input should be a valid integer",
        "GITHUB_API_URL (environment): must be an http(s) URL with a host",
        "hint: see docs/configuration.md",
    ]


@pytest.mark.parametrize("holds_one", [True, False], ids=["with-a-config", "without"])
def test_a_config_option_naming_a_folder_says_it_is_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, holds_one: bool
) -> None:
    """`--config some_folder` said `no such config file`, of a folder that is there."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "conf").mkdir()
    if holds_one:
        write_config(tmp_path / "conf", "")
    hint = (
        f"give the file itself: --config {Path('conf', 'claimcheck.toml')}"
        if holds_one
        else "--config takes a claimcheck.toml file, not its folder"
    )

    result = run_with(tmp_path, "", "--config", "conf")

    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [
        "error: conf: is a folder, not a config file",
        f"hint: {hint}",
    ]


# --- a server URL carries no credentials -------------------------------------------

ALL_SERVERS = [
    ("github_api_url", "GITHUB_API_URL"),
    ("wayback_url", "WAYBACK_URL"),
    ("hf_endpoint", "HF_ENDPOINT"),
    ("gitlab_url", "GITLAB_URL"),
    ("forgejo_url", "FORGEJO_URL"),
]
SENDS_NONE = (
    "carries a user name or password (https://***@ghe.example.test): claimcheck sends no "
    "credentials written in a server URL; give the URL without them, and a forge's token in "
    "the environment (GITHUB_TOKEN, HF_TOKEN, GITLAB_TOKEN, FORGEJO_TOKEN)"
)


@pytest.mark.parametrize(
    "url",
    ["https://alice:s3cret@ghe.example.test/api/v3", "https://alice@ghe.example.test/api/v3"],
    ids=["password", "user-name"],
)
@pytest.mark.parametrize(("key", "variable"), ALL_SERVERS)
def test_a_server_url_with_a_user_name_or_password_is_refused_and_never_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str, variable: str, url: str
) -> None:
    """httpx sent them as basic authentication to that server, and messages showed them:
    the file's URL is refused at its line and key, the environment's by its name."""
    monkeypatch.chdir(tmp_path)
    for _, name in ALL_SERVERS:
        monkeypatch.delenv(name, raising=False)

    in_file = run_with(tmp_path, f'claims = ["claims"]\n{key} = "{url}"\n')
    monkeypatch.setenv(variable, url)
    in_env = run_with(tmp_path, "")

    assert in_file.exit_code == 2, in_file.output
    assert in_file.stderr.splitlines()[0] == f"error: claimcheck.toml:2: {key}: {SENDS_NONE}"
    assert in_env.exit_code == 2, in_env.output
    assert in_env.stderr.splitlines()[0] == f"error: {variable} (environment): {SENDS_NONE}"
    for result in (in_file, in_env):
        assert "alice" not in result.output
        assert "s3cret" not in result.output
        assert result.stdout == ""


# --- snapshots: a folder of its own ---------------------------------------------------

PATH_PARTS = st.sampled_from(["..", ".", "claims", "kept", "a"])


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(parts=st.lists(PATH_PARTS, min_size=1, max_size=6), absolute=st.booleans())
def test_snapshots_is_refused_exactly_when_it_is_not_a_folder_of_its_own(
    tmp_path: Path, parts: list[str], absolute: bool
) -> None:
    """Any `snapshots` that comes to the project's folder, one above it, one outside it
    or the claims' folder (or one in it or above it) is refused at its line; any other
    is taken; --snapshots by the same rule, a folder outside the project aside. Worked
    out here from the path's text alone (no symlinks in it)."""
    root = (tmp_path / "project").resolve()
    (root / "claims").mkdir(parents=True, exist_ok=True)
    value = "/".join(parts)
    if absolute:
        value = f"{root}/{value}"
    path = write_config(root, f'claims = ["claims"]\nsnapshots = {json.dumps(value)}\n')
    at = PurePosixPath(os.path.normpath(root / value))
    claims = PurePosixPath(root / "claims")
    own = (
        at != PurePosixPath(root)
        and at.is_relative_to(root)
        and not at.is_relative_to(claims)
        and not claims.is_relative_to(at)
    )

    if own:
        assert load_config(path, env={}).snapshots_dir.resolve() == Path(at)
    else:
        assert refusal(path).startswith(f"{path}:2: snapshots: {value!r} ")
    # --snapshots is judged by the same rule, but may lead outside the project.
    config = load_config(write_config(root, 'claims = ["claims"]\n'), env={})
    scratch = not at.is_relative_to(root) and not PurePosixPath(root).is_relative_to(at)
    if own or scratch:
        assert checked_store_flag(config, root / value) == Path(at)
    else:
        with pytest.raises(ConfigError, match=f"^--snapshots {re.escape(str(root / value))}: "):
            checked_store_flag(config, root / value)


@pytest.mark.parametrize(
    ("target", "refused"),
    [(".", "is the project's folder"), ("claims", "is where the claims are"), ("kept", None)],
    ids=["to-the-project", "to-the-claims", "to-a-folder-of-its-own"],
)
def test_a_snapshots_symlink_is_judged_where_it_leads(
    tmp_path: Path, target: str, refused: str | None
) -> None:
    """`snapshots = "store"`, a link: to `.` it is the project's folder, whatever its name."""
    (tmp_path / "claims").mkdir()
    (tmp_path / "kept").mkdir()
    (tmp_path / "store").symlink_to(target, target_is_directory=True)
    path = write_config(tmp_path, '# the store\nsnapshots = "store"\n')

    if refused is None:
        assert load_config(path, env={}).snapshots_dir.resolve() == (tmp_path / "kept").resolve()
    else:
        assert refusal(path).startswith(f"{path}:2: snapshots: 'store' {refused}")


def test_a_scratch_snapshots_folder_outside_the_project_is_taken_from_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--snapshots is the operator's own choice, not the repository's: a scratch folder
    outside the project (a trial run, as the README shows) is taken; the file's key is
    refused there."""
    project, scratch = tmp_path / "project", tmp_path / "scratch"
    project.mkdir()
    monkeypatch.chdir(project)

    taken = run_with(project, "", "--snapshots", str(scratch))
    in_file = run_with(project, f"snapshots = {json.dumps(str(scratch))}\n")

    assert taken.exit_code == 0, taken.output
    assert in_file.exit_code == 2, in_file.output
    assert "claimcheck.toml:1: snapshots: " in in_file.stderr
    assert "is outside the project's folder" in in_file.stderr


def test_claims_in_the_default_snapshots_folder_are_refused_at_the_claims_key(
    tmp_path: Path,
) -> None:
    """No `snapshots` key: the store is `snapshots/`, and claims put there are named."""
    path = write_config(tmp_path, '# claims where the store goes\nclaims = ["snapshots/a.yaml"]\n')

    assert refusal(path) == (
        f"{path}:2: claims: the default snapshots folder 'snapshots' holds the claims at "
        f"{(tmp_path / 'snapshots' / 'a.yaml').resolve().as_posix()}"
    )
