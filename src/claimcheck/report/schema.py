"""The published JSON Schema of the report, generated from its model (`document.py`).

`report.schema.json`, shipped beside this module, is this module's output; a test holds
the two equal. Regenerate it after changing a document model:

    python -m claimcheck.report.schema > src/claimcheck/report/report.schema.json

The schema is of the report as written (pydantic's serialization mode): every field a
report of this claimcheck writes is required but those older reports lack. It is
spelled out whole, without `$ref`s, so a reader finds a field under the path it has in
a report (`properties.results.items.properties.line`); a nullable value reads as
`"type": [T, "null"]`.
"""

from __future__ import annotations

import json
import sys
from importlib import resources
from typing import Any

from claimcheck.report.document import (
    MAX_DEPTH,
    MAX_INTEGER,
    MAX_ITEMS,
    MAX_TEXT,
    SCHEMA_VERSION,
    ReportDocument,
)

SCHEMA_ID = "https://github.com/claimcheck/claimcheck/report.schema.json"
"""The schema's `$id`: its name, as the claim-file schema's is (not an address)."""

_DESCRIPTION = (
    f"The JSON report of `claimcheck verify --format json`, schema_version {SCHEMA_VERSION}. "
    "Fields are only ever added within a schema version. A reader refuses numbers, lists "
    "and strings beyond the bounds stated here (any other number beyond \u00b12^"
    f"{MAX_INTEGER.bit_length() - 1}, any string over {MAX_TEXT:,} characters, any other "
    f"list over {MAX_ITEMS:,} items, nesting over {MAX_DEPTH} levels)."
)


def generated_schema() -> dict[str, Any]:
    """The JSON Schema of the report document, generated from `ReportDocument`."""
    generated = ReportDocument.model_json_schema(by_alias=True, mode="serialization")
    definitions = generated.pop("$defs", {})
    body = _spelled_out(generated, definitions)
    body.pop("description", None)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "claimcheck report",
        "description": _DESCRIPTION,
        **body,
    }


def report_schema() -> dict[str, Any]:
    """The published schema: the one shipped with the package (`report.schema.json`),
    which `claimcheck schema --report` prints."""
    text = resources.files("claimcheck.report").joinpath("report.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def schema_text() -> str:
    """`generated_schema()` as the shipped file holds it."""
    return json.dumps(generated_schema(), indent=2, ensure_ascii=False) + "\n"


def _spelled_out(node: Any, definitions: dict[str, Any]) -> Any:
    """`node` with every `$ref` replaced by its definition, pydantic's `title`s and
    `default`s left out, and `anyOf: [T, null]` as `type: [T, "null"]`. A model's own
    description (its docstring) is left out: the schema describes fields, where they
    stand."""
    if isinstance(node, list):
        return [_spelled_out(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        model = definitions[node["$ref"].rsplit("/", 1)[-1]]
        here = {k: v for k, v in node.items() if k != "$ref"}
        return _spelled_out(
            {k: v for k, v in model.items() if k != "description"} | here, definitions
        )
    spelled: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties":
            spelled[key] = {name: _spelled_out(field, definitions) for name, field in value.items()}
        elif key not in ("title", "default"):
            spelled[key] = _spelled_out(value, definitions)
    return _nullable(spelled)


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """`{"anyOf": [{"type": T, ...}, {"type": "null"}], ...}` as `{"type": [T, "null"],
    ...}`: the same values, in the form a person reads."""
    options = node.get("anyOf")
    if not isinstance(options, list) or len(options) != 2 or options[1] != {"type": "null"}:
        return node
    value = options[0]
    if not isinstance(value.get("type"), str):
        return node
    rest = {k: v for k, v in node.items() if k != "anyOf"}
    return {**value, **rest, "type": [value["type"], "null"]}


if __name__ == "__main__":  # pragma: no cover - `python -m claimcheck.report.schema`
    sys.stdout.write(schema_text())
