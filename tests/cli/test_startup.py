"""`claimcheck --help` starts at once: the app imports typer, not what its commands run.

Each check runs in a fresh interpreter (this process has imported everything long
ago) and looks at `sys.modules`, not at a clock: which modules an import pulls in is
the same on every machine, a time is not. The option choices the CLI keeps as plain
names (so that building the options imports no model) are held equal to the real ones.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from claimcheck.cli import issues as cli_issues
from claimcheck.cli import quick
from claimcheck.cli import schedule as cli_schedule
from claimcheck.cli.app import COMMANDS, app
from claimcheck.cli.commands import ROOT_HELP
from claimcheck.cli.options import VERDICT_NAMES, FailOn, FormatName, add_verbosity_options
from claimcheck.github.issues import API_VERSION
from claimcheck.models import Verdict
from claimcheck.nightly.cycle import DEFAULT_CRON
from claimcheck.report.formats import OutputFormat
from support.commands import command_paths

# What a command needs when it runs, never to start or to print its help.
HEAVY = (
    "httpx",
    "bs4",
    "html5lib",
    "selectolax",
    "cmarkgfm",
    "rapidfuzz",
    "ruamel",
    "yaml",
    "apscheduler",
    "apprise",
    "pdfminer",
    "jsonpath",
    "claimcheck.notify",
    "claimcheck.pipeline",
    "claimcheck.judging",
    "claimcheck.observe",
    "claimcheck.net.fetcher",
)
# Nor the terminal library or any of claimcheck's own layers below the CLI.
NOT_FOR_HELP = (
    *HEAVY,
    "rich",
    "claimcheck.models",
    "claimcheck.config",
    "claimcheck.claims",
    "claimcheck.judge",
    "claimcheck.net",
    "claimcheck.render",
    "claimcheck.store",
    "claimcheck.cache",
    "claimcheck.forges",
    "claimcheck.history",
    "claimcheck.report",
    "claimcheck.nightly",
    "claimcheck.github",
)
# Importing the app does not load pydantic either; a subcommand's --help may: typer
# itself builds pydantic adapters to check the values of the app's own options.
NOT_ON_IMPORT = (*NOT_FOR_HELP, "pydantic")

PROBE = """
import contextlib, io, json, sys
from typer.testing import CliRunner

def loaded(names):
    return sorted(n for n in names if any(m == n or m.startswith(n + ".") for m in sys.modules))

names = json.loads(sys.argv[1])
import claimcheck.cli.app
found = {"import": loaded(names["import"])}
for args in names["help"]:
    result = CliRunner().invoke(claimcheck.cli.app.app, args)
    assert result.exit_code == 0, (args, result.output)
    found[" ".join(args)] = loaded(names["heavy"])
print(json.dumps(found))
"""


def help_invocations() -> list[list[str]]:
    """`--help`, and `COMMAND --help` for every command, group and group's command."""
    return [["--help"], *([*path, "--help"] for path in command_paths(groups=True))]


def probe() -> dict[str, list[str]]:
    names = {
        "import": list(NOT_ON_IMPORT),
        "heavy": list(NOT_FOR_HELP),
        "help": help_invocations(),
    }
    found: dict[str, list[str]] = run_probe(PROBE, names)
    return found


def run_probe(code: str, argument: object, cwd: Path | None = None) -> Any:
    """What `code`, run in a fresh interpreter with `argument` as JSON, prints as JSON."""
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(argument)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=cwd,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def loaded() -> dict[str, list[str]]:
    return probe()


def test_importing_the_app_loads_no_command_machinery(loaded: dict[str, list[str]]) -> None:
    assert loaded["import"] == []


def test_help_of_the_app_and_of_every_command_loads_nothing_heavy(
    loaded: dict[str, list[str]],
) -> None:
    assert {"--help", "verify --help", "report merge --help"} <= set(loaded)
    assert {args: found for args, found in loaded.items() if found} == {}


