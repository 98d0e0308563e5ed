"""The claim-file schema: published with an `$id`, shipped as a file, and agreeing with the parser.

Editors validate claim files with the schema (through the modeline `init` and `add`
write), `verify` with the parser. The schema says what JSON Schema can; the parser checks
more. So on every file here: a file the parser accepts, the schema accepts (an editor
never flags a good file), and on the bad files JSON Schema can describe both refuse.
The YAML is read as an editor's language server reads it, by YAML 1.2 rules with dates
left as text: with the parser's own reader.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
from string import Template
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from claimcheck.claims.edit import new_claim_file
from claimcheck.claims.parse import parse_claims
from claimcheck.claims.schema import MODELINE, SCHEMA_ID, SCHEMA_URL, claim_file_schema
from claimcheck.claims.yaml_read import ReadError, read_document, read_yaml
from claimcheck.claims.yaml_values import MAX_DEPTH
from claimcheck.cli.app import app
from claimcheck.errors import ClaimFileError
from claimcheck.nightly.init import project_files
from support import docs, paths

TODAY = dt.date(2026, 10, 21)
SHIPPED = paths.ROOT / "src" / "claimcheck" / "claims" / "claims.schema.json"
HEAD = "page: p\nchecked: 2026-10-20\nclaims:\n"
SOURCED = "  - id: a\n    claim: a claim\n    source: https://example.org/a\n    quote: a quote\n"
CITED = "  - id: a\n    claim: a claim\n    cited: a talk\n"


def printed_schema() -> dict[str, Any]:
    result = CliRunner().invoke(app, ["schema"])
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.stdout)
    return document


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = printed_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )


def as_json(value: object) -> object:
    """The read YAML as the JSON an editor validates: mappings with text keys, lists."""
    if isinstance(value, dict):
        return {str(key): as_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [as_json(item) for item in value]
    return value


def schema_errors(validator: jsonschema.Draft202012Validator, text: str) -> list[str] | None:
    """What the schema says of a claim file; None when it is no YAML to validate."""
    try:
        document = read_yaml(text, MAX_DEPTH)
    except (ReadError, ValueError, TypeError):
        return None
    return [error.message for error in validator.iter_errors(as_json(document.value))]


def parser_problems(text: str) -> list[str]:
    try:
        parse_claims([("p.yaml", text)], today=TODAY, read=read_document)
    except ClaimFileError as error:
        return error.problems
    return []


# -- published ---------------------------------------------------------------------------


def test_the_printed_schema_has_an_id_and_is_a_2020_12_schema() -> None:
    schema = printed_schema()

    assert schema["$id"] == SCHEMA_ID
    assert SCHEMA_ID == "https://github.com/claimcheck/claimcheck/claims.schema.json"
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert list(schema)[:2] == ["$schema", "$id"]
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema == claim_file_schema()


def test_the_shipped_file_is_the_printed_schema_byte_for_byte() -> None:
    printed = CliRunner().invoke(app, ["schema"]).stdout
    assert SHIPPED.read_text(encoding="utf-8") == printed, (
        "regenerate it: claimcheck schema > src/claimcheck/claims/claims.schema.json"
    )


def test_the_modeline_points_at_the_shipped_file_on_the_main_branch() -> None:
    assert MODELINE.removeprefix("# yaml-language-server: $schema=") == SCHEMA_URL
    relative = SCHEMA_URL.removeprefix(
        "https://raw.githubusercontent.com/claimcheck/claimcheck/main/"
    )
    assert relative != SCHEMA_URL
    assert paths.ROOT / relative == SHIPPED


def test_a_claim_needs_a_source_sources_or_cited_in_the_schema() -> None:
    claim = claim_file_schema()["$defs"]["ClaimEntry"]
    assert [branch["required"] for branch in claim["anyOf"]] == [
        ["source"],
        ["sources"],
        ["cited"],
    ]
    assert claim["not"] == {"required": ["source", "sources"]}


def test_a_claim_with_cited_gives_nothing_of_a_source_in_the_schema() -> None:
    """`cited` stands instead of a source: the keys of one are refused beside it, as the
    parser refuses them; `~` (not given, to the parser) is allowed."""
    claim = claim_file_schema()["$defs"]["ClaimEntry"]
    assert claim["if"] == {"required": ["cited"], "properties": {"cited": {"type": "string"}}}
    refused = {key for key, rule in claim["then"]["properties"].items() if rule == {"type": "null"}}
    assert refused == {
        "source",
        "sources",
        "quote",
        "quote_end",
        "prefix",
        "suffix",
        "absent",
        "scope",
        "render",
        "field",
        "value",
        "matches",
    }


# -- parser and schema agree --------------------------------------------------------------


def good_files() -> dict[str, str]:
    """Claim files the parser accepts: the repository's, the README's, what init and add write."""
    files = {
        f"claims/{path.name}": path.read_text(encoding="utf-8")
        for path in sorted((paths.ROOT / "claims").glob("*.yaml"))
    }
    example = docs.section("Claim files").split("```yaml\n", 1)[1].split("```", 1)[0]
    files["README"] = example
    template = paths.ROOT / "src" / "claimcheck" / "nightly" / "templates" / "example.yaml"
    files["template"] = Template(template.read_text(encoding="utf-8")).substitute(
        today="2026-10-20"
    )
    files["init"] = project_files(dt.date(2026, 10, 20))["claims/example.yaml"]
    entry = {"id": "a", "claim": "c", "source": "https://example.org/a", "quote": "words"}
    files["add"] = new_claim_file("claims/a.yaml", "a", "2026-10-20", entry)
    files["cited"] = HEAD + "  - id: c\n    claim: c\n    cited: a talk\n"
    files["cited, a null source"] = (
        HEAD + "  - id: c\n    claim: c\n    cited: a talk\n    source: ~\n"
    )
    files["source, a null cited"] = HEAD + SOURCED + "    cited: ~\n"
    files["fragment"] = (
        HEAD + "  - id: f\n    claim: c\n    source: https://example.org/#:~:text=some%20words\n"
    )
    files["upper-case scheme"] = HEAD + SOURCED.replace("https://", "HTTPS://")
    files["null checked"] = HEAD + SOURCED + "    checked: ~\n"
    files["range"] = HEAD + SOURCED + "    quote_end: end\n    prefix: p\n    suffix: s\n"
    files["sources"] = HEAD + SEVERAL
    return files


SEVERAL = (
    "  - id: row\n    claim: c\n    sources:\n"
    "      - source: https://example.org/a\n        quote: a quote\n"
    "      - source: https://example.org/b\n        absent: [multi-tenant]\n"
    "        scope: main\n"
)

GOOD = good_files()


@pytest.mark.parametrize("name", list(GOOD))
def test_a_file_the_parser_accepts_the_schema_accepts(
    validator: jsonschema.Draft202012Validator, name: str
) -> None:
    text = GOOD[name]
    assert parser_problems(text) == []
    assert schema_errors(validator, text) == []


BAD = {
    "unknown key": HEAD + SOURCED + "    qoute: typo\n",
    "unknown file key": "colour: red\n" + HEAD + SOURCED,
    "neither source nor cited": HEAD + "  - id: a\n    claim: c\n    quote: words\n",
    "a null source, no cited": HEAD + "  - id: a\n    claim: c\n    source: ~\n",
    "a null cited, no source": HEAD + "  - id: a\n    claim: c\n    cited: ~\n",
    "an empty quote": HEAD + SOURCED.replace("quote: a quote", 'quote: ""'),
    "a blank quote": HEAD + SOURCED.replace("quote: a quote", 'quote: "   "'),
    "a blank claim": HEAD + SOURCED.replace("claim: a claim", 'claim: " "'),
    "a blank cited": HEAD + "  - id: a\n    claim: c\n    cited: ' '\n",
    "a number for a claim": HEAD + SOURCED.replace("claim: a claim", "claim: 3"),
    "an id with a space": HEAD + SOURCED.replace("id: a", "id: a b"),
    "an id too long": HEAD + SOURCED.replace("id: a", "id: " + "a" * 201),
    "a page with a slash": HEAD.replace("page: p", "page: a/b") + SOURCED,
    "no page": HEAD.replace("page: p\n", "") + SOURCED,
    "no checked": HEAD.replace("checked: 2026-10-20\n", "") + SOURCED,
    "no claims key": "page: p\nchecked: 2026-10-20\n",
    "no id": HEAD + SOURCED.replace("  - id: a\n    claim", "  - claim"),
    "claims not a list": HEAD.replace("claims:\n", "claims: {}\n"),
    "a claim not a mapping": HEAD + "  - just text\n",
    "a date as a number": HEAD.replace("2026-10-20", "20261020") + SOURCED,
    "a date in words": HEAD.replace("2026-10-20", "yesterday") + SOURCED,
    "a date with a time": HEAD.replace("2026-10-20", "2026-10-20T00:00:00") + SOURCED,
    "a claim's date as a number": HEAD + SOURCED + "    checked: 20240101\n",
    "not an http URL": HEAD + SOURCED.replace("https://example.org/a", "notaurl"),
    "an ftp URL": HEAD + SOURCED.replace("https://", "ftp://"),
    "a URL too long": HEAD + SOURCED.replace("/a\n", "/" + "a" * 8200 + "\n"),
    "a list for a title": "title: [a]\n" + HEAD + SOURCED,
    "not a mapping": "- a\n- b\n",
    "source and sources": HEAD
    + SEVERAL.replace("    sources:", "    source: https://e.org/\n    sources:"),
    "one of sources": HEAD + SEVERAL.split("      - source: https://example.org/b")[0],
    "a part without its source": HEAD
    + SEVERAL.replace("- source: https://example.org/b\n       ", "-"),
    "a part's unknown key": HEAD + SEVERAL + "        qoute: typo\n",
    "source and cited": HEAD + SOURCED + "    cited: a talk\n",
    "sources and cited": HEAD + SEVERAL + "    cited: a talk\n",
    **{
        f"cited and {key}": HEAD + CITED + f"    {key}: {value}\n"
        for key, value in (
            ("quote", "a quote"),
            ("quote_end", "an end"),
            ("prefix", "before"),
            ("suffix", "after"),
            ("absent", "[multi-tenant]"),
            ("scope", "main"),
            ("render", "browser"),
        )
    },
}


@pytest.mark.parametrize("name", list(BAD))
def test_a_file_the_schema_refuses_the_parser_refuses(
    validator: jsonschema.Draft202012Validator, name: str
) -> None:
    text = BAD[name]
    assert schema_errors(validator, text), "the schema accepts it"
    assert parser_problems(text), "the parser accepts it"


# What only the parser can tell: JSON Schema has no word for these.
PARSER_ONLY = {
    "a duplicate id": HEAD + SOURCED + SOURCED,
    "a source without a quote": HEAD + "  - id: a\n    claim: c\n    source: https://e.org/\n",
    "a future check date": HEAD.replace("2026-10-20", "2999-01-01") + SOURCED,
    "a month 13": HEAD.replace("2026-10-20", "2026-13-01") + SOURCED,
    "an invisible quote": HEAD + SOURCED.replace("quote: a quote", 'quote: "\\u200b"'),
    "a bad text fragment": HEAD
    + "  - id: f\n    claim: c\n    source: https://example.org/#:~:text=a&text=b\n",
    "a fragment and a quote": HEAD
    + SOURCED.replace("https://example.org/a", "https://example.org/#:~:text=x"),
    "a prefix without a quote": HEAD
    + "  - id: a\n    claim: c\n    source: https://e.org/\n    prefix: p\n",
    "a password in a source URL": HEAD
    + SOURCED.replace("https://example.org", "https://alice:s3cret@example.org"),
    "a bad port": HEAD + SOURCED.replace("example.org", "example.org:99999"),
    "a part without a quote": HEAD + SEVERAL.replace("        absent: [multi-tenant]\n", ""),
    "a quote beside sources": HEAD + SEVERAL + "    quote: q\n",
}


@pytest.mark.parametrize("name", list(PARSER_ONLY))
def test_the_parser_refuses_more_than_the_schema_can_say(
    validator: jsonschema.Draft202012Validator, name: str
) -> None:
    text = PARSER_ONLY[name]
    assert parser_problems(text), "the parser accepts it"
    if name == "a month 13":  # JSON Schema's date format knows the calendar too
        assert schema_errors(validator, text)
    else:
        assert schema_errors(validator, text) == []


def bench_files() -> list[tuple[str, str]]:
    """The benchmark's claim files: every shape real ones take (quoting styles, block
    scalars, ranges, text fragments, per-claim dates, citations, comments, non-ASCII)."""
    path = paths.ROOT / "bench" / "bench_read_claims.py"
    spec = importlib.util.spec_from_file_location("bench_read_claims", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    files: list[tuple[str, str]] = module.build_files(count=600, per_file=100, seed=11)
    return files


def test_the_schema_accepts_every_shape_of_claim_file_the_parser_reads(
    validator: jsonschema.Draft202012Validator,
) -> None:
    files = bench_files()
    assert len(parse_claims(files, today=TODAY, read=read_document)) == 600
    for name, text in files:
        assert schema_errors(validator, text) == [], name


# Malformed cases (tests/data/malformed/claims) an editor flags from the schema alone.
FLAGGED_IN_THE_EDITOR = {
    "cited-and-quote",
    "claim-not-mapping",
    "claims-not-list",
    "date-invalid",
    "date-words",
    "id-number",
    "id-too-long",
    "id-with-space",
    "no-source-no-cited",
    "page-bad-slug",
    "quote-empty",
    "quote-list",
    "quote-nbsp-only",
    "quote-number",
    "quote-whitespace",
    "source-and-cited",
    "source-ftp",
    "source-javascript",
    "source-no-scheme",
    "source-number",
    "source-too-long",
    "unknown-file-key",
    "unknown-key",
}


def test_the_schema_flags_the_malformed_cases_it_can_describe(
    validator: jsonschema.Draft202012Validator,
) -> None:
    flagged = set()
    for path in sorted((paths.DATA / "malformed" / "claims").glob("*.yaml")):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if schema_errors(validator, text):
            assert parser_problems(text), path
            flagged.add(path.stem)
    assert flagged >= FLAGGED_IN_THE_EDITOR
