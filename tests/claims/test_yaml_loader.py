"""The loaders claim files are composed with: PyYAML's public safe loaders, resolving by
ruamel's YAML 1.2 rules, with or without libyaml.

Expected values are YAML 1.2's core schema as its specification words it (and ruamel
reads it); the pure-Python loader is held to the same values as libyaml's on the desk's
own claim files and on generated documents.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from claimcheck.claims.article import read_article
from claimcheck.claims.parse import parse_claims
from claimcheck.claims.yaml_loader import LOADER_BASE, loaders_on
from claimcheck.claims.yaml_read import LOADERS, ReadError, read_document, read_yaml
from claimcheck.claims.yaml_values import Document, UnmarkedError
from claimcheck.cli.lazy import read_yaml as cli_read_yaml
from claimcheck.errors import ClaimFileError
from claimcheck.models import MediaType
from support import paths

TODAY = dt.date(2026, 10, 21)
PURE = loaders_on(yaml.SafeLoader)
DESK_FILES = sorted((paths.ROOT / "claims").glob("*.yaml"))


def test_pyyaml_with_libyaml_is_what_claim_files_are_read_with() -> None:
    assert LOADER_BASE is yaml.CSafeLoader
    assert issubclass(LOADERS.yaml12, yaml.CSafeLoader)
    assert issubclass(PURE.yaml12, yaml.SafeLoader)


def test_values_follow_yaml_12_not_pyyaml_s_yaml_11() -> None:
    # By PyYAML's own (YAML 1.1) resolution `no` would be False, `010` 8 and `1:20` 80.
    text = "a: no\nb: 010\nc: 1:20\nd: on\ne: 0o17\nf: true\ng: ~\nh: 1e3\ni: .inf\nj: '1'\n"
    for loaders in (LOADERS, PURE):
        assert read_yaml(text, 8, loaders).value == {
            "a": "no",
            "b": 10,
            "c": "1:20",
            "d": "on",
            "e": 15,
            "f": True,
            "g": None,
            "h": 1000.0,
            "i": math.inf,
            "j": "1",
        }


def test_a_yaml_11_directive_reads_by_yaml_11_rules() -> None:
    text = "%YAML 1.1\n---\na: no\nb: 010\nc: 1:20\nd: on\n"
    for loaders in (LOADERS, PURE):
        assert read_yaml(text, 8, loaders).value == {"a": False, "b": 8, "c": 80, "d": True}


@pytest.mark.parametrize("path", DESK_FILES, ids=lambda path: path.name)
def test_without_libyaml_the_desk_s_claim_files_read_the_same(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert read_yaml(text, 20, PURE).value == read_yaml(text, 20, LOADERS).value


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("a: &x 1\nb: *x\n", 1, "an anchor &x: anchors and aliases are not allowed"),
        ("a: 1\nb: !!str 2\n", 2, "a tag tag:yaml.org,2002:str: tags are not allowed"),
        ("a: 1\na: 2\n", 2, 'found duplicate key "a" with value "2" (original value: "1")'),
    ],
)
def test_without_libyaml_what_is_refused_is_refused_alike(
    text: str, line: int, message: str
) -> None:
    for loaders in (LOADERS, PURE):
        with pytest.raises(ReadError) as raised:
            read_yaml(text, 8, loaders)
        assert raised.value.line == line
        assert message in raised.value.message


SCALARS = st.text(alphabet=list("0123456789+-._eExXoObB:~nulLNtTrRfFaAsSyY<= "), max_size=8)


@settings(max_examples=300, deadline=None)
@given(st.lists(SCALARS, min_size=1, max_size=4), st.sampled_from(["", "%YAML 1.1\n---\n"]))
def test_without_libyaml_each_plain_scalar_reads_the_same(
    scalars: list[str], directive: str
) -> None:
    text = directive + "".join(f"k{i}: {value}\n" for i, value in enumerate(scalars))
    try:
        expected = read_yaml(text, 8, LOADERS).value
    except (yaml.YAMLError, ReadError, ValueError):
        return  # not a document both can read: libyaml words its errors its own way
    got = read_yaml(text, 8, PURE).value
    assert repr(got) == repr(expected)  # NaN is equal to itself only by its repr


@settings(max_examples=300, deadline=None)
@given(SCALARS, st.booleans(), st.sampled_from([LOADERS.yaml12, LOADERS.yaml11]))
def test_the_short_resolve_agrees_with_pyyaml_s_own(
    value: str, plain: bool, loader: type[yaml.CSafeLoader]
) -> None:
    ours = loader("")
    implicit = (plain, not plain)
    for kind in (ScalarNode, SequenceNode, MappingNode):
        assert ours.resolve(kind, value, implicit) == yaml.resolver.BaseResolver.resolve(
            ours, kind, value, implicit
        )


def test_claim_files_and_front_matter_word_an_error_without_a_line_alike() -> None:
    # `0x_` is a hexadecimal int by the resolvers, with no digit for int() to read.
    said = "invalid YAML: ValueError: invalid literal for int() with base 16: ''"
    with pytest.raises(ClaimFileError) as claim_file:
        parse_claims(
            [("p.yaml", "page: https://example.com\nclaims: 0x_\n")],
            today=TODAY,
            read=read_document,
        )
    assert claim_file.value.problems == [f"p.yaml:1: file: {said}"]
    with pytest.raises(ClaimFileError) as article:
        read_article(
            "a.md",
            "---\npage: 0x_\n---\nText.\n",
            MediaType.MARKDOWN,
            today=TODAY,
            read=read_document,
        )
    assert article.value.problems == [f"a.md:1: front matter: {said}"]


WITHOUT_LIBYAML = """
import json, sys
import yaml
del yaml.CSafeLoader  # as PyYAML is when built without libyaml
from claimcheck.claims.parse import parse_claims
from claimcheck.claims.yaml_read import LOADERS, read_document
files = [(name, open(name, encoding="utf-8").read()) for name in sys.argv[1:]]
claims = parse_claims(files, today=__import__("datetime").date(2026, 10, 21), read=read_document)
print(json.dumps({
    "base": LOADERS.yaml12.__mro__[1].__name__,
    "claims": [claim.model_dump(mode="json") for claim in claims],
}))
"""


def test_pyyaml_without_libyaml_reads_the_desk_s_claims_alike() -> None:
    names = [str(path.relative_to(paths.ROOT)) for path in DESK_FILES]
    ran = subprocess.run(
        [sys.executable, "-c", WITHOUT_LIBYAML, *names],
        cwd=paths.ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    found = json.loads(ran.stdout)
    assert found["base"] == "SafeLoader"
    files = [(name, (paths.ROOT / name).read_text(encoding="utf-8")) for name in names]
    expected = parse_claims(files, today=TODAY, read=read_document)
    assert len(expected) == 74
    assert found["claims"] == [claim.model_dump(mode="json") for claim in expected]


def read_outcome(read: Callable[[str], Document], text: str) -> object:
    """What reading `text` gives: the document's value, or the error's kind and words."""
    try:
        return read(text).value
    except (ReadError, UnmarkedError) as error:
        return type(error).__name__, str(error)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab:- \n[]{}'\"0x1!&*#%\t\x00\u2028", max_size=40))
def test_the_command_line_s_reader_reads_as_the_reader(text: str) -> None:
    """The run's reader (`cli.lazy.read_yaml`, which imports the YAML library when a
    first text is read) and the one every other caller gives the parser
    (`yaml_read.read_document`) read every text alike, errors included."""
    assert read_outcome(cli_read_yaml, text) == read_outcome(read_document, text)


def test_a_claim_file_parses_alike_with_either_reader() -> None:
    text = "page: p\nchecked: 2026-10-01\nclaims:\n  - id: a\n    claim: c\n    cited: no\n"
    (theirs,) = parse_claims([("p.yaml", text)], today=TODAY, read=cli_read_yaml)
    (ours,) = parse_claims([("p.yaml", text)], today=TODAY, read=read_document)
    assert theirs == ours
    assert (ours.id, ours.claim, ours.checked) == ("a", "c", dt.date(2026, 10, 1))
