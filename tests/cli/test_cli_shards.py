"""`verify --shard K/N`, `snapshot --shard K/N`, `report merge` and `report render`.

The real run is this repository's own: its claims (two pages, ten GitHub sources,
citation-needed claims) judged offline against its stored snapshots, once whole, once
as three shards and once as two, whose reports are merged. The merged report must be
the whole run's report, every format must render from it, and `claimcheck issues` must
take it; a shard's report says which shard it is, so a merge that lacks one and
`claimcheck issues` given one are refused.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner, Result

from claimcheck.cli.app import app
from claimcheck.cli.work import issues as cli_issues
from claimcheck.github.issues import GitHubIssues
from claimcheck.report.formats import OutputFormat
from claimcheck.report.schema import report_schema
from claimcheck.store.state import load_state
from support import docs, paths
from support.claim_files import QUOTE_MAR, claim, write_claims, write_fast_config
from support.fake_github import TOKEN, Clock, FakeGitHub, require_spec
from support.replay_server import ReplayServer

runner = CliRunner()
SUBCOMMAND_HELP = re.compile(r"<!-- help:(\w+) (\w+) -->\n```text\n(.*?)```\n<!-- /help -->", re.S)
SHARDS = 3


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    return runner.invoke(app, list(args), env=env, catch_exceptions=False)


def show(result: Result) -> str:
    return f"exit {result.exit_code}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"


def without_time(document: dict[str, Any]) -> dict[str, Any]:
    """The report but for when the run was and how long it took (a run's own facts)."""
    return {k: v for k, v in document.items() if k not in ("generated_at", "duration_s")}


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of this repository's claims, snapshots and config."""
    root = tmp_path_factory.mktemp("desk")
    shutil.copytree(paths.ROOT / "claims", root / "claims")
    shutil.copytree(
        paths.ROOT / "snapshots",
        root / "snapshots",
        ignore=shutil.ignore_patterns(".cache", "state.json", ".claimcheck.lock", ".tmp-*"),
    )
    shutil.copy(paths.ROOT / "claimcheck.toml", root / "claimcheck.toml")
    return root


@pytest.fixture
def in_desk(desk: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(desk)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return desk


@pytest.fixture(scope="module")
def runs(desk: Path) -> Iterator[dict[str, Any]]:
    """The whole offline run, its three shards and its two halves, as `verify` wrote them."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(desk)
        patch.delenv("GITHUB_TOKEN", raising=False)
        whole = run("verify", "--offline", "--format", "json")
        parts = []
        for k in range(1, SHARDS + 1):
            part = run(
                "verify",
                "--offline",
                "--shard",
                f"{k}/{SHARDS}",
                "--format",
                "json",
                "--output",
                f"json=parts/part-{k}.json",
            )
            assert part.exit_code in (0, 1, 3), show(part)
            parts.append(part)
        merged = run("report", "merge", *(f"parts/part-{k}.json" for k in (3, 1, 2)))
        halves = [
            run(
                "verify", "--offline", "--shard", f"{k}/2", "--output", f"json=halves/half-{k}.json"
            )
            for k in (1, 2)
        ]
        assert all(half.exit_code in (0, 1, 3) for half in halves), [show(h) for h in halves]
        direct = {fmt: run("verify", "--offline", "--format", fmt.value) for fmt in OutputFormat}
        yield {"whole": whole, "parts": parts, "merged": merged, "direct": direct}


# -- sharded runs ------------------------------------------------------------------------


def test_the_shards_split_the_claims_and_say_so(runs: dict[str, Any]) -> None:
    whole = json.loads(runs["whole"].stdout)
    ids = [[r["id"] for r in json.loads(part.stdout)["results"]] for part in runs["parts"]]
    flat = [i for part in ids for i in part]

    assert sorted(flat) == sorted(r["id"] for r in whole["results"])
    assert len(flat) == len(set(flat))
    assert all(ids)  # ten sources over three shards: none is empty
    unsourced = {r["id"] for r in whole["results"] if r["source"] is None}
    assert unsourced
    assert unsourced <= set(ids[0])  # citation needed: shard 1 only
    for k, part in enumerate(runs["parts"], 1):
        assert re.search(
            rf"^shard {k} of {SHARDS}: \d+ of 10 sources, \d+ of 74 claims$", part.stderr, re.M
        ), part.stderr


def test_a_shards_report_names_its_shard_and_a_whole_runs_does_not(
    in_desk: Path, runs: dict[str, Any]
) -> None:
    schema = report_schema()
    for k, part in enumerate(runs["parts"], 1):
        printed = json.loads(part.stdout)
        written = json.loads(Path(f"parts/part-{k}.json").read_text(encoding="utf-8"))
        assert printed["shard"] == written["shard"] == {"index": k, "count": SHARDS}
        jsonschema.validate(printed, schema)
    for k in (1, 2):
        half = json.loads(Path(f"halves/half-{k}.json").read_text(encoding="utf-8"))
        assert half["shard"] == {"index": k, "count": 2}
    assert "shard" not in json.loads(runs["whole"].stdout)
    assert "shard" not in json.loads(runs["merged"].stdout)  # the merge is a whole run's


def test_merging_the_shards_gives_the_report_of_the_whole_run(
    in_desk: Path, runs: dict[str, Any]
) -> None:
    merged = runs["merged"]
    halves = run("report", "merge", "halves/half-2.json", "halves/half-1.json")
    whole = without_time(json.loads(runs["whole"].stdout))

    assert merged.exit_code == 0, show(merged)
    assert halves.exit_code == 0, show(halves)
    assert runs["whole"].exit_code == 1  # the desk's pages hold stale claims
    assert without_time(json.loads(merged.stdout)) == whole
    assert without_time(json.loads(halves.stdout)) == whole
    assert "merged 3 reports: 74 claims: " in merged.stderr


def test_merge_writes_the_report_to_a_file(in_desk: Path, runs: dict[str, Any]) -> None:
    result = run(
        "report",
        "merge",
        "parts/part-1.json",
        "parts/part-2.json",
        "parts/part-3.json",
        "-o",
        "out/merged.json",
    )

    assert result.exit_code == 0, show(result)
    assert result.stdout == ""
    written = json.loads((in_desk / "out" / "merged.json").read_text(encoding="utf-8"))
    assert written == json.loads(runs["merged"].stdout)


@pytest.mark.parametrize("fmt", list(OutputFormat))
def test_every_format_renders_from_the_merged_report_as_verify_renders_it(
    in_desk: Path, runs: dict[str, Any], fmt: OutputFormat
) -> None:
    Path("merged.json").write_text(runs["merged"].stdout, encoding="utf-8")
    direct = runs["direct"][fmt]

    rendered = run(
        "report",
        "render",
        "merged.json",
        "--format",
        fmt.value,
        "--output",
        f"{fmt.value}=out/report.{fmt.value}",
    )

    assert rendered.exit_code == direct.exit_code == 1, show(rendered)
    assert (Path("out") / f"report.{fmt.value}").read_text(encoding="utf-8") == rendered.stdout
    # The very text verify printed, but for the time of the run.
    assert without_times(rendered.stdout) == without_times(direct.stdout)
    assert rendered.stderr == direct.stderr


def without_times(text: str) -> str:
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(\+00:00|Z)?", "<time>", text)
    text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "<time>", text)  # the HTML title's minute
    text = re.sub(r'"duration_s": [\d.]+', '"duration_s": <took>', text)
    return re.sub(r'time="[\d.]+"', 'time="<took>"', text)


def test_render_gates_like_verify(in_desk: Path, runs: dict[str, Any]) -> None:
    document = json.loads(runs["merged"].stdout)
    held = {**document, "results": [r for r in document["results"] if not r["stale"]]}
    Path("held.json").write_text(json.dumps(held), encoding="utf-8")

    unverified = run("report", "render", "held.json", "--format", "json")
    moved = run("report", "render", "held.json", "--fail-on", "expired")

    # Citation-needed claims are listed, not failed: nothing stale, nothing unchecked.
    assert unverified.exit_code == 0, show(unverified)
    assert "claims: 40 verified, 21 unverified" in unverified.stderr
    assert moved.exit_code == 0
    assert run("report", "render", "held.json", "--output", "nope=x").exit_code == 2


def test_the_merged_report_goes_to_the_job_summary_with_the_github_format(
    in_desk: Path, runs: dict[str, Any], tmp_path: Path
) -> None:
    Path("merged.json").write_text(runs["merged"].stdout, encoding="utf-8")
    summary = tmp_path / "summary.md"

    result = run(
        "report",
        "render",
        "merged.json",
        "--format",
        "github",
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )

    assert result.exit_code == 1
    assert "::error" in result.stdout or "::warning" in result.stdout
    assert "llamacpp" in summary.read_text(encoding="utf-8")


def test_issues_take_the_merged_report(
    in_desk: Path, runs: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    Path("merged.json").write_text(runs["merged"].stdout, encoding="utf-8")
    stale = [r["id"] for r in json.loads(runs["merged"].stdout)["results"] if r["stale"]]
    with FakeGitHub(require_spec(), repo="desk/site") as github:
        monkeypatch.setenv("GITHUB_API_URL", github.base_url)
        result = run("issues", "--report", "merged.json", "--repo", "desk/site", "--dry-run")
    assert not github.errors, github.errors

    assert result.exit_code == 0, show(result)
    created = [line for line in result.stdout.splitlines() if line.startswith("would create ")]
    assert len(created) == len(stale) == 13
    assert all(any(claim_id in line for line in created) for claim_id in stale)
    assert github.open_issues() == []  # a dry run writes nothing


def test_issues_refuse_a_shards_report(
    in_desk: Path, runs: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeGitHub(require_spec(), repo="desk/site") as github:
        monkeypatch.setenv("GITHUB_API_URL", github.base_url)
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        result = run("issues", "--report", "halves/half-1.json", "--repo", "desk/site")

    assert result.exit_code == 2, show(result)
    assert result.stderr.startswith("error: halves/half-1.json is the report of shard 1/2 only")
    assert "merge the reports of every shard first with `claimcheck report merge" in result.stderr
    assert "Traceback" not in result.stderr
    assert github.requests == []  # refused before GitHub is asked anything


def test_a_partial_report_closes_no_issue_of_a_claim_still_in_the_claim_files(
    in_desk: Path, runs: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tester's night: the whole run files the stale claims; then a report of half of
    the claims that does not say so (a half's report from before reports named their
    shard) must close none of the other half's issues: those claims are still claimed."""
    clock = Clock()
    client = functools.partial(GitHubIssues, sleep=clock.sleep, clock=clock.time)
    monkeypatch.setattr(cli_issues, "github_client", client)
    Path("whole.json").write_text(runs["whole"].stdout, encoding="utf-8")
    half = json.loads(Path("halves/half-1.json").read_text(encoding="utf-8"))
    del half["shard"]
    Path("unmarked-half.json").write_text(json.dumps(half), encoding="utf-8")
    stale = {r["id"] for r in json.loads(runs["whole"].stdout)["results"] if r["stale"]}
    left_out = sorted(stale - {r["id"] for r in half["results"]})
    assert left_out  # the other half holds stale claims: the case at hand

    with FakeGitHub(require_spec(), repo="desk/site") as github:
        monkeypatch.setenv("GITHUB_API_URL", github.base_url)
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        filed = run("issues", "--report", "whole.json", "--repo", "desk/site")
        mark = len(github.requests)
        partial = run("issues", "--report", "unmarked-half.json", "--repo", "desk/site")
    assert not github.errors, github.errors

    assert filed.exit_code == 0, show(filed)
    assert len(github.open_issues()) == len(stale) == 13
    assert partial.exit_code == 0, show(partial)
    assert [r.operation for r in github.requests[mark:] if r.method != "GET"] == []
    assert len(github.open_issues()) == 13  # no issue closed, none commented
    assert "close" not in partial.stdout
    assert "no longer in the claim files" not in partial.stdout
    note = next(line for line in partial.stderr.splitlines() if line.startswith("note: "))
    assert f"{len(left_out)} claims with an open issue are in the claim files but not" in note
    assert note.split(": ")[2].split("; ")[0].split(", ") == left_out


# -- refusals ----------------------------------------------------------------------------


def test_a_claim_in_two_parts_exits_2_naming_both_files(
    in_desk: Path, runs: dict[str, Any]
) -> None:
    document = json.loads(Path("parts/part-2.json").read_text(encoding="utf-8"))
    Path("imposter.json").write_text(json.dumps({**document, "shard": {"index": 3, "count": 3}}))

    result = run("report", "merge", "parts/part-1.json", "parts/part-2.json", "imposter.json")

    assert result.exit_code == 2
    assert re.search(
        r"^error: claim '[^']+' is in both parts/part-2\.json and imposter\.json$",
        result.stderr,
        re.M,
    ), result.stderr
    assert "hint: merge the JSON reports of one run's shards" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("parts", "message"),
    [
        (["parts/part-1.json", "parts/part-3.json"], "shard 2/3 is missing"),
        (
            ["parts/part-1.json", "parts/part-2.json", "again.json"],
            "shard 2/3 is in both parts/part-2.json and again.json; shard 3/3 is missing",
        ),
        (
            ["parts/part-1.json", "parts/part-2.json", "parts/part-3.json", "parts/part-2.json"],
            "shard 2/3 is in both parts/part-2.json and parts/part-2.json "
            "(the same report given twice)",
        ),
        (
            ["parts/part-1.json", "parts/part-2.json", "halves/half-2.json"],
            "parts/part-1.json is shard 1/3 but halves/half-2.json is shard 2/2: "
            "the parts of one run are shards of the same N",
        ),
        (
            ["parts/part-1.json", "parts/part-2.json", "parts/part-3.json", "whole.json"],
            "whole.json names no shard: it is a whole run's report, or a shard's written "
            "before reports named their shard",
        ),
        (["whole.json"], "whole.json names no shard"),
    ],
    ids=["missing", "repeated", "given-twice", "other-count", "whole-among-shards", "whole"],
)
def test_parts_that_are_not_every_shard_once_exit_2_naming_what_is_wrong(
    in_desk: Path, runs: dict[str, Any], parts: list[str], message: str
) -> None:
    Path("whole.json").write_text(runs["whole"].stdout, encoding="utf-8")
    shutil.copy("parts/part-2.json", "again.json")

    result = run("report", "merge", *parts, "--output", "refused.json")

    assert result.exit_code == 2, show(result)
    assert result.stderr.startswith(f"error: {message}"), result.stderr
    assert "hint: merge the JSON reports of one run's shards, every one of them once" in (
        result.stderr
    )
    assert "Traceback" not in result.stderr
    assert not Path("refused.json").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "cannot read the report"),
        (b"\xff\xfe\x00", "cannot read the report"),
        (
            '{"schema_version": 1, "results": [{"id": "x", "verdict": "verified"}]}',
            "report result 1",
        ),
        ('{"schema_version": 2, "results": []}', "schema_version 2"),
        ("[1, 2, 3]", "not a claimcheck JSON report"),
    ],
    ids=["malformed", "not-utf8", "schema-invalid", "newer-schema", "not-a-report"],
)
def test_a_bad_part_exits_2_naming_its_file(
    in_desk: Path, runs: dict[str, Any], content: str | bytes, message: str
) -> None:
    bad = Path("bad part.json")
    if isinstance(content, bytes):
        bad.write_bytes(content)
    else:
        bad.write_text(content, encoding="utf-8")

    result = run("report", "merge", "parts/part-1.json", str(bad), "-o", "refused.json")
    rendered = run("report", "render", str(bad))

    for outcome in (result, rendered):
        assert outcome.exit_code == 2, show(outcome)
        assert outcome.stderr.startswith("error: bad part.json: "), outcome.stderr
        assert message in outcome.stderr
    assert not Path("refused.json").exists()


