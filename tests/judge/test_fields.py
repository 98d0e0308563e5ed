"""Claims on fields, judged on plain values: how a field is found, how values compare,
and the verdict with the value then and now. Expected values are written by hand."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from claimcheck.judge.answer import Answer, Expect, NewVersion, Suspect, Suspicion
from claimcheck.judge.fields import (
    ABSENT,
    as_text,
    field_holds,
    field_value,
    judge_field,
    pattern_problem,
    pointer_problem,
    read_document,
)
from claimcheck.judge.plausible import judge_answer
from claimcheck.models import Claim, FieldValue, MediaType, Verdict

CARD = """\
---
license: [mit, apache-2.0]
base_model: acme-ai/tiny-base-7b
model-index:
- name: tiny-chat
  results: []
datasets:
  a.b: dotted
released: 2024-03-05
---
# Tiny Chat
"""

DOCUMENT = {"license": "MIT", "n": 2, "f": 2.5, "ok": True, "none": None, "a/b": {"~x": 1}}


def claim(path: str, value: str | None = None, matches: str | None = None) -> Claim:
    return Claim(
        id="c",
        page="p",
        claim="a claim",
        source="https://example.org/tool.json",
        anchor=None,
        checked=dt.date(2026, 10, 20),
        file="claims/p.yaml",
        line=3,
        field=FieldValue(path=path, value=value, matches=matches),
    )


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/license", "MIT"),
        ("license", "MIT"),
        ("/a~1b/~0x", 1),
        ("/n", 2),
        ("/missing", ABSENT),
        ("/license/0", ABSENT),
        ("none", None),
    ],
    ids=["pointer", "name", "escapes", "number", "absent", "into-a-string", "null"],
)
def test_a_field_of_a_json_document(path: str, expected: object) -> None:
    document = read_document(json.dumps(DOCUMENT), MediaType.JSON)
    assert field_value(document, path) == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("license", ["mit", "apache-2.0"]),
        ("/base_model", "acme-ai/tiny-base-7b"),
        ("model-index.0.name", "tiny-chat"),
        ("/datasets/a.b", "dotted"),
        ("released", dt.date(2024, 3, 5)),
        ("model-index.1.name", ABSENT),
    ],
    ids=["list", "pointer", "dotted-into-a-list", "key-with-a-dot", "date", "past-the-list"],
)
def test_a_field_of_a_cards_front_matter(path: str, expected: object) -> None:
    assert field_value(read_document(CARD, MediaType.CARD), path) == expected


def test_a_page_without_front_matter_or_json_has_no_document() -> None:
    assert read_document("# Title\n\nText.", MediaType.MARKDOWN) is ABSENT
    assert read_document("<html><body>x</body></html>", MediaType.HTML) is ABSENT
    assert read_document('{"cut": ', MediaType.JSON) is ABSENT
    # JSON served as text is still a document.
    assert read_document('{"a": 1}', MediaType.TEXT) == {"a": 1}


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (True, "true"),
        (False, "false"),
        (None, "null"),
        (2, "2"),
        (2.0, "2"),
        (2.5, "2.5"),
        (dt.date(2024, 3, 5), "2024-03-05"),
        (["a", 1], '["a", 1]'),
        ({"k": "v"}, '{"k": "v"}'),
    ],
)
def test_values_as_text(value: object, text: str) -> None:
    assert as_text(value) == text


@pytest.mark.parametrize(
    ("expected", "value", "holds"),
    [
        (FieldValue(path="/n", value="2"), 2, True),
        (FieldValue(path="/n", value="2"), 2.0, True),
        (FieldValue(path="/n", value="2.0"), "2", True),
        (FieldValue(path="/n", value="2"), 3, False),
        (FieldValue(path="/ok", value="true"), True, True),
        (FieldValue(path="/ok", value="true"), "true", True),
        (FieldValue(path="/l", value="MIT"), "mit", False),
        (FieldValue(path="/l", value="mit"), ["mit", "apache-2.0"], True),
        (FieldValue(path="/l", value="bsd"), ["mit", "apache-2.0"], False),
        (FieldValue(path="/l", value="MIT"), {"spdx_id": "MIT"}, False),
        (FieldValue(path="/l", matches="(?i)mit"), "MIT", True),
        (FieldValue(path="/l", matches=r"v1\.2"), "v1.2.0", False),
        (FieldValue(path="/l", matches=r"v1\.2\..*"), "v1.2.0", True),
        (FieldValue(path="/l", matches="cuda.*"), ["cpu", "cuda 12"], True),
        (FieldValue(path="/l", value="x"), ABSENT, False),
    ],
)
def test_what_holds(expected: FieldValue, value: object, holds: bool) -> None:
    assert field_holds(expected, value) is holds


def test_pointer_and_pattern_problems() -> None:
    assert pointer_problem("/a~1b~0c") is None
    assert pointer_problem("/a~2") == (
        "'/a~2' is not a JSON Pointer: `~` at character 3 must be `~0` (a ~) or `~1` (a /), "
        "as RFC 6901 escapes them"
    )
    assert pattern_problem("a+") is None
    assert pattern_problem("[a") == (
        "is not a valid regular expression: unterminated character set at position 0"
    )


def test_the_verdicts_with_the_value_then_and_now() -> None:
    then = json.dumps({"license": "MIT"})
    now = json.dumps({"license": "Apache-2.0"})
    gone = json.dumps({"name": "tool"})
    base = (then, MediaType.JSON, "2026-10-20 (baseline of 2026-10-20)")

    held = judge_field(claim("/license", "MIT"), then, MediaType.JSON, "now", baseline=base)
    changed = judge_field(claim("/license", "MIT"), now, MediaType.JSON, "now", baseline=base)
    missing = judge_field(claim("/license", "MIT"), gone, MediaType.JSON, "now", baseline=base)
    never = judge_field(claim("/license", "BSD"), now, MediaType.JSON, "now", baseline=base)
    early = judge_field(claim("/license", "Apache-2.0"), now, MediaType.JSON, "now", baseline=base)

    assert (held.verdict, held.value_now, held.value_then) == (Verdict.VERIFIED, "MIT", "MIT")
    assert held.reason == "the field '/license' is 'MIT' now"
    assert changed.verdict is Verdict.CHANGED
    assert (changed.value_now, changed.value_then) == ("Apache-2.0", "MIT")
    assert changed.diff == "[-MIT-]{+Apache-2.0+}"
    assert changed.reason == (
        "the field '/license' changed: it is 'Apache-2.0' now, not 'MIT'; on 2026-10-20 "
        "(baseline of 2026-10-20) it held 'MIT'"
    )
    assert missing.verdict is Verdict.MISSING
    assert missing.reason == "the field '/license' is not in the source now"
    assert never.verdict is Verdict.MISSING
    assert never.reason == (
        "never matched at check date: the field '/license' held 'MIT' as of 2026-10-20 "
        "(baseline of 2026-10-20), so the claim never had this support"
    )
    assert early.verdict is Verdict.VERIFIED
    assert early.reason == (
        "the field '/license' is 'Apache-2.0' now; it held 'MIT' on 2026-10-20 (baseline of "
        "2026-10-20), so the claim was checked too early"
    )


def answer(body: bytes, content_type: str, url: str = "https://example.org/tool.json") -> Answer:
    headers = {"content-type": content_type, "content-length": str(len(body))}
    return Answer(200, headers, body, url, url)


@pytest.mark.parametrize(
    ("body", "content_type", "media", "kind"),
    [
        (b'{"license": "MIT"}', "application/json", MediaType.JSON, None),
        (b'{"license": "MIT"}', "application/problem+json", MediaType.JSON, None),
        (b'{"license": "MI', "application/json", MediaType.JSON, Suspicion.CUT_SHORT),
        (b'{"message": "Not Found"}', "application/json", MediaType.JSON, Suspicion.JSON_ERROR),
        (b"<html><body>Oops</body></html>", "text/html", MediaType.HTML, Suspicion.MEDIA_TYPE),
    ],
    ids=["json", "json-suffix", "cut-short", "error-object", "html-for-a-json-url"],
)
def test_the_gate_on_a_json_answer(
    body: bytes, content_type: str, media: MediaType, kind: Suspicion | None
) -> None:
    found = judge_answer(answer(body, content_type), Expect.PAGE, media)
    if kind is None:
        assert isinstance(found, NewVersion)
    else:
        assert isinstance(found, Suspect)
        assert found.kind is kind
