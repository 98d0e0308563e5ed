"""The pure core stays pure: no HTTP, CLI, terminal or scheduler library, no file or process I/O.

The judgement (`judge/`), the data (`models`), reading claims and text fragments, the
HTTP policy, the issue plan and bodies and the report formats take everything they need
as arguments and return values, so they are tested with plain values. This test reads
their source (it imports nothing) and fails on a forbidden import or call; the tests
at the bottom show that it does, on modules written for the purpose.
"""

from __future__ import annotations

import ast
import importlib
import re
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from support import paths

PACKAGE = paths.ROOT / "src" / "claimcheck"

PURE = [
    "judge/*.py",
    "models.py",
    "page.py",
    "untrusted.py",
    "utf8.py",
    "claims/parse.py",
    "claims/schema.py",
    "claims/field_checks.py",
    "claims/claim_checks.py",
    "claims/problems.py",
    "claims/article.py",
    "claims/article_html.py",
    "claims/yaml_loader.py",
    "claims/yaml_read.py",
    "claims/yaml_refusals.py",
    "claims/yaml_text.py",
    "claims/yaml_values.py",
    "claims/fragment.py",
    "claims/shard.py",
    "net/http_policy.py",
    "net/addresses.py",
    "forges/resolve.py",
    "store/keys.py",
    "forges/docs_versions.py",
    "judge/walls.py",
    "github/body.py",
    "github/sync.py",
    "report/bounds.py",
    "report/build.py",
    "report/merge.py",
    "report/formats/*.py",
    "notify/plan.py",
    "notify/message.py",
]

