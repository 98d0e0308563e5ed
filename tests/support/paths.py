"""Where the tests find the repository and the test data they replay."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root: README.md, pyproject.toml, src/, tests/."""

SHARED = ROOT.parent / "shared"
"""The desk's shared material beside the repository (corpus, schemas)."""

CORPUS = SHARED / "corpus" / "readme-history"
SARIF_SCHEMA = SHARED / "sarif" / "sarif-schema-2.1.0.json"
OPENAPI_SPEC = SHARED / "github-openapi" / "issues-subset.json"
