"""The editor's commands end to end: add, accept, lint, list and show.

`add` fetches from the GitHub-shaped replay server on 127.0.0.1; `accept`, `lint`,
`list` and `show` work offline on stored snapshots and the remembered state.
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from claimcheck.claims.edit import derive_id
from claimcheck.claims.fragment import build_text_fragment
from claimcheck.claims.schema import MODELINE
from claimcheck.cli.app import app
from claimcheck.cli.show import LAST_VERDICTS
from claimcheck.models import Verdict
from claimcheck.store.state import ClaimState, RunState, save_state
from support import stored_readme
from support.replay_server import ReplayServer

LLAMA = "ggml-org/llama.cpp"
LLAMA_URL = f"https://github.com/{LLAMA}"
README_API = f"/repos/{LLAMA}/readme"
FEB_15 = dt.date(2024, 2, 15)
MAR_15 = dt.date(2024, 3, 15)
QUOTE_FEB = "2-bit, 3-bit, 4-bit, 5-bit, 6-bit and 8-bit integer quantization support"
QUOTE_MAR = "1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization"
CLAIM = "llama.cpp supports 1.5-bit to 8-bit integer quantization"
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
TWICE = (
    "<html><body><h1>Backends</h1><p>The CLI runs on CUDA and Metal GPUs out of the box.</p>"
    "<p>The server also runs on CUDA and Metal GPUs when built with them.</p></body></html>"
)

runner = CliRunner()


def run(*args: str) -> Result:
    return runner.invoke(app, list(args), catch_exceptions=False)


def show(result: Result) -> str:
    return f"exit {result.exit_code}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"


def today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


def changed(before: str, after: str) -> list[str]:
    """The lines removed (-) and added (+), in order, without diff headers."""
    diff = difflib.unified_diff(before.splitlines(True), after.splitlines(True), n=0)
    return [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")]


def tree(root: Path) -> dict[str, bytes]:
    if not root.exists():
        return {}
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def verdicts(*args: str) -> dict[str, str]:
    result = run("verify", "--offline", "--format", "json", *args)
    return {r["id"]: r["verdict"] for r in json.loads(result.stdout)["results"]}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return tmp_path


@pytest.fixture
def online(project: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer) -> Path:
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    return project


# -- add -------------------------------------------------------------------------------


def test_add_creates_the_page_file_and_stores_the_baseline(online: Path) -> None:
    result = run("add", LLAMA_URL, "--quote", QUOTE_MAR, "--claim", CLAIM, "--page", "hub")

    assert result.exit_code == 0, show(result)
    claim_id = "hub-llama-cpp-supports-1-5-bit"
    assert (online / "claims" / "hub.yaml").read_text() == (
        f"{MODELINE}\n"
        f"page: hub\nchecked: {today()}\nclaims:\n  - id: {claim_id}\n"
        f'    claim: "{CLAIM}"\n    source: {LLAMA_URL}\n    quote: "{QUOTE_MAR}"\n'
    )
    assert f"added {claim_id} to claims/hub.yaml:5" in result.stdout
    assert len([p for p in tree(online / "snapshots") if p.endswith(".md")]) == 1
    assert verdicts() == {claim_id: "verified"}


def test_add_writes_the_modeline_only_into_a_file_it_creates(online: Path) -> None:
    """A second claim of the page goes into the file `add` made: its one modeline stays."""
    for quote, claim in ((QUOTE_MAR, CLAIM), ("integer quantization", "It quantizes")):
        result = run("add", LLAMA_URL, "--quote", quote, "--claim", claim, "--page", "hub")
        assert result.exit_code == 0, show(result)

    lines = (online / "claims" / "hub.yaml").read_text().splitlines()
    assert lines[0] == MODELINE
    assert [line for line in lines if "yaml-language-server" in line] == [MODELINE]
    assert len(verdicts()) == 2


def test_add_refuses_a_changed_quote_with_the_closest_text_and_writes_nothing(
    online: Path, replay: ReplayServer
) -> None:
    replay.as_of = MAR_15

    result = run("add", LLAMA_URL, "--quote", QUOTE_FEB, "--claim", CLAIM, "--page", "hub")

    assert result.exit_code == 1, show(result)
    assert "closest text (" in result.stderr
    assert ", and 8-bit integer quantization" in result.stderr  # the March wording
    assert "diff: " in result.stderr
    assert not (online / "claims").exists()
    assert not (online / "snapshots").exists()


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--claim", "caf\udcff"], "--claim: character 4 is a lone surrogate U+DCFF"),
        (["--claim", CLAIM, "--suffix", "and\x07"], "--suffix: character 4 is the control "),
    ],
    ids=["lone-surrogate", "control-character"],
)
def test_add_refuses_text_a_claim_file_cannot_hold_and_writes_nothing(
    online: Path, options: list[str], said: str
) -> None:
    result = run("add", LLAMA_URL, "--quote", QUOTE_MAR, "--page", "hub", *options)

    assert result.exit_code == 2, show(result)
    assert result.stderr.startswith(f"error: {said}"), show(result)
    assert tree(online) == {}


# What a claim file refuses, given as arguments: the error names the argument, never a
# line of a claim file the claim is not in (and that may not exist).
REFUSED_ARGUMENTS = {
    "blank-quote": (["--quote", "  "], "--quote: must not be empty or whitespace only"),
    "empty-prefix": (["--prefix", ""], "--prefix: must not be empty or whitespace only"),
    "blank-prefix": (["--prefix", "  "], "--prefix: must not be empty or whitespace only"),
    "empty-suffix": (["--suffix", ""], "--suffix: must not be empty or whitespace only"),
    "blank-suffix": (["--suffix", " \t"], "--suffix: must not be empty or whitespace only"),
    "blank-claim": (["--claim", " "], "--claim: must not be empty or whitespace only"),
    "long-id": (["--id", "x" * 201], "--id: is 201 characters long"),
    "password": (
        ["SOURCE", "https://alice:pw@github.com/ggml-org/llama.cpp"],
        "SOURCE: carries a user name or password (https://***@github.com)",
    ),
    "fragment": (
        ["SOURCE", f"{LLAMA_URL}#:~:text=%20%20"],
        "SOURCE: the text fragment's quote: must not be empty or whitespace only",
    ),
}


@pytest.mark.parametrize("page_file", [False, True], ids=["new-page", "existing-page"])
@pytest.mark.parametrize(
    ("change", "said"), REFUSED_ARGUMENTS.values(), ids=REFUSED_ARGUMENTS.keys()
)
def test_add_names_the_argument_a_claim_file_would_refuse(
    online: Path, replay: ReplayServer, page_file: bool, change: list[str], said: str
) -> None:
    if page_file:
        write_claim(online / "claims", QUOTE_MAR)
    before = tree(online)
    options = {"SOURCE": LLAMA_URL, "--quote": QUOTE_MAR, "--claim": CLAIM, "--page": "page"}
    options |= dict(zip(change[::2], change[1::2], strict=True))
    if "#:~:" in options["SOURCE"]:
        del options["--quote"]
    args = [options.pop("SOURCE"), *(item for pair in options.items() for item in pair)]
    replay.clear_requests()

    result = run("add", *args)

    assert result.exit_code == 2, show(result)
    assert result.stderr.startswith(f"error: {said}"), show(result)
    assert "claims/" not in result.stderr
    assert "`claimcheck schema`" not in result.stderr
    assert replay.requests == []
    assert tree(online) == before


def test_add_refuses_a_quote_with_nothing_close(online: Path) -> None:
    quote = "runs natively on quantum annealers with zero-bit weights"
    result = run("add", LLAMA_URL, "--quote", quote, "--claim", CLAIM, "--page", "hub")
    assert result.exit_code == 1, show(result)
    assert "nothing close" in result.stderr
    assert tree(online) == {}


def test_add_proposes_a_prefix_and_suffix_for_each_occurrence(
    online: Path, replay: ReplayServer
) -> None:
    url = replay.set_page("/docs/backends.html", TWICE)
    args = ["add", url, "--quote", "runs on CUDA and Metal GPUs", "--claim", "GPUs", "--page", "p"]

    refused = run(*args)

    assert refused.exit_code == 1, show(refused)
    assert "occurs 2 times" in refused.stderr
    options = [line.split(". ", 1)[1] for line in refused.stderr.splitlines() if "--suffix" in line]
    assert options == ["--prefix CLI --suffix out", "--prefix also --suffix when"]
    assert tree(online) == {}

    added = run(*args, *shlex.split(options[1]))

    assert added.exit_code == 0, show(added)
    text = (online / "claims" / "p.yaml").read_text()
    assert '    prefix: "also"\n    suffix: "when"\n' in text
    assert verdicts() == {"p-gpus": "verified"}


def test_add_takes_the_quote_from_a_text_fragment_url(online: Path, replay: ReplayServer) -> None:
    url = replay.set_page("/docs/backends.html", TWICE)
    link = build_text_fragment(url, "runs on CUDA and Metal GPUs", prefix="CLI")

    result = run("add", link, "--claim", "GPUs", "--page", "p", "--id", "gpus")

    assert result.exit_code == 0, show(result)
    text = (online / "claims" / "p.yaml").read_text()
    assert f"    source: {url}\n" in text  # the quote is written out, not left in the URL
    assert '    quote: "runs on CUDA and Metal GPUs"\n    prefix: "CLI"\n' in text


def test_add_refuses_a_duplicate_id_before_fetching(online: Path, replay: ReplayServer) -> None:
    assert (
        run("add", LLAMA_URL, "--quote", QUOTE_MAR, "--claim", CLAIM, "--page", "a").exit_code == 0
    )
    before = tree(online)
    replay.clear_requests()
    taken = derive_id("a", CLAIM, set())

    result = run(
        "add", LLAMA_URL, "--quote", QUOTE_MAR, "--claim", CLAIM, "--page", "b", "--id", taken
    )

    assert result.exit_code == 2, show(result)
    assert f"id '{taken}' is already used at claims/a.yaml:5" in result.stderr
    assert tree(online) == before
    assert replay.requests == []


def test_a_derived_id_is_unique_across_files(online: Path) -> None:
    (online / "claims").mkdir()
    (online / "claims" / "other.yaml").write_text(
        f"page: other\nchecked: 2026-10-20\nclaims:\n  - id: {derive_id('hub', CLAIM, set())}\n"
        "    claim: taken\n    cited: a talk\n"
    )

    result = run("add", LLAMA_URL, "--quote", QUOTE_MAR, "--claim", CLAIM, "--page", "hub")

    assert result.exit_code == 0, show(result)
    assert (
        "- id: hub-llama-cpp-supports-1-5-bit-2\n" in (online / "claims" / "hub.yaml").read_text()
    )


def test_add_exits_3_when_the_source_cannot_be_fetched(online: Path, replay: ReplayServer) -> None:
    replay.fail(README_API, status=503, times=None, headers={"Retry-After": "0"})

    result = run("add", LLAMA_URL, "--quote", QUOTE_MAR, "--claim", CLAIM, "--page", "hub")

    assert result.exit_code == 3, show(result)
    assert "503" in result.stderr
    assert tree(online) == {}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "give --quote"),
        (["--quote", "x y z", "--page", "bad page"], "--page 'bad page'"),
        (["--quote", "x y z", "--id", "-x"], "--id '-x'"),
    ],
    ids=["no-quote", "bad-page", "bad-id"],
)
def test_add_usage_errors_exit_2(online: Path, extra: list[str], message: str) -> None:
    args = ["add", LLAMA_URL, "--claim", CLAIM, *extra]
    if "--page" not in extra:
        args += ["--page", "hub"]
    result = run(*args)
    assert result.exit_code == 2, show(result)
    assert message in result.stderr
    assert tree(online) == {}


def test_add_refuses_a_source_with_a_password_before_fetching_it(
    online: Path, replay: ReplayServer
) -> None:
    url = replay.set_page("/docs/backends.html", TWICE)
    with_password = url.replace("http://", "http://alice:s3cret@", 1)
    replay.clear_requests()

    result = run("add", with_password, "--quote", "CUDA", "--claim", "GPUs", "--page", "p")

    assert result.exit_code == 2, show(result)
    assert "error: SOURCE: carries a user name or password (http://***@127.0.0.1:" in result.stderr
    assert "claimcheck never sends credentials written in a claim file" in result.stderr
    assert "s3cret" not in result.stdout + result.stderr
    assert replay.requests == []
    assert tree(online) == {}


def test_add_refuses_a_quote_given_twice(online: Path) -> None:
    link = build_text_fragment(LLAMA_URL, "integer quantization")
    result = run("add", link, "--quote", QUOTE_MAR, "--claim", CLAIM, "--page", "hub")
    assert result.exit_code == 2, show(result)
    assert "text fragment" in result.stderr


# -- accept ----------------------------------------------------------------------------


def write_claim(folder: Path, quote: str, source: str = LLAMA_URL, **extra: str) -> Path:
    lines = [
        "page: page",
        "checked: 2026-10-20",
        "claims:",
        "  - id: quant  # the quantization claim",
        f"    claim: {CLAIM}",
        f"    source: {source}",
        f"    quote: {json.dumps(quote)}",
        *(f"    {key}: {json.dumps(value)}" for key, value in extra.items()),
        "  - id: cited",
        "    claim: DeepInfer is Apache-2.0",
        "    cited: DeepInfer README",
    ]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "page.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_accept_rebaselines_a_drifted_claim_on_the_latest_snapshot(
    online: Path, replay: ReplayServer
) -> None:
    path = write_claim(online / "claims", QUOTE_FEB)
    replay.as_of = MAR_15
    assert run("snapshot").exit_code == 0
    before = path.read_text()
    replay.clear_requests()

    result = run("accept", "quant")

    assert result.exit_code == 0, show(result)
    assert replay.requests == []  # offline
    # The whole new list item, as the source says it: not the fragment that aligns.
    found = (
        "1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization"
        " for faster inference and reduced memory use"
    )
    assert changed(before, path.read_text()) == [
        f'-    quote: "{QUOTE_FEB}"\n',
        f'+    quote: "{found}"\n',
        f"+    checked: {today()}\n",
    ]
    assert "  checked: 2026-10-20 -> " in result.stdout
    assert "  baseline: snapshot of " in result.stdout
    assert verdicts()["quant"] == "verified"


def test_accept_span_takes_only_the_aligned_part_in_whole_tokens(
    online: Path, replay: ReplayServer
) -> None:
    path = write_claim(online / "claims", QUOTE_FEB)
    replay.as_of = MAR_15
    assert run("snapshot").exit_code == 0

    result = run("accept", "quant", "--span")

    assert result.exit_code == 0, show(result)
    span = "2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization"
    assert f'    quote: "{span}"\n' in path.read_text()
    assert verdicts()["quant"] == "verified"


def test_accept_with_a_quote_that_is_in_the_latest_snapshot(
    online: Path, replay: ReplayServer
) -> None:
    path = write_claim(online / "claims", QUOTE_FEB)
    replay.as_of = MAR_15
    assert run("snapshot").exit_code == 0

    refused = run("accept", "quant", "--quote", "4-bit and 8-bit integer quantization")
    assert refused.exit_code == 1, show(refused)
    assert "--quote is not in the latest snapshot" in refused.stderr

    accepted = run("accept", "quant", "--quote", "5-bit, 6-bit, and 8-bit integer quantization")
    assert accepted.exit_code == 0, show(accepted)
    assert '    quote: "5-bit, 6-bit, and 8-bit integer quantization"\n' in path.read_text()


def test_accept_refusals(online: Path, replay: ReplayServer) -> None:
    path = write_claim(online / "claims", QUOTE_FEB)
    before = path.read_text()

    no_snapshot = run("accept", "quant")
    unknown = run("accept", "nope")
    cited = run("accept", "cited")

    assert no_snapshot.exit_code == 3, show(no_snapshot)
    assert "no snapshot" in no_snapshot.stderr
    assert unknown.exit_code == 2, show(unknown)
    assert "no claim with id 'nope'" in unknown.stderr
    assert cited.exit_code == 2, show(cited)
    assert "citation needed" in cited.stderr
    assert path.read_text() == before
    assert replay.requests == []


# What a claim file refuses as a quote; `accept --quote` refuses it too, in the same words.
UNQUOTABLE = {
    "spaces": "  ",
    "empty": "",
    "zero-width-space": "\u200b",
    "control-character": "MIT\x07License",
}


@pytest.mark.parametrize("quote", list(UNQUOTABLE.values()), ids=list(UNQUOTABLE))
def test_accept_refuses_a_quote_a_claim_file_refuses_as_bad_input(
    project: Path, quote: str
) -> None:
    """It is bad input (exit 2), not a quote the snapshot lacks (exit 1): the problem is
    the parser's own, word for word, as `add --quote` and a claim file get it."""
    store_readme(project)
    (project / "claims").mkdir()
    path = project / "claims" / "page.yaml"
    path.write_text("page: page\nchecked: 2026-10-20\nclaims:\n" + entry("lic", "License: MIT"))
    before = path.read_text()
    bad = project / "bad" / "bad.yaml"
    bad.parent.mkdir()
    bad.write_text("page: bad\nchecked: 2026-10-20\nclaims:\n" + entry("q", quote))

    accepted = run("accept", "lic", "--quote", quote)
    parsed = run("lint", "bad/bad.yaml")
    added = run("add", "https://github.com/o/r", "--quote", quote, "--claim", "c", "--page", "p")

    assert accepted.exit_code == 2, show(accepted)
    first = accepted.stderr.splitlines()[0]
    assert first.startswith("error: --quote: "), show(accepted)
    problem = first.removeprefix("error: --quote: ")
    assert f"bad/bad.yaml:7: error: claim 'q': quote: {problem} [schema]" in parsed.stdout
    assert parsed.exit_code == 2, show(parsed)
    assert added.exit_code == 2, show(added)
    assert added.stderr.startswith(f"error: --quote: {problem}"), show(added)
    assert path.read_text() == before
    assert not (project / "claims" / "p.yaml").exists()


