"""Snapshot keys: URL-derived names joined into a relative path that cannot leave `snapshots/`.

Its own module because every forge (`forges/`) builds its keys with it, and `resolve`
imports the forges: a key helper in `resolve` would make each forge import the module
that imports it.
"""

from __future__ import annotations

import hashlib
import re

_SAFE = re.compile(r"[^A-Za-z0-9._-]")
_MAX_SEGMENT = 80


def snapshot_key(parts: list[str]) -> str:
    """Join URL-derived parts into a relative path whose every segment is a safe name.

    Unsafe characters become `_`; a segment that was altered, is too long, or is made
    of dots only (`.`, `..`) gets a short digest of its original so two different URLs
    never share a folder. No segment can be empty, absolute or a parent reference.
    """
    return "/".join(_safe_segment(p) for p in parts if p)


def short_digest(text: str) -> str:
    """Ten hex digits of the text's SHA-256: what tells altered segments apart."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]


def _safe_segment(segment: str) -> str:
    cleaned = _SAFE.sub("_", segment)
    if cleaned.startswith("."):
        cleaned = "_" + cleaned
    if cleaned != segment or len(cleaned) > _MAX_SEGMENT:
        cleaned = f"{cleaned[:_MAX_SEGMENT]}-{short_digest(segment)}"
    return cleaned
