"""The CLI without a network: offline verdicts, exit codes, usage errors, schema."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from claimcheck.cli.app import app
from claimcheck.forges.resolve import resolve_source
from claimcheck.models import MediaType
from claimcheck.store.store import Store
from support import stored_readme

CLAIMS = """\
page: page
checked: 2026-10-20
claims:
  - id: quant
    claim: supports 1.5- to 8-bit
    source: https://github.com/o/r
    quote: "1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization"
  - id: cited
    claim: DeepInfer is Apache-2.0
    cited: DeepInfer README / Q&A
"""
README_OK = (
    "# R\n\n- **1.5-bit**, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer [quantization](x)\n"
)
README_DRIFT = "# R\n\n- 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "page.yaml").write_text(CLAIMS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


def store_readme(root: Path, body: str, day: int = 20, month: int = 10) -> None:
    stored_readme.store_readme(root / "snapshots", body, day=dt.date(2026, month, day))


runner = CliRunner()


def test_offline_verified_exits_0_and_table_lists_every_claim(project: Path) -> None:
    store_readme(project, README_OK)
    result = runner.invoke(app, ["verify", "--offline"])
    assert result.exit_code == 0, result.output
    assert "quant" in result.stdout
    assert "verified" in result.stdout
    assert "citation needed" in result.stdout


def test_offline_drifted_exits_1_with_json_evidence(project: Path) -> None:
    store_readme(project, README_OK)
    store_readme(project, README_DRIFT, day=1, month=11)
    result = runner.invoke(app, ["verify", "--offline", "--format", "json"])
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    quant = doc["results"][0]
    assert quant["verdict"] == "drifted"
    assert quant["found"].startswith("2-bit")
    assert quant["snapshot"] == "2026-11-01"
    assert quant["file"] == "claims/page.yaml"
    assert quant["line"] == 4
    assert doc["results"][1]["verdict"] == "unverified"


def test_offline_without_snapshots_exits_3(project: Path) -> None:
    result = runner.invoke(app, ["verify", "--offline"])
    assert result.exit_code == 3, result.output
    assert "unverified" in result.stdout
    assert not (project / "snapshots").exists()


def test_malformed_claim_file_exits_2_and_writes_nothing(project: Path) -> None:
    (project / "claims" / "page.yaml").write_text(CLAIMS.replace("    quote:", "    qoute:"))
    result = runner.invoke(app, ["verify"])
    assert result.exit_code == 2
    assert "claims/page.yaml:7: claim 'quant': qoute: unknown key" in result.stderr
    assert "hint:" in result.stderr
    assert not (project / "snapshots").exists()


def test_missing_path_exits_2(project: Path) -> None:
    result = runner.invoke(app, ["verify", "nope.yaml", "--offline"])
    assert result.exit_code == 2
    assert "nope.yaml: no such claim file or folder" in result.stderr


def test_bad_config_exits_2(project: Path) -> None:
    (project / "claimcheck.toml").write_text("[fetch]\nconcurency = 3\n")
    result = runner.invoke(app, ["verify", "--offline"])
    assert result.exit_code == 2
    assert "fetch.concurency: unknown key" in result.stderr


def test_config_file_sets_paths(project: Path) -> None:
    (project / "claims").rename(project / "mine")
    (project / "claimcheck.toml").write_text('claims = ["mine"]\nsnapshots = "store"\n')
    ref = resolve_source("https://github.com/o/r")
    Store(project / "store").save(
        key=ref.key,
        url=ref.url,
        final_url=ref.url,
        status=200,
        body=README_OK.encode(),
        media=MediaType.MARKDOWN,
        fetched_at=dt.datetime(2026, 10, 20, tzinfo=dt.UTC),
    )
    result = runner.invoke(app, ["verify", "--offline"])
    assert result.exit_code == 0, result.output


def test_unknown_format_is_a_usage_error(project: Path) -> None:
    result = runner.invoke(app, ["verify", "--format", "xml"])
    assert result.exit_code == 2


def test_schema_prints_json_schema() -> None:
    result = runner.invoke(app, ["schema"])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema["title"] == "claimcheck claim file"
    assert "claims" in schema["properties"]


def test_output_writes_more_formats_in_one_run(project: Path) -> None:
    store_readme(project, README_OK)
    result = runner.invoke(
        app, ["verify", "--offline", "--output", "json=out/report.json", "-o", "table=t.txt"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads((project / "out" / "report.json").read_text())["schema_version"] == 1
    assert "quant" in (project / "t.txt").read_text()


@pytest.mark.parametrize(
    "value", ["json", "xml=x", "json="], ids=["no-path", "bad-format", "empty"]
)
def test_bad_output_is_a_usage_error_before_any_work(project: Path, value: str) -> None:
    result = runner.invoke(app, ["verify", "--output", value])
    assert result.exit_code == 2
    assert "expected FORMAT=PATH" in result.stderr
    assert not (project / "snapshots").exists()


def test_fail_on_takes_only_review_verdicts(project: Path) -> None:
    store_readme(project, README_OK)
    assert runner.invoke(app, ["verify", "--offline", "--fail-on", "expired"]).exit_code == 0
    assert runner.invoke(app, ["verify", "--offline", "--fail-on", "nonsense"]).exit_code == 2


def test_an_online_run_refuses_while_another_holds_the_store(project: Path) -> None:
    from claimcheck.store.lock import acquire_lock

    store_readme(project, README_OK)
    with acquire_lock(project / "snapshots", "schedule"):
        result = runner.invoke(app, ["verify"])
        offline = runner.invoke(app, ["verify", "--offline"])
    assert result.exit_code == 2
    assert "schedule" in result.stderr
    assert offline.exit_code == 0  # reading the store needs no lock


def test_version_and_short_help_follow_cli_conventions() -> None:
    from importlib.metadata import version

    for flag in ("--version", "-V"):
        result = CliRunner().invoke(app, [flag])
        assert result.exit_code == 0
        assert result.stdout == f"claimcheck {version('claimcheck-desk')}\n"
    for args in (["-h"], ["verify", "-h"], ["accept", "-h"]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.stdout
        assert result.stdout.startswith("Usage: claimcheck")
        assert "-h, --help" in result.stdout


def test_no_claims_fails_the_gate_unless_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims").mkdir()
    refused = CliRunner().invoke(app, ["verify", "--offline"])
    assert refused.exit_code == 2
    assert "no claims found in claims" in refused.stderr
    assert "--allow-empty" in refused.stderr
    allowed = CliRunner().invoke(app, ["verify", "--offline", "--allow-empty"])
    assert allowed.exit_code == 0, allowed.output