def test_accept_help_says_a_refused_quote_exits_2() -> None:
    result = run("accept", "--help")

    assert result.exit_code == 0, show(result)
    exits = " ".join(result.stdout.split()).split("Exit 0: ", 1)[1].split(" 3: ")[0]
    assert "2: unknown id, a claim without source, a --quote a claim file would refuse" in exits


def test_accept_takes_a_quote_padded_with_spaces(project: Path) -> None:
    """Blank is refused, not spaces around words: the quote is taken stripped, as before."""
    store_readme(project)
    (project / "claims").mkdir()
    path = project / "claims" / "page.yaml"
    path.write_text("page: page\nchecked: 2026-10-20\nclaims:\n" + entry("lic", "Runs on CUDA"))

    result = run("accept", "lic", "--quote", "  License: MIT  ")

    assert result.exit_code == 0, show(result)
    assert '    quote: "License: MIT"\n' in path.read_text()


# -- round trip: a file full of comments survives add and accept -----------------------

STYLED = """\
# Claims of the page "Backends".   <- a comment before everything
page: backends   # the slug
title: 'Backends: what runs where'
checked: 2026-10-20
claims:
  # ---------------------------------------------- the CLI
  - quote: >-
      The CLI runs on CUDA
      and Metal GPUs
    id: cli-gpus   # the id after the quote
    source: {base}/docs/backends.html
    claim: |
      The CLI runs on
      CUDA and Metal.

  # ---------------------------------------------- the server
  - id: 'server-gpus'
    claim: "Server: GPUs"   # a trailing comment
    source: {base}/docs/backends.html
    quote: 'runs on CUDA and Metal GPUs'
    # a comment inside the claim
    prefix: also
    checked: '2026-10-21'
# a comment after everything
"""


