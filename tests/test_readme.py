"""The README stays true: its --help blocks equal the real ones, its examples parse."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from claimcheck.claims.parse import parse_claims
from claimcheck.cli.app import app
from claimcheck.config import load_config
from support import paths
from support.commands import command_paths

README = (paths.ROOT / "README.md").read_text(encoding="utf-8")
HELP_BLOCK = re.compile(r"<!-- help:(\w+) -->\n```text\n(.*?)```\n<!-- /help -->", re.S)


def fenced(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, re.S)


def test_every_command_is_documented_with_its_current_help() -> None:
    blocks = dict(HELP_BLOCK.findall(README))
    commands = {path[0] for path in command_paths() if len(path) == 1}
    assert set(blocks) == commands
    for command, text in blocks.items():
        result = CliRunner().invoke(app, [command, "--help"], terminal_width=80)
        assert result.exit_code == 0
        assert result.stdout == text, f"README help of {command!r} is out of date"


def test_the_claim_file_example_parses() -> None:
    (example,) = [b for b in fenced("yaml") if "claims:" in b]
    claims = parse_claims([("claims/example.yaml", example)])
    assert [c.id for c in claims] == [
        "llamacpp-quantization",
        "llamacpp-license",
        "vllm-hardware",
        "deepinfer-license",
    ]
    assert claims[2].anchor is not None
    assert claims[2].anchor.suffix == "and AMD"


def test_the_config_example_loads(tmp_path: Path) -> None:
    (example,) = fenced("toml")
    path = tmp_path / "claimcheck.toml"
    path.write_text(example)
    config = load_config(path, env={})
    assert config.fetch.hosts == {"api.github.com": 4}
    assert config.history.wayback is True


@pytest.mark.parametrize("code", ["0", "1", "2", "3", "4"])
def test_every_exit_code_is_documented(code: str) -> None:
    assert re.search(rf"^\| {code} \| ", README, re.M)


def rewrite_help_blocks() -> None:
    """Refresh the README's help blocks: `python tests/test_readme.py`."""
    path = paths.ROOT / "README.md"

    def fresh(match: re.Match[str]) -> str:
        command = match.group(1)
        text = CliRunner().invoke(app, [command, "--help"], terminal_width=80).stdout
        return f"<!-- help:{command} -->\n```text\n{text}```\n<!-- /help -->"

    path.write_text(HELP_BLOCK.sub(fresh, path.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    rewrite_help_blocks()