FORBIDDEN_MODULES = {
    "httpx": "HTTP belongs in net/ and github/issues.py",
    "typer": "the command line belongs in cli/",
    "rich": "the terminal belongs in cli/",
    "apscheduler": "scheduling belongs in nightly/",
    "subprocess": "processes belong in nightly/",
    "socket": "the network belongs in net/",
    "shutil": "files belong in store/store.py",
    "tempfile": "files belong in store/store.py",
    "os": "the environment and files belong to the I/O shell",
    "importlib.resources": "package files are read by the I/O shell",
    "claimcheck.net.fetch": "fetching is I/O",
    "claimcheck.net.fetcher": "fetching is I/O",
    "claimcheck.net.reply": "fetching is I/O",
    "claimcheck.store.store": "the store is I/O",
    "claimcheck.store.state": "the state file is I/O",
    "claimcheck.forges.history": "history is fetched",
    "claimcheck.history.online": "history is fetched",
    "claimcheck.store.lock": "the lock is I/O",
    "claimcheck.pipeline": "the orchestrator is I/O",
    "claimcheck.judging": "the judge stage reads the store",
    "claimcheck.observe": "observing sources is I/O",
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
        ("from claimcheck.store import store\n", "imports claimcheck.store.store"),
        ("from claimcheck.net.fetcher import Fetcher\n", "imports claimcheck.net.fetcher"),
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


# The pipeline level: the stage sequence and the modules of its stages that need several
# packages below at once.
PIPELINE = ("claimcheck.pipeline", "claimcheck.judging", "claimcheck.observe")

# The pipeline's outer layers, innermost last: a module may import its own layer and the
# layers inside it, never one outside it.
OUTER_LAYERS = {
    "claimcheck.cli": {"claimcheck.cli", "claimcheck.__main__"},
    "claimcheck.api": {"claimcheck.api"},
    "claimcheck.nightly": {"claimcheck.cli", "claimcheck.nightly"},
    "claimcheck.notify": {"claimcheck.cli", "claimcheck.nightly", "claimcheck.notify"},
    **{
        layer: {"claimcheck.cli", "claimcheck.nightly", "claimcheck.api", *PIPELINE}
        for layer in PIPELINE
    },
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
        if here == "claimcheck":
            continue  # the public API, outermost: it names what it exports
        for line, module in imported_modules(path):
            for layer, allowed in OUTER_LAYERS.items():
                inside = module == layer or module.startswith(layer + ".")
                if inside and not any(here == a or here.startswith(a + ".") for a in allowed):
                    wrong.append(f"{here}:{line} imports {module}")
    assert wrong == []


def test_the_judge_depends_only_on_the_data() -> None:
    """judge/ may use models and untrusted text, the third-party readers loaded late
    (`late`), and itself: nothing that fetches or stores."""
    allowed = (
        "claimcheck.judge",
        "claimcheck.models",
        "claimcheck.page",
        "claimcheck.untrusted",
        "claimcheck.late",
        "claimcheck._compat",
    )
    wrong = [
        f"{module_name(path)}:{line} imports {module}"
        for path in sorted((PACKAGE / "judge").glob("*.py"))
        for line, module in imported_modules(path)
        if module.startswith("claimcheck") and not module.startswith(allowed)
    ]
    assert wrong == []


def test_the_store_does_not_depend_on_the_judge() -> None:
    """store/ keeps bodies and hands their pages on: what a page says is the judge's."""
    wrong = [
        f"{module_name(path)}:{line} imports {module}"
        for path in sorted((PACKAGE / "store").glob("*.py"))
        for line, module in imported_modules(path)
        if module.startswith("claimcheck.judge")
    ]
    assert wrong == []


def test_the_stage_sequence_reads_in_one_sitting() -> None:
    lines = (PACKAGE / "pipeline.py").read_text(encoding="utf-8").count("\n")
    assert lines <= 300


# A dependency's private names are reached only in `_compat/`, one module per dependency,
# each with a version check (tests/test_compat.py). Elsewhere: no import of a private
# module or name of a dependency (`httpcore._utils`, `from cmarkgfm import _cmark`), no
# private attribute of an imported dependency module (`yaml._yaml`), no private module
# named in a string (`sys.modules["httpx._main"]`), and none of the private attributes
# of httpx's and httpcore's objects that a pool swap would read, on anything but `self`.

COMPAT = PACKAGE / "_compat"

PRIVATE_ATTRIBUTES = {
    "_pool",
    "_ssl_context",
    "_network_backend",
    "_connections",
    "_requests",
    "_max_connections",
    "_max_keepalive_connections",
    "_keepalive_expiry",
    "_assign_requests_to_connections",
}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _dependency(module: str) -> bool:
    top = module.split(".")[0]
    return bool(top) and top != "claimcheck" and top not in sys.stdlib_module_names


def _dependency_names() -> list[str]:
    """The import names of the installed distributions that are not claimcheck's own."""
    return sorted(
        name
        for name in metadata.packages_distributions()
        if name.isidentifier() and _dependency(name)
    )


_NAMED_PRIVATE = re.compile(r"\b(?:" + "|".join(_dependency_names()) + r")(?:\.\w+)*\._[a-z]")


def _overrides_private(node: ast.ClassDef, modules: set[str]) -> Iterator[str]:
    """A private method a class defines over its dependency base class's own."""
    for base in node.bases:
        if not (isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name)):
            continue
        if base.value.id not in modules:
            continue
        inherited = getattr(importlib.import_module(base.value.id), base.attr, None)
        for item in node.body:
            defined = isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            if defined and _private(item.name) and hasattr(inherited, item.name):
                yield f"{item.lineno}: {base.value.id}.{base.attr}.{item.name} overridden"


def private_reaches(source: str) -> Iterator[str]:
    """Each reach into a dependency's private names in `source`, as `line: what`."""
    tree = ast.parse(source)
    modules: set[str] = set()  # names bound to an imported dependency module
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _dependency(alias.name):
                    modules.add(alias.asname or alias.name.split(".")[0])
                    if any(_private(part) for part in alias.name.split(".")):
                        yield f"{node.lineno}: import {alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not _dependency(node.module):
                continue
            if any(_private(part) for part in node.module.split(".")):
                yield f"{node.lineno}: from {node.module} import"
            for alias in node.names:
                if _private(alias.name):
                    yield f"{node.lineno}: from {node.module} import {alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            base = node.value
            if isinstance(base, ast.Name) and base.id in modules:
                yield f"{node.lineno}: {base.id}.{node.attr}"
            elif node.attr in PRIVATE_ATTRIBUTES and not (
                isinstance(base, ast.Name) and base.id in ("self", "cls")
            ):
                yield f"{node.lineno}: .{node.attr}"
        elif isinstance(node, ast.ClassDef):
            yield from _overrides_private(node, modules)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and " " not in node.value
            and _NAMED_PRIVATE.search(node.value)
        ):
            yield f"{node.lineno}: {node.value!r}"


