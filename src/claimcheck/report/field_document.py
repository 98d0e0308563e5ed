"""A claim on a field in the JSON report: its document (`FieldDocument`, a result's
`field`) and how a result writes it (`field_fields`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from claimcheck.models import ClaimResult


class FieldDocument(BaseModel):
    """A claim on a field: the field, what the claim expects, and what it held
    (`models.FieldValue`, with the result's `value_now` and `value_then`). Configured as
    every report document is (`document.Document`)."""

    model_config = ConfigDict(
        frozen=True, json_schema_serialization_defaults_required=True, extra="forbid"
    )

    path: str = Field(
        description="The field: a JSON Pointer (`/license`) or a front-matter key (`license`)."
    )
    value: str | None = Field(default=None, description="The value the claim expects.")
    matches: str | None = Field(
        default=None, description="The pattern the value must match whole, instead of `value`."
    )
    now: str | None = Field(
        default=None,
        description="The value the field holds in the source judged, as text (a list or "
        "mapping as compact JSON); null when the field is not there.",
    )
    then: str | None = Field(
        default=None,
        description="The value it held in the baseline (the source as of the check date); "
        "null when not known or not there.",
    )


FIELD = (
    "A claim on a field the source holds as data (instead of a quote): the field, the "
    "value expected, and the values it holds now and held on the check date; null for a "
    "claim on a quote, and absent in reports of an older claimcheck."
)


def field_fields(result: ClaimResult) -> dict[str, Any] | None:
    """A result's `field` as `FieldDocument` writes it (its `model_dump`, in its order);
    None for a claim on a quote."""
    field = result.claim.field
    if field is None:
        return None
    return {
        "path": field.path,
        "value": field.value,
        "matches": field.matches,
        "now": result.value_now,
        "then": result.value_then,
    }
