"""The docs stay true: their --help blocks equal the real ones, their examples parse, every
command has its row in the README and its section on its family's page of docs/commands/,
every link resolves."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from typer.testing import CliRunner

from claimcheck.claims.parse import parse_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.cli.app import app
from claimcheck.cli.commands import COMMANDS
from claimcheck.config import load_config
from support import docs, paths
from support.commands import command_paths

HELP_BLOCK = re.compile(r"<!-- help:([a-z ]+) -->\n```text\n(.*?)```\n<!-- /help -->", re.S)
LINK = re.compile(r"\]\(([^)\s]+)(?: \"[^\"]*\")?\)")


def test_every_command_is_documented_with_its_current_help() -> None:
    """One --help block per command (a group's commands each have theirs), all of them on
    the command pages, each equal to what the real command line prints."""
    blocks = HELP_BLOCK.findall(docs.everything())
    assert sorted(name for name, _ in blocks) == sorted(command_names())
    assert sorted(HELP_BLOCK.findall(docs.commands())) == sorted(blocks)
    for command, text in blocks:
        result = CliRunner().invoke(app, [*command.split(), "--help"], terminal_width=80)
        assert result.exit_code == 0
        assert result.stdout == text, f"the help of {command!r} in the docs is out of date"


def test_the_claim_file_example_parses() -> None:
    (example,) = [
        b
        for b in re.findall(r"```yaml\n(.*?)```", docs.page("claim-files.md"), re.S)
        if "claims:" in b
    ]
    claims = parse_claims([("claims/example.yaml", example)], read=read_document)
    assert [c.id for c in claims] == [
        "llamacpp-quantization",
        "llamacpp-license",
        "vllm-hardware",
        "deepinfer-license",
    ]
    assert claims[2].anchor is not None
    assert claims[2].anchor.suffix == "and AMD"


def test_the_readme_claim_file_parses() -> None:
    (example,) = [
        b for b in re.findall(r"```yaml\n(.*?)```", docs.page("README.md"), re.S) if "claims:" in b
    ]
    (claim,) = parse_claims([("claims/example.yaml", example)], read=read_document)
    assert claim.id == "llamacpp-quantization"
    assert claim.source == "https://github.com/ggml-org/llama.cpp"
    assert claim.anchor is not None
    assert claim.anchor.quote.startswith("1.5-bit, 2-bit")


def test_the_config_example_loads(tmp_path: Path) -> None:
    # The whole-file example of docs/configuration.md (other pages show one table).
    (example,) = [block for block in docs.fenced("toml") if "[fetch]" in block]
    path = tmp_path / "claimcheck.toml"
    path.write_text(example)
    config = load_config(path, env={})
    assert config.fetch.hosts == {"api.github.com": 4}
    assert config.history.wayback is True
    assert config.notify.routes["infra"].env == "CLAIMCHECK_NOTIFY_INFRA"


@pytest.mark.parametrize("code", ["0", "1", "2", "3", "4"])
def test_every_exit_code_is_documented(code: str) -> None:
    assert re.search(rf"^\| {code} \| ", docs.page("README.md"), re.M)


def test_the_readme_is_a_landing_page_that_says_how_to_install() -> None:
    """Short enough to read; Install comes before the Quickstart and warns that the name
    on PyPI is another project's."""
    readme = docs.page("README.md")
    assert len(readme.encode()) <= 20_000
    headings = [line for _, line in docs.outside_fences(readme) if line.startswith("## ")]
    assert headings.index("## Install") < headings.index("## Quickstart")
    install = docs.section("Install")
    assert "`pip install claimcheck` installs something else" in install
    assert "git+https://" in install


def extras(command: str) -> set[str]:
    """The extras a `pip install -e '.[a,b]'` command line installs."""
    (names,) = re.findall(r"pip install -q -e '\.\[([a-z,]+)\]'", command)
    return set(names.split(","))


def test_the_quickstart_test_command_is_the_one_ci_runs() -> None:
    """CI installs at least what the README's command installs, in a fresh venv, and its
    last step is the README's test run: what a person runs is what CI runs."""
    (_, tests) = re.findall(r"```sh\n(.*?)\n```", docs.section("Quickstart"), re.S)[:2]
    venv, install, run = tests.split(" && ")
    ci = (paths.ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == run
    assert run.startswith(".venv/bin/pytest -n auto")
    (ci_install,) = [line for line in ci if line.startswith(f"{venv} && ")]
    assert extras(install) <= extras(ci_install)
    assert [line for line in ci if "pytest" in line and not line.startswith("#")] == [run]


def command_names() -> list[str]:
    """Every command a user can run, as `claimcheck --help` and its groups list them."""
    return [" ".join(path) for path in command_paths()]


@pytest.mark.parametrize("command", command_names())
def test_every_command_has_a_row_in_the_readme_and_a_section_on_its_family_s_page(
    command: str,
) -> None:
    """Exactly one page of docs/commands/ has a section for the command: the page named
    after the `claimcheck.cli` module that defines it. The README's row links there."""
    rows = re.findall(
        r"^\| \[`claimcheck ([a-z ]+)`\]\(docs/commands/([a-z]+\.md)#([a-z-]+)\) \| .+ \|$",
        docs.page("README.md"),
        re.M,
    )
    linked = {name: (page, anchor) for name, page, anchor in rows}
    assert command in linked, f"the README's table of commands has no row for {command!r}"
    holding = [
        (page.name, heading)
        for page in docs.command_pages()
        for _, heading in docs.outside_fences(docs.text(page))
        if heading.startswith("## ") and f"`claimcheck {command}`" in heading
    ]
    assert len(holding) == 1, f"{len(holding)} pages of docs/commands/ have {command!r}"
    ((page, heading),) = holding
    (module, _) = COMMANDS[command.split()[0]]
    assert page == f"{module}.md", f"{command!r} is in cli/{module}.py, not on {page}"
    assert linked[command] == (page, docs.slug(heading[3:]))


def test_every_command_page_is_a_family_of_the_command_line() -> None:
    """No page of docs/commands/ is left over from a family that is gone, and the index
    links every page."""
    families = {f"{module}.md" for module, _ in COMMANDS.values()}
    pages = {page.name for page in docs.command_pages()}
    assert pages == families
    index = docs.page("commands/index.md")
    assert {page for page in pages if f"]({page})" not in index} == set()


def test_the_readme_table_lists_no_command_that_is_gone() -> None:
    rows = re.findall(r"^\| \[`claimcheck ([a-z ]+)`\]", docs.page("README.md"), re.M)
    assert sorted(rows) == sorted(command_names())


def links() -> list[tuple[str, int, str]]:
    """(page, line, target) of every Markdown link in the README and docs/, outside code."""
    found = []
    for page in docs.pages():
        name = str(page.relative_to(paths.ROOT))
        for number, line in docs.outside_fences(docs.text(page)):
            found += [(name, number, target) for target in LINK.findall(line)]
    return found


@pytest.mark.parametrize(("page", "line", "target"), links())
def test_every_relative_link_and_anchor_resolves(page: str, line: int, target: str) -> None:
    if re.match(r"[a-z][a-z0-9+.-]*:", target):
        return  # an address elsewhere (https:, mailto:): not this repository's to keep
    path, _, anchor = target.partition("#")
    source = paths.ROOT / page
    file = (source.parent / unquote(path)).resolve() if path else source
    assert file.exists(), f"{page}:{line}: {target} names no file"
    if anchor and file.suffix == ".md":
        assert anchor in docs.anchors(docs.text(file)), f"{page}:{line}: no anchor {anchor!r}"


def test_the_anchor_rule_is_github_s() -> None:
    """Slugs worked out by hand from GitHub's rule (lower case, punctuation dropped, a space
    a hyphen, a repeated heading numbered)."""
    assert docs.slug("`claimcheck list` and `claimcheck show`") == (
        "claimcheck-list-and-claimcheck-show"
    )
    assert docs.slug("Security: internal addresses") == "security-internal-addresses"
    assert docs.slug("Before and after (1,000 sources, 10,000 claims)") == (
        "before-and-after-1000-sources-10000-claims"
    )
    body = "# A\n\n## Usage\n\n```\n## Not a heading\n```\n\n## Usage\n"
    assert docs.anchors(body) == {"a", "usage", "usage-1"}


def rewrite_help_blocks() -> None:
    """Refresh the docs' help blocks: `python tests/test_readme.py`."""

    def fresh(match: re.Match[str]) -> str:
        command = match.group(1)
        text = CliRunner().invoke(app, [*command.split(), "--help"], terminal_width=80).stdout
        return f"<!-- help:{command} -->\n```text\n{text}```\n<!-- /help -->"

    for page in docs.pages():
        page.write_text(HELP_BLOCK.sub(fresh, docs.text(page)), encoding="utf-8")


if __name__ == "__main__":
    rewrite_help_blocks()