def test_no_private_name_of_a_dependency_is_reached_outside_compat() -> None:
    wrong = [
        f"{path.relative_to(PACKAGE)}:{reach}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if COMPAT not in path.parents
        for reach in private_reaches(path.read_text(encoding="utf-8"))
    ]
    assert wrong == []


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("from httpcore._utils import is_socket_readable\n", "from httpcore._utils import"),
        ("from cmarkgfm import _cmark\n", "from cmarkgfm import _cmark"),
        ("import yaml\nparser = yaml._yaml.CParser\n", "yaml._yaml"),
        ("import httpcore._async.interfaces\n", "import httpcore._async.interfaces"),
        ("def f(transport):\n    return transport._pool\n", "._pool"),
        ("import sys\nsys.modules['httpx._main'] = None\n", "'httpx._main'"),
        (
            "import httpcore\nclass P(httpcore.AsyncConnectionPool):\n"
            "    def _assign_requests_to_connections(self):\n        return []\n",
            "AsyncConnectionPool._assign_requests_to_connections overridden",
        ),
    ],
)
def test_a_reach_into_a_private_name_is_caught(source: str, found: str) -> None:
    assert any(found in reach for reach in private_reaches(source))


@pytest.mark.parametrize(
    "source",
    [
        "from claimcheck._compat.cmark import render_gfm\n",
        "import os\nos._exit(0)\n",  # the standard library's own names are not a dependency's
        "class Pool:\n    def close(self):\n        self._pool.shutdown()\n",
        "import httpx\nclient = httpx.AsyncClient()\n",
        "import httpcore\nclass B(httpcore.AsyncNetworkBackend):\n"
        "    def _own(self):\n        pass\n",
    ],
)
def test_our_own_and_public_names_are_not_caught(source: str) -> None:
    assert list(private_reaches(source)) == []


# No import cycles among claimcheck's modules. Every import counts, at module level and
# inside a function (an import moved into a function to dodge a cycle is still one),
# but not one under `if TYPE_CHECKING:`, which never runs.

ALLOWED_CYCLES: set[frozenset[str]] = set()
"""None left: every module imports only modules that do not import it back."""


