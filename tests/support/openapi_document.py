"""GitHub's OpenAPI description of the issue endpoints, as a validator of requests and answers.

`OpenAPIDocument` routes a request to its operation (method and path template) and
checks values against the operation's schemas with `jsonschema`. OpenAPI 3.0 is not
quite JSON Schema: `nullable: true` is turned into a null type first, and the formats
the answers use (`date-time`, `uri`) are checked without extra packages.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from jsonschema import Draft4Validator, FormatChecker

from support import paths

SPEC = paths.OPENAPI_SPEC
"""GitHub's description of the issue endpoints, shared by the team."""


def require_spec() -> Path:
    """The OpenAPI document; the calling test fails when tests/data lacks it."""
    import pytest

    if not SPEC.is_file():
        pytest.fail(f"GitHub OpenAPI subset not found at {SPEC}: tests/data is incomplete")
    return SPEC


FORMATS = FormatChecker(formats=())


@FORMATS.checks("date-time", raises=ValueError)
def _is_date_time(value: object) -> bool:
    if isinstance(value, str):
        dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return True


@FORMATS.checks("uri")
def _is_uri(value: object) -> bool:
    if not isinstance(value, str):
        return True
    parts = urlsplit(value)
    return bool(parts.scheme and parts.netloc)


def json_schema(schema: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema: `nullable: true` becomes a null type."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if "properties" in out:
        out["properties"] = {k: json_schema(v) for k, v in out["properties"].items()}
    for key in ("allOf", "anyOf", "oneOf"):
        if key in out:
            out[key] = [json_schema(s) for s in out[key]]
    for key in ("items", "additionalProperties", "not"):
        if isinstance(out.get(key), dict):
            out[key] = json_schema(out[key])
    if out.pop("nullable", False):
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        if isinstance(out.get("type"), str):
            out["type"] = [out["type"], "null"]
        elif "enum" not in out:
            return {"anyOf": [out, {"type": "null"}]}
    return out


@dataclass(frozen=True)
class Operation:
    """One operation of the document, with its parameters and responses resolved."""

    op_id: str
    method: str
    template: str
    pattern: re.Pattern[str]
    parameters: dict[str, dict[str, Any]]
    body: dict[str, Any] | None
    body_required: bool
    responses: dict[str, dict[str, Any]]


class OpenAPIDocument:
    """The description: routes requests to operations and validates against schemas."""

    def __init__(self, path: Path) -> None:
        self.doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        schemas = self.doc["components"]["schemas"]
        self.schemas = {name: json_schema(s) for name, s in schemas.items()}
        self.operations: list[Operation] = []
        self._validators: dict[str, Draft4Validator] = {}
        for template, item in self.doc["paths"].items():
            for method, op in item.items():
                if isinstance(op, dict) and "operationId" in op:
                    self.operations.append(self._operation(template, method.upper(), op))

    def resolve(self, node: Any) -> Any:
        """Follow a local `$ref` (`#/components/...`) to what it names."""
        while isinstance(node, dict) and "$ref" in node:
            target: Any = self.doc
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part]
            node = target
        return node

    def route(self, method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
        """The operation a request is for, with its path parameters."""
        for op in self.operations:
            match = op.pattern.match(path)
            if op.method == method and match:
                return op, match.groupdict()
        return None

    def problems(self, schema: Any, instance: Any, where: str) -> list[str]:
        """Every way `instance` breaks the (OpenAPI) `schema`, each naming where."""
        key = json.dumps(schema, sort_keys=True)
        if key not in self._validators:
            root = {"allOf": [json_schema(schema)], "components": {"schemas": self.schemas}}
            self._validators[key] = Draft4Validator(root, format_checker=FORMATS)
        return [
            f"{where}: {'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
            for e in self._validators[key].iter_errors(instance)
        ]

    def response_schema(self, op: Operation | None, status: int) -> Any:
        """The JSON schema of an answer, or None (no body, or not declared)."""
        if op is None:
            return None
        response = op.responses.get(str(status))
        content = (response or {}).get("content", {}).get("application/json")
        return content.get("schema") if content else None

    def _operation(self, template: str, method: str, op: dict[str, Any]) -> Operation:
        params = {}
        for raw in op.get("parameters", []):
            param = self.resolve(raw)
            params[param["name"]] = param
        regex = re.sub(r"\\{(\w+)\\}", r"(?P<\1>[^/]+)", re.escape(template))
        body = op.get("requestBody")
        schema = body["content"]["application/json"]["schema"] if body else None
        responses = {code: self.resolve(r) for code, r in op.get("responses", {}).items()}
        return Operation(
            op_id=op["operationId"],
            method=method,
            template=template,
            pattern=re.compile(f"^{regex}$"),
            parameters=params,
            body=schema,
            body_required=bool(body and body.get("required")),
            responses=responses,
        )


@functools.lru_cache(maxsize=2)
def load_document(path: Path) -> OpenAPIDocument:
    """The parsed description, shared by every fake of a test run (it is only read)."""
    return OpenAPIDocument(path)


def typed_value(value: str, schema: dict[str, Any]) -> Any:
    """A query or path value as the type its schema declares (it arrives as text)."""
    kind = schema.get("type")
    if kind == "integer" and re.fullmatch(r"-?\d+", value):
        return int(value)
    if kind == "boolean" and value in ("true", "false"):
        return value == "true"
    return value