def test_add_and_accept_change_only_the_intended_lines(online: Path, replay: ReplayServer) -> None:
    base = replay.base_url
    url = replay.set_page("/docs/backends.html", TWICE)
    replay.set_page("/docs/install.html", "<p>Install it with pip install engine today.</p>")
    path = online / "claims" / "backends.yaml"
    path.parent.mkdir()
    original = STYLED.format(base=base)
    path.write_text(original)

    added = run(
        "add",
        f"{base}/docs/install.html",
        "--quote",
        "Install it with pip install engine",
        "--claim",
        "It installs with pip",
        "--page",
        "backends",
        "--id",
        "pip",
    )

    assert added.exit_code == 0, show(added)
    after_add = path.read_text()
    assert changed(original, after_add) == [
        "+\n",
        "+  - id: 'pip'\n",
        '+    claim: "It installs with pip"\n',
        f"+    source: {base}/docs/install.html\n",
        "+    quote: 'Install it with pip install engine'\n",
        f"+    checked: '{today()}'\n",
    ]
    assert after_add.endswith("# a comment after everything\n")

    replay.set_page("/docs/backends.html", TWICE.replace("and Metal", "and Apple Metal"))
    assert run("snapshot").exit_code == 0
    accepted = run("accept", "cli-gpus")
    after_accept = path.read_text()

    assert accepted.exit_code == 0, show(accepted)
    assert changed(after_add, after_accept) == [
        "-      The CLI runs on CUDA\n",
        "-      and Metal GPUs\n",
        "+      The CLI runs on CUDA and Apple Metal GPUs out of the box.\n",  # the sentence
        f"+    checked: '{today()}'\n",
    ]
    assert url in after_accept

    accepted = run("accept", "server-gpus", "--span")  # keeps its prefix
    after_server = path.read_text()

    assert accepted.exit_code == 0, show(accepted)
    assert changed(after_accept, after_server) == [
        "-    quote: 'runs on CUDA and Metal GPUs'\n",
        "+    quote: 'runs on CUDA and Apple Metal GPUs'\n",
        "-    checked: '2026-10-21'\n",
        f"+    checked: '{today()}'\n",
    ]
    assert verdicts() == {"cli-gpus": "verified", "server-gpus": "verified", "pip": "verified"}