def _type_checking_only(tree: ast.Module) -> set[int]:
    """The nodes under `if TYPE_CHECKING:` (by id)."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        test = node.test if isinstance(node, ast.If) else None
        named = isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
        if named or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"):
            assert isinstance(node, ast.If)
            inside.update(id(n) for statement in node.body for n in ast.walk(statement))
    return inside


def imports_among(modules: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """Which of `modules` (name -> (source, is a package)) each one imports."""
    graph: dict[str, set[str]] = {}
    for name, (source, package) in modules.items():
        tree = ast.parse(source)
        skipped = _type_checking_only(tree)
        here = name if package else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name in modules)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = here.split(".")
                    parts = parts[: len(parts) - node.level + 1]
                    target = ".".join(parts + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    if f"{target}.{alias.name}" in modules:
                        found.add(f"{target}.{alias.name}")
                    elif target in modules:
                        found.add(target)
        graph[name] = found - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The modules that import each other round a cycle, as groups (strongly connected
    components of more than one module), by Tarjan's algorithm without recursion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            step = next(successors, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.add(frozenset(group))
    return found


def test_no_import_cycle_but_the_ones_named() -> None:
    modules = {
        module_name(path): (path.read_text(encoding="utf-8"), path.name == "__init__.py")
        for path in sorted(PACKAGE.rglob("*.py"))
    }
    assert cycles(imports_among(modules)) == ALLOWED_CYCLES


def test_a_cycle_through_an_import_in_a_function_is_found() -> None:
    modules = {
        "p": ("", True),
        "p.a": ("from p.b import x\n", False),
        "p.b": ("def f():\n    from . import c\n", False),
        "p.c": ("import p.a\n", False),
        "p.d": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import p.a\n", False),
        "p.e": ("import p.d\n", False),
    }
    graph = imports_among(modules)
    assert graph["p.b"] == {"p.c"}
    assert graph["p.d"] == set()  # only for the type checker
    assert cycles(graph) == {frozenset({"p.a", "p.b", "p.c"})}


def test_every_patch_in_compat_checks_the_version_it_was_written_for() -> None:
    """Each module of `_compat/` (but the package and its version reader) asks
    `versions.supported` or `versions.require` before it reaches a private name."""
    unchecked = []
    patches = [
        p for p in sorted(COMPAT.glob("*.py")) if p.name not in ("__init__.py", "versions.py")
    ]
    assert len(patches) >= 2  # httpx's command line, cmark
    for path in patches:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        called = {
            node.func.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        if not called & {"supported", "require"}:
            unchecked.append(path.name)
    assert unchecked == []


# The layers, innermost first. Arrows point one way: a module imports from its own layer
# or a layer inside it, never from one outside it (docs/development/architecture.md).
# A package's `__init__.py` counts as its package; the top package's is the public API,
# outermost. Imports only for the type checker (`if TYPE_CHECKING:`) never run and do
# not count.

LAYERS = {
    # the data, and plain helpers that import nothing of claimcheck
    "models": 0,
    "page": 0,
    "errors": 0,
    "config": 0,
    "untrusted": 0,
    "utf8": 0,
    "wording": 0,
    "json_text": 0,
    "late": 0,
    "_compat": 0,
    # pure judging
    "judge": 1,
    # the stages
    "claims": 2,
    "forges": 2,
    "net": 2,
    "render": 2,
    "store": 2,
    "cache": 2,
    "history": 2,
    "report": 2,
    # the stage sequence
    "pipeline": 3,
    "judging": 3,
    "observe": 3,
    # built on the pipeline
    "github": 4,
    "nightly": 4,
    "notify": 4,
    # the command line and the public API
    "cli": 5,
    "api": 5,
    "__main__": 5,
    "": 5,
}

# Today's offenders, each with the piece of work of issue #38 that removes it. These
# lists only shrink: when a piece of work lands, its entries go.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {}

ALLOWED_LONG_MODULES: dict[str, str] = {}

ALLOWED_LARGE_PACKAGES: dict[str, str] = {}

ALLOWED_IMPORTS_IN_FUNCTIONS: dict[str, str] = {}

MAX_MODULE_LINES = 600
MAX_PACKAGE_SHARE = 0.25


def layer_of(module: str) -> int:
    """The layer of a claimcheck module, by its first name under the package."""
    parts = module.split(".")
    name = parts[1] if len(parts) > 1 else ""
    assert name in LAYERS, f"{module} is in no layer: add its package to LAYERS"
    return LAYERS[name]


def source_modules() -> dict[str, tuple[str, bool]]:
    """Every module of the package: name -> (source, is a package)."""
    return {
        module_name(path): (path.read_text(encoding="utf-8"), path.name == "__init__.py")
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def upward_arrows(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """Each (importer, imported) pair where the imported module sits in an outer layer."""
    return {
        (here, there)
        for here, imported in graph.items()
        for there in imported
        if layer_of(there) > layer_of(here)
    }


def line_counts() -> dict[str, int]:
    """Lines of every module, by its path under the package."""
    return {
        path.relative_to(PACKAGE).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def test_every_module_is_in_a_layer() -> None:
    for name in source_modules():
        layer_of(name)


def test_no_arrow_points_outwards_but_the_ones_named() -> None:
    assert upward_arrows(imports_among(source_modules())) == set(ALLOWED_UPWARD)


def test_an_outward_arrow_is_found() -> None:
    modules = {
        "claimcheck": ("", True),
        "claimcheck.judge": ("", True),
        "claimcheck.judge.verdict": ("from claimcheck.store import store\n", False),
        "claimcheck.store": ("", True),
        "claimcheck.store.store": ("from claimcheck.judge.verdict import x\n", False),
        "claimcheck.models": ("from claimcheck import cli\n", False),
        "claimcheck.cli": ("from claimcheck.models import y\n", True),
    }
    assert upward_arrows(imports_among(modules)) == {
        ("claimcheck.judge.verdict", "claimcheck.store.store"),
        ("claimcheck.models", "claimcheck.cli"),
    }


# docs/development/architecture.md is the map a newcomer reads: its layer table is LAYERS,
# it names every package and top-level module, and every module it names exists.

ARCHITECTURE = paths.ROOT / "docs" / "development" / "architecture.md"
LAYER_ROW = re.compile(r"^\| (\d) \| (.+?) \| .+ \|$", re.M)
NAMED = re.compile(r"`([\w./]+)`")


def top_level_names() -> set[str]:
    """Every package (`cache/`) and top-level module (`pipeline.py`) of the source."""
    return {
        f"{entry.name}/" if entry.is_dir() else entry.name
        for entry in PACKAGE.iterdir()
        if entry.suffix == ".py" or (entry / "__init__.py").is_file()
    }


def documented_layers(page: str) -> dict[str, int]:
    """The page's layer table as LAYERS spells it: `cache/` -> cache, `__init__.py` -> ''."""
    layers = {}
    for layer, names in LAYER_ROW.findall(page):
        for name in NAMED.findall(names):
            key = "" if name == "__init__.py" else name.removesuffix("/").removesuffix(".py")
            layers[key] = int(layer)
    return layers


