"""Claim files and projects for tests: one claim entry, a claim file, a fast config.

The llama.cpp quantization bullet, before and after 2024-02-29, is the running example:
the replay server serves that README's real history.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

LLAMA = "ggml-org/llama.cpp"
LLAMA_URL = f"https://github.com/{LLAMA}"
README_API = f"/repos/{LLAMA}/readme"
FEB_15 = dt.date(2024, 2, 15)
MAR_15 = dt.date(2024, 3, 15)
# The quantization bullet of the llama.cpp README, before and after 2024-02-29.
QUOTE_FEB = "2-bit, 3-bit, 4-bit, 5-bit, 6-bit and 8-bit integer quantization support"
QUOTE_MAR = "1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization"
PAGE_HTML = f"<html><body><h1>Features</h1><p>Supports {QUOTE_MAR}.</p></body></html>"


def claim(
    claim_id: str = "llamacpp-quantization",
    quote: str | None = QUOTE_MAR,
    source: str | None = LLAMA_URL,
    **extra: str,
) -> dict[str, str]:
    """One claim entry; `source=None` with `cited=...` is a citation-needed claim."""
    entry = {"id": claim_id, "claim": f"the claim {claim_id}"}
    if source is not None:
        entry["source"] = source
    if quote is not None:
        entry["quote"] = quote
    return {**entry, **extra}


def write_claims(
    folder: Path,
    claims: list[dict[str, str]],
    name: str = "page.yaml",
    page: str = "page",
    checked: str = "2026-10-20",
) -> Path:
    """Write a claim file (strings as JSON scalars, which YAML reads verbatim)."""
    lines = [f"page: {page}", "title: A page", f"checked: {checked}", "claims:"]
    for entry in claims:
        for position, (key, value) in enumerate(entry.items()):
            lead = "  - " if position == 0 else "    "
            lines.append(f"{lead}{key}: {json.dumps(value)}")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_fast_config(project: Path) -> None:
    """No request spacing (the replay server needs no politeness), no expiry of 2024 dates."""
    (project / "claimcheck.toml").write_text(
        "[fetch]\nper_host_interval = 0\n\n[verdict]\nmax_age_days = 0\n"
    )


# The reproduction of issue "fits where its users work": a duplicate id and a claim without
# a source stayed hidden until the other errors were fixed. claims/a.yaml and b.yaml.
REPRODUCTION_A = """\
page: a
checked: 2024-01-01
claims:
  - id: one
    claim: One is fine
    source: https://example.org/one
    quote: the first quote here

  - id: one
    claim: One again
    source: https://example.org/one
    quote: the first quote here

  - id: two
    claim: Two has no source
    quote: some words here

  - id: three
    claim: Three
    checked: 20240101
    source: https://example.org/three
    quote: third quote words
"""
REPRODUCTION_B = """\
page: b
checked: 2024-01-01
claims:
  - id: four
    source: notaurl
    quote: ""
    claim: Four
"""