# -- lint ------------------------------------------------------------------------------

README_TEXT = (
    "# Engine\n\n- Supports **1.5-bit**, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer"
    " [quantization](x)\n- License: MIT\n- Runs on CUDA and Metal. Also runs on CUDA and Metal.\n"
)


def store_readme(root: Path, body: str = README_TEXT, repo: str = "o/r") -> None:
    stored_readme.store_readme(root / "snapshots", body, source=f"https://github.com/{repo}")


def lint_file(project: Path, claims: str, *args: str) -> Result:
    (project / "claims").mkdir(exist_ok=True)
    (project / "claims" / "page.yaml").write_text(
        "page: page\nchecked: 2026-10-20\nclaims:\n" + claims
    )
    return run("lint", *args)


def entry(claim_id: str, quote: str, repo: str = "o/r") -> str:
    return (
        f"  - id: {claim_id}\n    claim: c\n    source: https://github.com/{repo}\n"
        f"    quote: {json.dumps(quote)}\n"
    )


def test_lint_clean_exits_0(project: Path) -> None:
    store_readme(project)
    result = lint_file(project, entry("quant", QUOTE_MAR))
    assert result.exit_code == 0, show(result)
    assert result.stdout == ""
    assert "lint: clean (1 claim in 1 file)" in result.stderr


