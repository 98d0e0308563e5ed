"""Where the tests find the repository and the test data they replay.

Everything the suite needs is carried in `tests/data/`, so a lone clone runs every test.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root: README.md, pyproject.toml, src/, tests/."""

DATA = ROOT / "tests" / "data"
"""The test data carried by the repository (see its README.md)."""

CORPUS = DATA / "corpus" / "readme-history"
SARIF_SCHEMA = DATA / "sarif" / "sarif-schema-2.1.0.json"
OPENAPI_SPEC = DATA / "github-openapi" / "issues-subset.json"
