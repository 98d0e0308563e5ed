"""Settings from `claimcheck.toml` and the environment, validated in one typed object.

`load_config` finds the project (`find_project`, as git finds `.git`), reads its
claimcheck.toml and the environment, and returns a `Config`; every problem names its
file, line and key. The package imports nothing of claimcheck's but the data and its
text helpers (`models`, `errors`, `untrusted`, `utf8`): the forges, the fetcher and the
rest read it, never the other way round.

Its modules: `settings` (`Config`), `sections` (its tables), `fields` (the shapes of a
value), `project` (where the project and the snapshots folder are), `servers` (the
servers' defaults and tokens), `allowances` (the operator's allow-list), `secrets`
(refusing a token in the file), `toml_lines` (the line of a key) and `load`.
"""

from claimcheck.config.allowances import (
    ALLOW_ADDRESSES_ENV,
    environment_allowances,
    operator_hosts,
    parse_allowance,
    split_allowances,
)
from claimcheck.config.fields import LABEL_MAX, MAX_CONCURRENCY, MAX_JOBS, Settings
from claimcheck.config.load import checked_store_flag, load_config
from claimcheck.config.project import (
    CONFIG_FILE,
    STORE_FLAG_HINT,
    STORE_HINT,
    Project,
    find_project,
    repository_path,
    store_folder_problem,
)
from claimcheck.config.secrets import is_secret_key
from claimcheck.config.sections import (
    ArchiveConfig,
    ArchiveMoment,
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
from claimcheck.config.settings import Config

__all__ = [
    "ALLOW_ADDRESSES_ENV",
    "CONFIG_FILE",
    "DEFAULT_FORGEJO_URL",
    "DEFAULT_GITLAB_URL",
    "DEFAULT_HF_ENDPOINT",
    "DEFAULT_WAYBACK_URL",
    "LABEL_MAX",
    "MAX_CONCURRENCY",
    "MAX_JOBS",
    "STORE_FLAG_HINT",
    "STORE_HINT",
    "ArchiveConfig",
    "ArchiveMoment",
    "Config",
    "FetchConfig",
    "HistoryConfig",
    "IssuesConfig",
    "Project",
    "Settings",
    "VerdictConfig",
    "checked_store_flag",
    "environment_allowances",
    "find_project",
    "is_secret_key",
    "load_config",
    "operator_hosts",
    "parse_allowance",
    "repository_path",
    "split_allowances",
    "store_folder_problem",
]