def test_lint_warnings_alone_exit_0(project: Path) -> None:
    store_readme(project)
    result = lint_file(
        project, entry("mit", "License: MIT") + entry("gpus", "runs on CUDA and Metal")
    )
    assert result.exit_code == 0, show(result)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("claims/page.yaml:4: warning: claim 'mit': the quote 'License: MIT'")
    assert lines[0].endswith("[short-quote]")
    assert lines[1].startswith("claims/page.yaml:8: warning: claim 'gpus': the quote occurs 2")
    assert lines[1].endswith("[ambiguous-quote]")


def test_lint_errors_exit_1(project: Path) -> None:
    store_readme(project)
    result = lint_file(
        project,
        entry("changed", QUOTE_FEB) + entry("unstored", QUOTE_MAR, repo="o/other"),
    )
    assert result.exit_code == 1, show(result)
    assert (
        "claims/page.yaml:4: error: claim 'changed': the quote is not in the latest snapshot"
        in result.stdout
    )
    assert "[quote-not-found]" in result.stdout
    assert "claims/page.yaml:8: error: claim 'unstored': no snapshot" in result.stdout
    assert "lint: 2 errors, 0 warnings" in result.stderr


def test_lint_unparseable_files_exit_2_and_still_lint_the_others(project: Path) -> None:
    store_readme(project)
    (project / "claims").mkdir()
    (project / "claims" / "other.yaml").write_text(
        "page: other\nchecked: 2026-10-20\nclaims:\n" + entry("dup", QUOTE_FEB)
    )
    (project / "claims" / "typo.yaml").write_text(
        "page: typo\nchecked: 2026-10-20\nclaims:\n"
        + entry("typo", QUOTE_MAR).replace("quote:", "qoute:")
    )
    result = lint_file(project, entry("dup", QUOTE_MAR))
    assert result.exit_code == 2, show(result)
    lines = result.stdout.splitlines()
    assert (
        "claims/typo.yaml:7: error: claim 'typo': qoute: unknown key; did you mean 'quote'? "
        "[schema]" in lines
    )
    assert (
        "claims/page.yaml:4: error: claim 'dup': id: duplicate id, first defined at "
        "claims/other.yaml:4 [duplicate-id]"
    ) in lines
    assert any("claims/other.yaml:4: error: claim 'dup'" in line for line in lines)  # linted