def test_a_missing_part_exits_2_naming_it(in_desk: Path) -> None:
    result = run("report", "merge", "parts/part-9.json")
    assert result.exit_code == 2
    assert "parts/part-9.json: cannot read the report" in result.stderr


def test_merge_without_parts_is_a_usage_error(in_desk: Path) -> None:
    assert run("report", "merge").exit_code == 2


@pytest.mark.parametrize("command", ["verify", "snapshot"])
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("3", "expected K/N"),
        ("0/3", "K must be between 1 and N"),
        ("4/3", "K must be between 1 and N"),
        ("1/0", "must be at least 1"),
    ],
)
def test_a_bad_shard_exits_2_before_anything_is_read_or_fetched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, value: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)  # no claims here: the option fails first

    result = run(command, "--shard", value)

    assert result.exit_code == 2, show(result)
    assert result.stderr.startswith(f"error: --shard {value!r}: ")
    assert message in result.stderr
    assert list(tmp_path.iterdir()) == []


# -- online: each shard fetches only its own sources -------------------------------------

REPOS = (
    "ggml-org/llama.cpp",
    "vllm-project/vllm",
    "sgl-project/sglang",
    "ollama/ollama",
    "InternLM/lmdeploy",
)


@pytest.fixture
def online(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    monkeypatch.setenv("WAYBACK_URL", replay.base_url)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    write_fast_config(tmp_path)
    entries = [
        claim(f"c-{repo.split('/')[1].replace('.', '-')}-{n}", source=f"https://github.com/{repo}")
        for repo in REPOS
        for n in (1, 2)
    ]
    entries.append(claim("cited", source=None, quote=None, cited="a book"))
    write_claims(tmp_path / "claims", entries)
    return tmp_path


def readmes_fetched(replay: ReplayServer) -> set[str]:
    found = set()
    for request in replay.requests:
        match = re.fullmatch(r"/repos/([^/]+/[^/]+)/readme", request.path)
        if match:
            found.add(match[1])
    return found


def test_snapshot_shards_fetch_disjoint_sources_that_cover_all(
    online: Path, replay: ReplayServer
) -> None:
    fetched = []
    for k in (1, 2):
        replay.clear_requests()
        result = run("snapshot", "--shard", f"{k}/2", "--no-progress")
        assert result.exit_code == 0, show(result)
        assert f"shard {k} of 2: " in result.stderr
        fetched.append(readmes_fetched(replay))

    assert fetched[0]
    assert fetched[1]
    assert fetched[0].isdisjoint(fetched[1])
    assert fetched[0] | fetched[1] == set(REPOS)
    stored = {
        p.parent.parent.relative_to(online / "snapshots" / "github.com").as_posix()
        for p in (online / "snapshots").rglob("README/*.md")
    }
    assert stored == set(REPOS)


def test_verify_shards_online_merge_into_every_claim(online: Path, replay: ReplayServer) -> None:
    for k in (1, 2):
        result = run(
            "verify", "--shard", f"{k}/2", "--no-progress", "--output", f"json=part-{k}.json"
        )
        assert result.exit_code in (0, 1, 3), show(result)

    merged = run("report", "merge", "part-1.json", "part-2.json")

    assert merged.exit_code == 0, show(merged)
    document = json.loads(merged.stdout)
    assert len(document["results"]) == 2 * len(REPOS) + 1
    assert document["offline"] is False
    held = [r for r in document["results"] if r["id"].startswith("c-llama")]
    assert {r["verdict"] for r in held} == {"verified"}  # QUOTE_MAR is in llama.cpp's head
    assert QUOTE_MAR in held[0]["quote"]


def test_an_empty_shard_is_an_empty_report_not_an_error(online: Path) -> None:
    write_claims(online / "claims", [claim("only", source="https://github.com/ollama/ollama")])
    owner = next(
        k
        for k in (1, 2, 3)
        if "1 of 1 sources" in run("verify", "--offline", "--shard", f"{k}/3").stderr
    )
    empty = next(k for k in (1, 2, 3) if k != owner)

    result = run("verify", "--offline", "--shard", f"{empty}/3", "--format", "json")

    assert result.exit_code == 0, show(result)
    assert json.loads(result.stdout)["results"] == []
    assert f"shard {empty} of 3: 0 of 1 sources, 0 of 1 claims" in result.stderr


def remembered(project: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The state a project's runs left: each claim's verdict and reason (not since when:
    that is the time of a run), and each source's counts and what was found of it (not
    which stored version it was found over: that is named by the time of a fetch)."""
    state = load_state(project / "snapshots")
    claims = {key: (entry.verdict, entry.reason) for key, entry in state.claims.items()}
    when = {"snapshot", "fetched_at"}
    sources = {
        key: entry.model_dump(exclude={"found": when}) for key, entry in state.sources.items()
    }
    return claims, sources


@pytest.mark.slow  # several whole sharded runs
def test_merged_shard_states_remember_what_one_whole_run_would(
    online: Path,
    replay: ReplayServer,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two nights, one source failing both: the sharded project, merged as the sharded
    workflow merges it, remembers what the same nights run whole remembered, so its
    failing source is filed after two nights as a whole run's would be."""
    root = tmp_path_factory.mktemp("nights")
    whole, desk = root / "whole", root / "desk"
    for project in (whole, desk):
        shutil.copytree(online, project)
    replay.fail("/repos/ollama/ollama/readme", status=503, times=None)

    for night in (1, 2):
        monkeypatch.chdir(whole)
        assert run("verify", "--no-progress").exit_code in (1, 3)
        parts = root / f"parts-{night}"
        for k in (1, 2):
            shard = root / f"shard-{night}-{k}"
            shutil.copytree(desk, shard)  # the job's checkout
            monkeypatch.chdir(shard)
            done = run("verify", "--shard", f"{k}/2", "--no-progress", "--output", "json=part.json")
            assert done.exit_code in (0, 1, 3), show(done)
            (parts / str(k)).mkdir(parents=True)
            shutil.copy(shard / "part.json", parts / str(k) / "report.json")
            shutil.copy(shard / "snapshots" / "state.json", parts / str(k) / "state.json")
            shutil.copytree(
                shard / "snapshots",
                desk / "snapshots",
                dirs_exist_ok=True,
                ignore=shutil.ignore_patterns("state.json", ".cache", ".claimcheck.lock"),
            )
        monkeypatch.chdir(desk)
        merged = run(
            "report",
            "merge",
            *(str(parts / k / "report.json") for k in "12"),
            *(f"--state={parts / k / 'state.json'}" for k in "12"),
            "--output",
            "merged.json",
        )
        assert merged.exit_code == 0, show(merged)
        assert "merged 2 state files into " in merged.stderr
        assert remembered(desk) == remembered(whole)

    claims, sources = remembered(desk)
    assert len(claims) == 2 * len(REPOS) + 1
    assert sources["https://github.com/ollama/ollama"]["failures"] == 2
    assert sources["https://github.com/vllm-project/vllm"]["failures"] == 0
    with FakeGitHub(require_spec(), repo="desk/site") as github:
        monkeypatch.setenv("GITHUB_API_URL", github.base_url)
        filed = run(
            "issues",
            "--report",
            "merged.json",
            "--repo",
            "desk/site",
            "--dry-run",
            "--unreachable-after",
            "2",
        )
    assert filed.exit_code == 0, show(filed)
    created = [line for line in filed.stdout.splitlines() if line.startswith("would create ")]
    unreachable = [line.split()[3] for line in created if " unreachable on " in line]
    assert unreachable == ["c-ollama-1", "c-ollama-2"], filed.stdout
    assert "unreachable on 2 consecutive runs" in filed.stdout


def test_a_state_file_that_cannot_be_read_exits_2_naming_it_and_keeps_the_state(
    online: Path,
) -> None:
    done = run("verify", "--shard", "1/1", "--no-progress", "--output", "json=part.json")
    assert done.exit_code in (0, 1), show(done)
    before = (online / "snapshots" / "state.json").read_bytes()
    Path("bad.json").write_text('{"claims": {"x": {"verdict": "fine"}}}', encoding="utf-8")

    for state in ("bad.json", "missing.json"):
        result = run("report", "merge", "part.json", "--state", state)
        assert result.exit_code == 2, show(result)
        assert f"error: {state}" in result.stderr or f"--state {state}" in result.stderr
        assert "Traceback" not in result.stderr
        assert "hint: give the state.json each shard's verify wrote" in result.stderr or (
            state == "missing.json"
        )
    assert (online / "snapshots" / "state.json").read_bytes() == before


def test_a_state_file_over_the_bound_is_refused_before_it_is_read(online: Path) -> None:
    done = run("verify", "--shard", "1/1", "--no-progress", "--output", "json=part.json")
    assert done.exit_code in (0, 1), show(done)
    before = (online / "snapshots" / "state.json").read_bytes()
    with Path("huge.json").open("wb") as huge:  # sparse: 65 MiB on the page, none on disk
        huge.truncate(65 * 1024 * 1024)

    result = run("report", "merge", "part.json", "--state", "huge.json")

    assert result.exit_code == 2, show(result)
    assert "--state huge.json: 68,157,440 bytes, more than the 64 MiB" in result.stderr
    assert (online / "snapshots" / "state.json").read_bytes() == before


# -- the README documents the report commands --------------------------------------------


def test_the_readme_shows_the_current_help_of_the_report_commands() -> None:
    blocks = {
        (group, command): text
        for group, command, text in SUBCOMMAND_HELP.findall(docs.everything())
        if group == "report"
    }

    assert set(blocks) == {("report", "merge"), ("report", "render")}
    for (group, command), text in blocks.items():
        result = CliRunner().invoke(app, [group, command, "--help"], terminal_width=80)
        assert result.exit_code == 0
        assert result.stdout == text, f"README help of {group} {command!r} is out of date"


def rewrite_help_blocks() -> None:
    """Refresh the docs' report help blocks: `python tests/cli/test_cli_shards.py`."""

    def fresh(match: re.Match[str]) -> str:
        group, command = match.group(1), match.group(2)
        text = CliRunner().invoke(app, [group, command, "--help"], terminal_width=80).stdout
        return f"<!-- help:{group} {command} -->\n```text\n{text}```\n<!-- /help -->"

    for page in docs.pages():
        page.write_text(SUBCOMMAND_HELP.sub(fresh, docs.text(page)), encoding="utf-8")


if __name__ == "__main__":
    rewrite_help_blocks()