def missing_modules(page: str) -> list[str]:
    """What the page names that does not exist: a path under the package or the repository
    (`forges/registry.py`, `cli/`, `tests/support/fake_forges.py`) that names no file or
    folder, or a dotted name (`observe.online.ONLINE`) whose module is not there or does
    not define its last name."""
    tops = {name.rstrip("/").removesuffix(".py") for name in top_level_names()}
    missing = []
    for name in sorted(set(NAMED.findall(page))):
        if "/" in name or name.endswith(".py"):
            if name.startswith("snapshots/"):
                continue  # a project's data folder, not this repository's
            if not ((PACKAGE / name).exists() or (paths.ROOT / name).exists()):
                missing.append(name)
        elif "." in name and name.split(".")[0] in tops:
            parts = name.split(".")
            modules = [
                i
                for i in range(1, len(parts) + 1)
                if (PACKAGE.joinpath(*parts[:i]).with_suffix(".py")).is_file()
                or (PACKAGE.joinpath(*parts[:i]) / "__init__.py").is_file()
            ]
            if not modules or len(parts) - max(modules) > 1:
                missing.append(name)
                continue
            if max(modules) < len(parts):
                base = PACKAGE.joinpath(*parts[: max(modules)])
                source = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
                defined = rf"^\s*(class |def |async def )?{parts[-1]}\b"
                if not re.search(defined, source.read_text(encoding="utf-8"), re.M):
                    missing.append(name)
    return missing


def test_the_architecture_page_has_the_layers_of_the_house_rules() -> None:
    page = ARCHITECTURE.read_text(encoding="utf-8")
    assert documented_layers(page) == LAYERS


def test_the_architecture_page_names_every_package_and_top_level_module() -> None:
    named = set(NAMED.findall(ARCHITECTURE.read_text(encoding="utf-8")))
    assert top_level_names() - named == set()


def test_every_module_the_architecture_page_names_exists() -> None:
    assert missing_modules(ARCHITECTURE.read_text(encoding="utf-8")) == []


def test_a_drift_of_the_architecture_page_is_found() -> None:
    """Worked out by hand: `forges/registry.py`, `observe.online.ONLINE` and `report.formats`
    are in today's tree, the other names are not; a project's data folder is not checked."""
    page = (
        "| 0 | `models.py`, `config/` | data |\n| 2 | `store/`, `sources/` | stages |\n"
        "`forges/registry.py` `observe.online.ONLINE` `report.formats` `run.py`"
        " `forges/adapters/` `net/plausible.py` `store.known` `observe.online.NOT_THERE`"
        " `tests/support/nowhere.py` `snapshots/.cache/`"
    )
    assert documented_layers(page) == {"models": 0, "config": 0, "store": 2, "sources": 2}
    assert missing_modules(page) == [
        "forges/adapters/",
        "net/plausible.py",
        "observe.online.NOT_THERE",
        "run.py",
        "sources/",
        "store.known",
        "tests/support/nowhere.py",
    ]


def test_no_module_is_longer_than_the_limit_but_the_ones_named() -> None:
    long = {name for name, lines in line_counts().items() if lines > MAX_MODULE_LINES}
    assert long == set(ALLOWED_LONG_MODULES)


def test_no_package_holds_more_than_a_quarter_of_the_source() -> None:
    counts = line_counts()
    total = sum(counts.values())
    packages: dict[str, int] = {}
    for name, lines in counts.items():
        if "/" in name:
            top = name.split("/", 1)[0]
            packages[top] = packages.get(top, 0) + lines
    large = {name for name, lines in packages.items() if lines > MAX_PACKAGE_SHARE * total}
    assert large == set(ALLOWED_LARGE_PACKAGES)