def test_lint_shows_every_path_from_the_repository_root_as_reports_do(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """claimcheck.toml in a subfolder of the repository: a schema or duplicate-id finding,
    read from the current folder, names its file as the other findings do."""
    (project / ".git").mkdir()
    site = project / "site"
    (site / "claims").mkdir(parents=True)
    (site / "claimcheck.toml").write_text("")
    head = "page: {}\nchecked: 2026-10-20\nclaims:\n"
    (site / "claims" / "a.yaml").write_text(head.format("a") + entry("dup", QUOTE_MAR))
    (site / "claims" / "b.yaml").write_text(
        head.format("b")
        + entry("dup", QUOTE_MAR)
        + entry("typo", QUOTE_MAR).replace("quote:", "qoute:")
    )
    monkeypatch.chdir(site)

    result = run("lint")

    assert result.exit_code == 2, show(result)
    assert result.stdout.splitlines() == [
        "site/claims/a.yaml:4: error: claim 'dup': no snapshot of the source is stored: run "
        "`claimcheck snapshot` (or `verify`) once with a network [no-snapshot]",
        "site/claims/b.yaml:4: error: claim 'dup': id: duplicate id, first defined at "
        "site/claims/a.yaml:4 [duplicate-id]",
        "site/claims/b.yaml:8: error: claim 'typo': quote: a claim with a source needs a quote "
        "[schema]",
        "site/claims/b.yaml:11: error: claim 'typo': qoute: unknown key; did you mean "
        "'quote'? [schema]",
    ]


def test_lint_missing_path_exits_2(project: Path) -> None:
    result = run("lint", "nope.yaml")
    assert result.exit_code == 2
    assert "nope.yaml: no such claim file or folder" in result.stderr


# -- list and show ---------------------------------------------------------------------


@pytest.fixture
def judged(project: Path) -> Path:
    """Two pages, a stored snapshot and remembered verdicts for some of the claims."""
    store_readme(project)
    claims = project / "claims"
    claims.mkdir()
    (claims / "a.yaml").write_text(
        "page: a\nchecked: 2026-10-20\nclaims:\n"
        + entry("quant", QUOTE_MAR)
        + "  - id: cited\n    claim: c\n    cited: a talk\n"
    )
    (claims / "b.yaml").write_text(
        "page: b\nchecked: 2026-10-20\nclaims:\n" + entry("fresh", QUOTE_MAR, repo="x/y")
    )
    when = dt.datetime(2026, 11, 1, 3, tzinfo=dt.UTC)
    save_state(
        project / "snapshots",
        RunState(
            last_run=when,
            claims={
                "quant": ClaimState(
                    verdict=Verdict.DRIFTED, reason="the quote changed", since=when
                ),
                "cited": ClaimState(  # state.json is untrusted text too (claim files refuse it)
                    verdict=Verdict.UNVERIFIED, reason="citation \x1b[31mneeded\x1b[0m", since=when
                ),
            },
        ),
    )
    return project


def listed(*args: str) -> list[list[str]]:
    result = run("list", *args)
    assert result.exit_code == 0, show(result)
    return [line.split() for line in result.stdout.splitlines()[1:]]


def test_list_shows_last_verdicts_and_filters(judged: Path) -> None:
    rows = listed()
    assert [row[:5] for row in rows] == [
        ["quant", "a", "drifted", "2026-11-01", "2026-10-20"],
        ["cited", "a", "unverified", "2026-11-01", "2026-10-20"],
        ["fresh", "b", "never-judged", "-", "2026-10-20"],
    ]
    assert "\x1b" not in run("list").stdout
    assert [r[0] for r in listed("--page", "b")] == ["fresh"]
    assert [r[0] for r in listed("--source", "GITHUB.com/o/")] == ["quant"]
    assert [r[0] for r in listed("--source", "talk")] == ["cited"]
    assert [r[0] for r in listed("--verdict", "drifted", "--verdict", "never-judged")] == [
        "quant",
        "fresh",
    ]
    assert [r[0] for r in listed("--verdict", "verified")] == []
    assert run("list", "--verdict", "bogus").exit_code == 2


def test_show_prints_every_field_verdict_and_snapshots(judged: Path) -> None:
    result = run("show", "quant")
    assert result.exit_code == 0, show(result)
    lines = result.stdout.splitlines()
    assert "id:        quant" in lines
    assert "file:      claims/a.yaml:4" in lines
    assert f"quote:     {QUOTE_MAR}" in lines
    assert "verdict:   drifted (since 2026-11-01)" in lines
    assert "reason:    the quote changed" in lines
    snapshot = next(line for line in lines if line.startswith("snapshot:"))
    assert "snapshot of 2026-10-20 (" in snapshot
    assert "snapshots/github.com/o/r/README/2026-10-20T120000Z-" in snapshot
    assert any(line.startswith("baseline:  snapshot of 2026-10-20") for line in lines)


def test_show_cleans_untrusted_text_and_knows_unjudged_claims(judged: Path) -> None:
    cited = run("show", "cited").stdout
    assert "reason:    citation [31mneeded[0m" not in cited
    assert "\x1b" not in cited
    assert "citation" in cited
    fresh = run("show", "fresh").stdout
    assert "verdict:   never-judged" in fresh
    assert "snapshot:  none" in fresh


def test_show_unknown_id_exits_2(judged: Path) -> None:
    result = run("show", "nope")
    assert result.exit_code == 2
    assert "no claim with id 'nope'" in result.stderr


def test_list_verdict_choices_are_the_verdicts_and_never_judged() -> None:
    assert set(LAST_VERDICTS) == {*Verdict, "never-judged"}


# A quote said once under each heading: the context that tells the two apart lies in the
# units around it (the heading above, the next heading or paragraph), never in its own.
UNDER_HEADINGS = (
    "<html><body><h1>Install</h1><h2>Linux</h2><p>Run the installer.</p>"
    "<h2>macOS</h2><p>Run the installer.</p><p>Then restart.</p></body></html>"
)


def test_add_proposes_the_context_of_the_units_around_a_quote_said_twice(
    online: Path, replay: ReplayServer
) -> None:
    url = replay.set_page("/docs/install.html", UNDER_HEADINGS)
    args = ["add", url, "--quote", "Run the installer.", "--claim", "It installs", "--page", "p"]

    refused = run(*args)

    assert refused.exit_code == 1, show(refused)
    assert "occurs 2 times" in refused.stderr
    assert "no context" not in refused.stderr
    options = [line.split(". ", 1)[1] for line in refused.stderr.splitlines() if "--suffix" in line]
    # Read off the page by hand: the heading above each, and the word after it.
    assert options == ["--prefix Linux --suffix macOS", "--prefix macOS --suffix Then"]
    assert tree(online) == {}

    for number, (option, heading) in enumerate(zip(options, ("Linux", "macOS"), strict=True)):
        claim_id = f"run-{number}"
        added = run(*args, "--id", claim_id, *shlex.split(option))
        assert added.exit_code == 0, show(added)
        explained = run("explain", claim_id)
        assert explained.exit_code == 0, show(explained)
        # The occurrence the claim is verified on is the one under its heading.
        block = explained.stdout.split("as a reader sees the page:\n", 1)[1]
        assert block.splitlines()[:2] == [f"§ Install › {heading}", "Run the installer."]
    assert verdicts() == {"run-0": "verified", "run-1": "verified"}
