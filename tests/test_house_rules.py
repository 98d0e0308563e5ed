"""The pure core stays pure: no HTTP, CLI, terminal or scheduler library, no file or process I/O.

The judgement (`judge/`), the data (`models`), reading claims and text fragments, the
HTTP policy, the issue plan and bodies and the report formats take everything they need
as arguments and return values, so they are tested with plain values. This test reads
their source (it imports nothing) and fails on a forbidden import or call; the tests
at the bottom show that it does, on modules written for the purpose.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from support import paths

PACKAGE = paths.ROOT / "src" / "claimcheck"

PURE = [
    "judge/*.py",
    "models.py",
    "untrusted.py",
    "utf8.py",
    "claims/parse.py",
    "claims/article.py",
    "claims/yaml_nodes.py",
    "claims/yaml_values.py",
    "claims/fragment.py",
    "claims/shard.py",
    "sources/http_policy.py",
    "sources/addresses.py",
    "sources/resolve.py",
    "sources/keys.py",
    "sources/docs_versions.py",
    "sources/plausible.py",
    "sources/walls.py",
    "sources/decode.py",
    "github/body.py",
    "github/sync.py",
    "report/bounds.py",
    "report/build.py",
    "report/merge.py",
    "report/formats/*.py",
]

FORBIDDEN_MODULES = {
    "httpx": "HTTP belongs in sources/fetch.py and github/issues.py",
    "typer": "the command line belongs in cli/",
    "rich": "the terminal belongs in cli/",
    "apscheduler": "scheduling belongs in nightly/",
    "subprocess": "processes belong in nightly/",
    "socket": "the network belongs in sources/",
    "shutil": "files belong in sources/store.py",
    "tempfile": "files belong in sources/store.py",
    "os": "the environment and files belong to the I/O shell",
    "importlib.resources": "package files are read by the I/O shell",
    "claimcheck.sources.fetch": "fetching is I/O",
    "claimcheck.sources.store": "the store is I/O",
    "claimcheck.sources.state": "the state file is I/O",
    "claimcheck.sources.history": "history is fetched",
    "claimcheck.sources.lock": "the lock is I/O",
    "claimcheck.run": "the orchestrator is I/O",
    "claimcheck.cli": "the command line is the outermost layer",
    "claimcheck.nightly": "the nightly cycle is I/O",
    "claimcheck.github.issues": "the GitHub client is I/O",
}

ALLOWED = {
    # rich is the table format's typesetter: it renders into a string buffer, never a
    # terminal; the format returns text like every other.
    ("report/formats/table.py", "rich"),
}

FORBIDDEN_CALLS = {"open", "input", "print", "exec", "eval", "breakpoint"}
FORBIDDEN_METHODS = {
    "read_text",
    "read_bytes",
    "write_text",
    "write_bytes",
    "mkdir",
    "unlink",
    "touch",
    "urlopen",
}


def pure_modules() -> list[Path]:
    found = sorted({path for pattern in PURE for path in PACKAGE.glob(pattern)})
    assert found, "no pure modules found: has the package moved?"
    return found


def violations(source: str, name: str) -> Iterator[str]:
    """Each forbidden import or call in `source` (the module's path relative to the package)."""
    for node in ast.walk(ast.parse(source)):
        imported: list[str] = []
        if isinstance(node, ast.Import):
            imported = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        hits = [
            f"{name}:{node.lineno} imports {module} ({why})"
            for module in imported
            for banned, why in FORBIDDEN_MODULES.items()
            if (module == banned or module.startswith(banned + "."))
            and (name, banned) not in ALLOWED
        ]
        yield from hits[:1]  # one finding per import statement
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in FORBIDDEN_CALLS:
                yield f"{name}:{node.lineno} calls {func.id}()"
            if isinstance(func, ast.Attribute) and func.attr in FORBIDDEN_METHODS:
                yield f"{name}:{node.lineno} calls .{func.attr}()"


@pytest.mark.parametrize("path", pure_modules(), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_pure_module_does_no_io(path: Path) -> None:
    name = path.relative_to(PACKAGE).as_posix()
    assert list(violations(path.read_text(encoding="utf-8"), name)) == []


def test_every_judge_module_is_held_to_the_rule() -> None:
    judged = {p.name for p in pure_modules() if p.parent.name == "judge"}
    assert judged == {p.name for p in (PACKAGE / "judge").glob("*.py")}
    assert {"anchor.py", "units.py", "context.py", "extract.py", "verdict.py"} <= judged


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import httpx\n", "imports httpx"),
        ("from rich.console import Console\n", "imports rich.console"),
        ("from claimcheck.sources import store\n", "imports claimcheck.sources.store"),
        ("from claimcheck.sources.fetch import Fetcher\n", "imports claimcheck.sources.fetch"),
        ("import apscheduler.triggers.cron\n", "imports apscheduler.triggers.cron"),
        ("from importlib import resources\n", "imports importlib.resources"),
        ("def f(p):\n    return open(p).read()\n", "calls open()"),
        ("def f(p):\n    return p.read_text()\n", "calls .read_text()"),
    ],
    ids=["httpx", "rich", "store-by-from", "fetcher", "apscheduler", "resources", "open", "path"],
)
def test_a_forbidden_import_or_call_is_caught(source: str, found: str) -> None:
    caught = list(violations(source, "judge/new_module.py"))
    assert len(caught) == 1
    assert found in caught[0]
    assert caught[0].startswith("judge/new_module.py:")


def test_the_allowed_exception_is_only_the_table_typesetter() -> None:
    caught = list(violations("from rich.table import Table\n", "report/formats/table.py"))
    assert caught == []
    assert list(violations("from rich.table import Table\n", "report/formats/sarif.py"))


# The pipeline's outer layers, innermost last: a module may import its own layer and the
# layers inside it, never one outside it.
OUTER_LAYERS = {
    "claimcheck.cli": {"claimcheck.cli", "claimcheck.__main__"},
    "claimcheck.nightly": {"claimcheck.cli", "claimcheck.nightly"},
    "claimcheck.run": {"claimcheck.cli", "claimcheck.nightly", "claimcheck.run"},
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> Iterator[tuple[int, str]]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.lineno, node.module


def test_nothing_imports_outwards() -> None:
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        here = module_name(path)
        for line, module in imported_modules(path):
            for layer, allowed in OUTER_LAYERS.items():
                inside = module == layer or module.startswith(layer + ".")
                if inside and not any(here == a or here.startswith(a + ".") for a in allowed):
                    wrong.append(f"{here}:{line} imports {module}")
    assert wrong == []


def test_the_judge_depends_only_on_the_data() -> None:
    """judge/ may use models and untrusted text, and itself: nothing that fetches or stores."""
    allowed = ("claimcheck.judge", "claimcheck.models", "claimcheck.untrusted")
    wrong = [
        f"{module_name(path)}:{line} imports {module}"
        for path in sorted((PACKAGE / "judge").glob("*.py"))
        for line, module in imported_modules(path)
        if module.startswith("claimcheck") and not module.startswith(allowed)
    ]
    assert wrong == []
