"""Reading claimcheck.toml and the environment into a `Config`, every problem named by its
file, line and key; and the check of the `--snapshots` flag.

Flags override the file, the file overrides the defaults. The server URLs are read from
the environment first (`GITHUB_API_URL`, `WAYBACK_URL`, `HF_ENDPOINT`, `GITLAB_URL`,
`FORGEJO_URL`), then the file's `github_api_url` / `wayback_url` / `hf_endpoint` /
`gitlab_url` / `forgejo_url`, then the defaults; `GITHUB_TOKEN`, `HF_TOKEN`,
`GITLAB_TOKEN` and `FORGEJO_TOKEN` only ever come from the environment, and a token,
password or secret key in the file is refused, its line and key named and its value
never shown (`refuse_secrets`). Unknown keys are errors: a misspelt threshold silently
ignored would change verdicts without anyone noticing. Every value has a range (finite
numbers, positive limits, one-line printable text), so a value that would hang a run
(`per_host_interval = inf`), crash it later (`hosts = {"x" = 0}`) or forge a header (a
CR/LF in `user_agent`) is an error that names its file, line and key before anything is
fetched; so is a server URL with a user name or password in it, which would go to that
server with every request. The problems of a file are listed one a line, in its order,
as a claim file's are.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import ValidationError

from claimcheck.config.allowances import ALLOW_ADDRESSES_ENV, split_allowances
from claimcheck.config.fields import path_text
from claimcheck.config.notify import refuse_notify_urls
from claimcheck.config.project import (
    CONFIG_FILE,
    STORE_FLAG_HINT,
    STORE_HINT,
    find_project,
    from_cwd,
    store_folder_problem,
)
from claimcheck.config.secrets import refuse_secrets
from claimcheck.config.servers import ENVIRONMENT, tokens_for_servers
from claimcheck.config.settings import Config
from claimcheck.config.toml_lines import toml_key_at, toml_line
from claimcheck.errors import ConfigError
from claimcheck.untrusted import clean_text
from claimcheck.utf8 import NotUtf8Error, decode_utf8

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
        root = from_cwd(project.root, cwd)
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
            key = toml_key_at(exc.before) or "cannot read"
            raise ConfigError(f"{path}:{exc.line}: {key}: {exc}") from exc
        except (OSError, tomllib.TOMLDecodeError, RecursionError) as exc:
            at = re.search(r"\(at line (\d+)", str(exc))
            where = f"{path}:{at.group(1)}" if at else f"{path}:1"
            raise ConfigError(f"{where}: cannot read: {exc or type(exc).__name__}") from exc
    elif explicit:
        raise _not_a_config_file(path)
    refuse_secrets(data, path, text)
    refuse_notify_urls(data, path, text)
    for key in _SET_BY_CLAIMCHECK:
        if key in data:
            raise ConfigError(
                f"{path}:{toml_line(text, [key])}: {key}: unknown key",
                hint="claims and snapshots are taken from the folder of claimcheck.toml",
            )
    # A server URL set in the environment wins over the file's, and the file's over the
    # default: GitHub Actions sets GITHUB_API_URL in every job, to the server the
    # workflow runs on (GitHub Enterprise included), which is where the API is.
    servers = {key: env[name] for key, name in ENVIRONMENT.items() if env.get(name)}
    tokens, notices = tokens_for_servers(data, servers, env, path, text)
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


def _store_key_problem(
    data: Mapping[str, object], root: Path, path: Path, text: str
) -> tuple[float, str] | None:
    """The file's `snapshots` as `store_folder_problem` judges it, with its line; None
    when it is fine, or when it or `claims` is of no use (their own errors say so).
    With no `snapshots` key, the default folder is judged at the `claims` key: it is
    the claims that were put where the store goes."""
    store = data.get("snapshots", Config.model_fields["snapshots"].default)
    claims = data.get("claims", ["claims"])
    if not path_text(store) or not isinstance(claims, list) or not all(map(path_text, claims)):
        return None
    problem = store_folder_problem(root / store, root, [root / c for c in claims])
    if problem is None:
        return None
    value = clean_text(store)
    if "snapshots" not in data:
        line = toml_line(text, ["claims"])
        return line, f"{path}:{line}: claims: the default snapshots folder {value!r} {problem}"
    line = toml_line(text, ["snapshots"])
    return line, f"{path}:{line}: snapshots: {value!r} {problem}"


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
        return math.inf, f"{ENVIRONMENT[keys[0]]} (environment): {msg}"
    if keys and keys[0] == "allow_addresses_env":
        return math.inf, f"{ALLOW_ADDRESSES_ENV} (environment): {msg}"
    line = toml_line(text, keys)
    return line, f"{path}:{line}: {'.'.join(keys)}: {msg}"