LATE_IMPORTS = ("cli/lazy.py", "late.py")
"""The two places that import late, for a fast start: the command line's (the typer app,
a command's module when it is asked for, its work when it runs) and the judge's
third-party readers (PyYAML for a front matter read as data, pdfminer.six for a PDF),
loaded when a run first meets what they read."""


def test_no_import_inside_a_function_but_in_the_one_place_and_the_ones_named() -> None:
    """`cli/lazy.py` imports a command's modules only when it runs, `late.py` a reader
    only when it is needed, for a fast start; elsewhere an import inside a function
    hides a dependency (often a cycle) from the reader."""
    found = {
        path.relative_to(PACKAGE).as_posix()
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).as_posix() not in LATE_IMPORTS
        and list(imports_in_functions(path.read_text(encoding="utf-8")))
    }
    assert found == set(ALLOWED_IMPORTS_IN_FUNCTIONS)


# The network half of the forges and history: `net.fetcher` and `net.reply` load the
# HTTP client, `forges.history` and `history.online` read through them and `asyncio` is
# the event loop, none of which an offline run (resolving, judging stored snapshots,
# citing) loads (tests/cli/test_startup.py). Only the modules of that half import them;
# the rest of forges/ and history/ (what resolving and judging import) never do, so the
# requests and answers they name are `net.fetch`'s plain values.
NETWORK_HALF = {
    "claimcheck.net.fetcher",
    "claimcheck.net.reply",
    "claimcheck.forges.history",
    "claimcheck.history.online",
    "asyncio",
}
NETWORK_MODULES = {
    "forges/history.py",
    "forges/save_page.py",
    "history/online.py",
    "history/ahead.py",
}


def imports_at_top(source: str) -> Iterator[str]:
    """Each module `source` imports when it is imported (not those under TYPE_CHECKING,
    which only the type checker reads, nor those inside a function)."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def imports_in_functions(source: str) -> Iterator[tuple[int, str]]:
    """Each module imported inside a function of `source` (once, however deeply the
    function is nested), with its line."""
    inside = {
        id(node): node
        for function in ast.walk(ast.parse(source))
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.Import | ast.ImportFrom)
    }
    for node in sorted(inside.values(), key=lambda node: node.lineno):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif node.module:
            yield node.lineno, node.module


def test_only_the_network_half_of_forges_and_history_imports_it() -> None:
    wrong = []
    for folder in ("forges", "history"):
        for path in sorted((PACKAGE / folder).glob("*.py")):
            name = path.relative_to(PACKAGE).as_posix()
            if name in NETWORK_MODULES:
                continue
            for module in imports_at_top(path.read_text(encoding="utf-8")):
                if module in NETWORK_HALF:
                    wrong.append(f"{name} imports {module}")
    assert wrong == []


def test_an_import_at_the_top_is_found_and_a_typing_one_is_not() -> None:
    source = (
        "import asyncio\n"
        "from claimcheck.history import online\n"
        "if TYPE_CHECKING:\n    from claimcheck.net.fetcher import Fetcher\n"
        "def f():\n    import claimcheck.net.reply\n"
    )
    found = set(imports_at_top(source))
    assert found & NETWORK_HALF == {"asyncio", "claimcheck.history.online"}


def test_an_import_inside_a_function_is_found() -> None:
    source = (
        "import json\n"
        "def f():\n    from claimcheck.net.fetch import Fetched\n"
        "async def g():\n    def h():\n        import asyncio\n"
    )
    assert list(imports_in_functions(source)) == [(3, "claimcheck.net.fetch"), (6, "asyncio")]


def test_the_allow_lists_name_a_piece_of_work() -> None:
    pieces = {"pipe", "cache", "yaml", "report", "split", "forges", "cli"}
    named = [
        *ALLOWED_UPWARD.values(),
        *ALLOWED_LONG_MODULES.values(),
        *ALLOWED_LARGE_PACKAGES.values(),
        *ALLOWED_IMPORTS_IN_FUNCTIONS.values(),
    ]
    assert set(named) <= pieces