def test_the_entry_point_prints_help_without_loading_anything_heavy() -> None:
    """`python -m claimcheck --help` as a shell runs it, in a process of its own: the
    root's help does not even import typer (`cli/quick.py`)."""
    code = (
        "import runpy, sys, json\n"
        "sys.argv = ['claimcheck', '--help']\n"
        "try:\n"
        "    runpy.run_module('claimcheck', run_name='__main__')\n"
        "except SystemExit as exit:\n"
        "    assert not exit.code, exit.code\n"
        f"heavy = {(*HEAVY, 'typer', 'click', 'pydantic')!r}\n"
        "found = [n for n in heavy if any(m == n or m.startswith(n + '.') for m in sys.modules)]\n"
        "print(json.dumps(found), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "Usage: claimcheck" in done.stdout
    assert json.loads(done.stderr.strip().splitlines()[-1]) == []


# -- the lazy root group: what it lists is what the commands are --------------------------


def eager_app() -> typer.Typer:
    """The app as typer builds it with every command registered up front (the old way)."""
    eager = typer.Typer(
        name="claimcheck",
        help=app.info.help,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    eager.callback()(app.registered_callback.callback)  # type: ignore[union-attr]
    for module in dict.fromkeys(module for module, _summary in COMMANDS.values()):
        importlib.import_module(f"claimcheck.cli.{module}").register(eager)
    add_verbosity_options(eager)
    return eager


def test_every_command_of_every_module_is_listed_in_the_table() -> None:
    eager = typer.main.get_command(eager_app())
    context = eager.make_context("claimcheck", ["--help"], resilient_parsing=True)
    assert sorted(eager.list_commands(context)) == sorted(COMMANDS)  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_summary_is_the_first_paragraph_of_its_commands_help(name: str) -> None:
    command = typer.main.get_command(eager_app())
    context = command.make_context("claimcheck", ["--help"], resilient_parsing=True)
    built = command.get_command(context, name)  # type: ignore[attr-defined]
    assert built.help.split("\n\n")[0].replace("\n", " ") == COMMANDS[name][1]


@pytest.mark.parametrize("width", [60, 80, 120])
def test_every_help_is_the_one_the_eager_app_prints(width: int) -> None:
    eager = eager_app()
    for args in help_invocations():
        lazy_help = CliRunner().invoke(app, args, terminal_width=width)
        eager_help = CliRunner().invoke(eager, args, terminal_width=width)
        assert lazy_help.exit_code == eager_help.exit_code == 0, args
        assert lazy_help.output == eager_help.output, args


# -- the root's help and version, printed without typer ----------------------------------


@pytest.mark.parametrize("width", [20, 30, 50, 60, 80, 120])
def test_the_quick_root_help_is_the_one_typer_prints(width: int) -> None:
    """At every width typer may lay it out to (`FORCED_WIDTH`, as the test runner sets
    it), the narrow ones included: there the usage line and long words break."""
    printed = CliRunner().invoke(eager_app(), ["--help"], terminal_width=width)
    assert printed.exit_code == 0
    assert quick.root_help("claimcheck", width) + "\n" == printed.output


def test_the_quick_answers_are_the_apps() -> None:
    environ: dict[str, str] = {}
    width = quick.help_width()
    help_text = quick.root_help(quick.program_name(), width) + "\n"
    assert quick.quick_answer(["--help"], environ) == (help_text, 0)
    assert quick.quick_answer(["-h"], environ) == (help_text, 0)
    assert quick.quick_answer([], environ) == (help_text, 2)  # a usage error, on stderr
    version = CliRunner().invoke(app, ["--version"])
    assert quick.quick_answer(["-V"], environ) == (version.output, version.exit_code)
    assert quick.quick_answer(["--version"], environ) == (version.output, 0)
    for args in (["verify"], ["--help", "verify"], ["verify", "--help"], ["-q"], ["--helps"]):
        assert quick.quick_answer(args, environ) is None, args
    # A shell asking for completions is typer's to answer, whatever the arguments.
    assert quick.quick_answer(["--help"], {"_CLAIMCHECK_COMPLETE": "complete_bash"}) is None


def test_the_root_help_paragraph_is_the_apps_docstring() -> None:
    callback = app.registered_callback
    assert callback is not None
    assert callback.callback is not None
    assert callback.callback.__doc__ == ROOT_HELP


def _script() -> list[str]:
    script = Path(sys.executable).parent / "claimcheck"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "claimcheck"]


TYPER_ROOT = "import sys; sys.argv[0] = {name!r}\nfrom claimcheck.cli.app import app\napp()\n"


@pytest.mark.parametrize(("args", "columns"), [(["--help"], "60"), ([], "200"), (["-V"], "80")])
def test_the_installed_script_answers_as_the_typer_app_does(args: list[str], columns: str) -> None:
    """The real entry point in a process of its own, on a terminal of `columns`."""
    env = {**os.environ, "COLUMNS": columns}
    command = _script()
    name = "python -m claimcheck" if command[0] == sys.executable else "claimcheck"
    quick_run = subprocess.run(
        [*command, *args], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    typer_run = subprocess.run(
        [sys.executable, "-c", TYPER_ROOT.format(name=name), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert quick_run.returncode == typer_run.returncode == (2 if not args else 0)
    assert (quick_run.stdout, quick_run.stderr) == (typer_run.stdout, typer_run.stderr)
    assert quick_run.stdout or quick_run.stderr


def one_claim_project(folder: Path, source: str) -> None:
    """A claim file of one claim on `source`, in `folder`'s `claims/`."""
    (folder / "claims").mkdir()
    (folder / "claims" / "page.yaml").write_text(
        "page: page\nchecked: 2026-10-20\nclaims:\n"
        "  - id: one\n    claim: the engine runs\n"
        f"    source: {source}\n    quote: runs\n",
        encoding="utf-8",
    )


ONLINE_PROBE = """
import contextlib, io, json, runpy, sys
sys.argv = ["claimcheck", "verify", "--no-progress"]
try:
    with contextlib.redirect_stdout(io.StringIO()):  # the report
        runpy.run_module("claimcheck", run_name="__main__")
except SystemExit as exit:
    code = exit.code
import httpx
heavy = ("rich.console", "click", "pygments", "apprise")
loaded = sorted(n for n in heavy if any(m == n or m.startswith(n + ".") for m in sys.modules))
print(json.dumps({"exit": code, "fetched": "claimcheck.net.fetcher" in sys.modules,
                  "loaded": loaded, "client": hasattr(httpx, "AsyncClient")}))
"""


def test_a_run_that_fetches_imports_no_http_command_line(tmp_path: Path) -> None:
    """httpx imports its own command line (rich's console, click, pygments) when they
    are installed; the script keeps it from doing so (the table report needs only rich's
    cell widths). The source is a closed port on loopback: the run fetches, fails, and
    says so."""
    one_claim_project(tmp_path, "http://127.0.0.1:9/page")
    (tmp_path / "claimcheck.toml").write_text(
        '[fetch]\nretries = 0\nallow_addresses = ["127.0.0.1"]\n', encoding="utf-8"
    )
    found = run_probe(ONLINE_PROBE, None, cwd=tmp_path)
    assert found["fetched"]
    assert found["exit"] == 3  # nothing stale, the source unreachable
    assert found["client"]
    assert found["loaded"] == []


def test_a_reader_gone_before_the_help_ends_the_script_as_it_ends_the_typer_app() -> None:
    """stdout closed before anything is written (`| head` long gone): exit 1, nothing on
    stderr, from the quick path as from the typer app."""
    command = _script()
    name = "python -m claimcheck" if command[0] == sys.executable else "claimcheck"
    ends = []
    for argv in (
        [*command, "--help"],
        [sys.executable, "-c", TYPER_ROOT.format(name=name), "--help"],
    ):
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert process.stdout is not None
        assert process.stderr is not None
        process.stdout.close()
        ends.append((process.wait(timeout=60), process.stderr.read()))
        process.stderr.close()
    assert ends[0] == ends[1] == (1, b"")


def test_python_dash_m_names_itself_as_click_does() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "claimcheck", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.startswith("Usage: python -m claimcheck [OPTIONS] COMMAND [ARGS]...\n")


LAZY_PROBE = """
import json, sys
from typer.testing import CliRunner
import claimcheck.cli.app
result = CliRunner().invoke(claimcheck.cli.app.app, json.loads(sys.argv[1]))
print(json.dumps({"exit": result.exit_code,
                  "modules": sorted(m for m in sys.modules if m.startswith("claimcheck.cli."))}))
"""


# What every command line loads: the app, its table, the lazy group and the options.
MACHINERY = ["app", "commands", "group", "lazy", "options", "verbosity"]


@pytest.mark.parametrize(
    ("args", "modules"),
    [
        (["--help"], MACHINERY),
        (["schema"], [*MACHINERY, "guard", "schema", "work", "work.schema"]),
        (["report", "merge", "--help"], [*MACHINERY, "report"]),
        (["verify", "--help"], [*MACHINERY, "verify"]),
        (["nonesuch"], MACHINERY),
    ],
)
def test_a_command_imports_its_own_module_only(args: list[str], modules: list[str]) -> None:
    found = run_probe(LAZY_PROBE, args)
    assert found["modules"] == sorted(f"claimcheck.cli.{m}" for m in modules)
    assert found["exit"] == (2 if args == ["nonesuch"] else 0)


def test_a_mistyped_command_is_still_answered_with_the_nearest_names() -> None:
    result = CliRunner().invoke(app, ["verfy"])
    assert result.exit_code == 2
    assert "Did you mean 'verify'?" in result.output


# -- the plain names stand for the real ones ---------------------------------------------


def test_format_names_are_the_output_formats_in_their_order() -> None:
    assert [f.value for f in FormatName] == [f.value for f in OutputFormat]


def test_verdict_names_are_the_verdicts_in_their_order() -> None:
    assert list(VERDICT_NAMES) == [v.value for v in Verdict]
    assert {f.value for f in FailOn} <= set(VERDICT_NAMES)


def test_defaults_shown_in_help_are_the_real_ones() -> None:
    assert cli_issues.API_VERSION == API_VERSION
    assert cli_schedule.DEFAULT_CRON == DEFAULT_CRON


OFFLINE_PROBE = """
import json, sys
from typer.testing import CliRunner
import claimcheck.cli.app
unwanted, options = json.loads(sys.argv[1])
result = CliRunner().invoke(
    claimcheck.cli.app.app, ["verify", "--offline", "--no-progress", *options]
)
found = sorted(n for n in unwanted if any(m == n or m.startswith(n + ".") for m in sys.modules))
print(json.dumps({"exit": result.exit_code, "output": result.output, "loaded": found}))
"""
# An offline run fetches nothing: no HTTP client, no event loop. (It may load the
# encoding detector, which judging imports: about 10 ms on top of the warm offline gate.)
NOT_OFFLINE = (
    "httpx",
    "httpcore",
    "aiohttp",
    "httpx_aiohttp",
    "claimcheck.net.fetcher",
    "claimcheck.net.transport",
    "claimcheck.net.reply",
    "claimcheck.net.guard",
    "claimcheck.forges.history",
    "claimcheck.history.online",
    "asyncio",
    "apprise",
)


# A report is written in one format: the other formats' modules (and what only they
# use: the JUnit writer's XML library, the table's terminal cells) are never loaded.
FORMAT_MODULES = {fmt: f"claimcheck.report.formats.{fmt.value}" for fmt in OutputFormat}
ONLY_FOR = {OutputFormat.JUNIT: ("xml",), OutputFormat.TABLE: ("rich",)}


def not_for(fmt: OutputFormat) -> tuple[str, ...]:
    """The modules a report in `fmt` has no use for."""
    return tuple(
        module
        for other in OutputFormat
        if other is not fmt
        for module in (FORMAT_MODULES[other], *ONLY_FOR.get(other, ()))
    )


def offline_probe(
    project: Path, unwanted: tuple[str, ...], options: tuple[str, ...] = ()
) -> dict[str, Any]:
    found: dict[str, Any] = run_probe(OFFLINE_PROBE, [unwanted, options], cwd=project)
    return found


def test_an_offline_run_imports_no_http_client(tmp_path: Path) -> None:
    """The CI gate's usual form judges stored snapshots: it has no use for httpx; and once
    its claim files are kept, unchanged, it reads no YAML either."""
    one_claim_project(tmp_path, "https://github.com/ggml-org/llama.cpp")
    (tmp_path / "snapshots").mkdir()
    first = offline_probe(tmp_path, NOT_OFFLINE)
    assert first["exit"] == 3, first["output"]  # judged: no snapshot stored yet
    assert first["loaded"] == []
    again = offline_probe(
        tmp_path, (*NOT_OFFLINE, "yaml", "claimcheck.claims.yaml_read", "pdfminer", "jsonpath")
    )
    assert again["output"] == first["output"]
    assert again["loaded"] == []


def test_a_run_with_nothing_to_notify_imports_no_apprise(tmp_path: Path) -> None:
    """Apprise and its hundred services load when a message is sent, not when a run
    asks to notify and nothing changed state."""
    one_claim_project(tmp_path, "https://github.com/ggml-org/llama.cpp")
    (tmp_path / "snapshots").mkdir()
    found = offline_probe(tmp_path, ("apprise", "claimcheck.notify.deliver"), ("--notify",))
    assert found["exit"] == 3, found["output"]  # unverified: no state to tell of
    assert found["loaded"] == []


@pytest.mark.parametrize("fmt", [OutputFormat.TABLE, OutputFormat.JSON], ids=str)
def test_an_offline_run_loads_the_format_it_writes_and_no_other(
    tmp_path: Path, fmt: OutputFormat
) -> None:
    """The CI gate writes one report: the other formats are left where they are."""
    one_claim_project(tmp_path, "https://github.com/ggml-org/llama.cpp")
    (tmp_path / "snapshots").mkdir()
    found = offline_probe(tmp_path, (*not_for(fmt), FORMAT_MODULES[fmt]), ("-f", fmt.value))
    assert found["exit"] == 3, found["output"]
    assert found["loaded"] == [FORMAT_MODULES[fmt]]
