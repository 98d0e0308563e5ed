"""GitHub Flavored Markdown to HTML with cmark-gfm, its memory given back.

cmark-gfm is GitHub's own Markdown renderer, which is what a reader of a README sees,
and cmarkgfm is the maintained binding that ships it compiled. But its
`github_flavored_markdown_to_html` never frees what it allocates: neither the
document tree (`cmark_node_free` is not in its bindings) nor the HTML string
`cmark_render_html` returns. That is about a hundred kilobytes of C memory a README,
kept until the process ends; a cold run of 1,000 sources, each read once for the
snapshot and once for its baseline, ended at 480 MB, most of it these leaks.

This module makes the same calls through the same compiled library, and frees both:
the two functions the binding leaves out are found in its own shared object (loaded
once already, so `dlopen` gives back the same library, with the same allocator).
`tests/judge/test_gfm.py` holds the HTML to cmarkgfm's on real READMEs and the memory
to a bound.
"""

from __future__ import annotations

import ctypes
import re
import threading
from typing import Any

from cmarkgfm import _cmark
from cmarkgfm.cmark import Options

UNSAFE = Options.CMARK_OPT_UNSAFE
SOURCEPOS = Options.CMARK_OPT_SOURCEPOS
EXTENSIONS = (b"table", b"autolink", b"tagfilter", b"strikethrough", b"tasklist")
"""The extensions `github_flavored_markdown_to_html` attaches, in its order."""

SOURCEPOS_ATTRIBUTE = "data-sourcepos"
"""Where cmark-gfm writes a rendered block's place in the Markdown (with `SOURCEPOS`)."""

_SOURCEPOS = re.compile(r"(\d+):\d+-(\d+):(\d+)")

_lib: Any = _cmark.lib
_ffi: Any = _cmark.ffi


class _Mem(ctypes.Structure):
    """cmark's `cmark_mem`: the allocator the library's strings and nodes come from."""

    _fields_ = (
        ("calloc", ctypes.c_void_p),
        ("realloc", ctypes.c_void_p),
        ("free", ctypes.CFUNCTYPE(None, ctypes.c_void_p)),
    )


# Reached with ctypes, not a cffi declaration: cffi would parse the C text with
# pycparser at every start (some 50 ms of a command's start-up).
_released = ctypes.CDLL(_cmark.__file__)
_released.cmark_node_free.argtypes = (ctypes.c_void_p,)
_released.cmark_node_free.restype = None
_released.cmark_get_default_mem_allocator.restype = ctypes.POINTER(_Mem)
_free: Any = _released.cmark_get_default_mem_allocator().contents.free
_registered = threading.Lock()
_extensions: list[Any] = []


def gfm_to_html(markdown: str, options: int = UNSAFE) -> str:
    """The HTML GitHub renders for `markdown` (cmarkgfm's `github_flavored_markdown_to_html`)."""
    extensions = _syntax_extensions()
    encoded = markdown.encode("utf-8")
    parser = _lib.cmark_parser_new(options | Options.CMARK_OPT_GITHUB_PRE_LANG)
    try:
        for extension in extensions:
            _lib.cmark_parser_attach_syntax_extension(parser, extension)
        _lib.cmark_parser_feed(parser, encoded, len(encoded))
        root = _lib.cmark_parser_finish(parser)
        try:
            rendered = _lib.cmark_render_html(
                root,
                options | Options.CMARK_OPT_GITHUB_PRE_LANG,
                _lib.cmark_parser_get_syntax_extensions(parser),
            )
            try:
                html: str = _ffi.string(rendered).decode("utf-8")
            finally:
                _free(_own(rendered))
        finally:
            _released.cmark_node_free(_own(root))
    finally:
        _lib.cmark_parser_free(parser)
    return html


def sourcepos_lines(value: str | None) -> tuple[int, int] | None:
    """The first and last Markdown line (1-based) of a block, from its `data-sourcepos`
    (`FIRST:COL-LAST:COL`); None when the value is absent or not of that form.

    A block that runs to column 0 of a line ends with the line before: cmark counts the
    blank line after a list item as the item's.
    """
    match = _SOURCEPOS.fullmatch(value or "")
    if match is None:
        return None
    first, last = int(match[1]), int(match[2])
    return first, max(first, last - 1) if match[3] == "0" else last


def _own(pointer: Any) -> int:
    """A pointer of the binding's as an address, for the functions it leaves out."""
    return int(_ffi.cast("uintptr_t", pointer))


def _syntax_extensions() -> list[Any]:
    if not _extensions:
        with _registered:
            if not _extensions:
                _lib.cmark_gfm_core_extensions_ensure_registered()
                found = [_lib.cmark_find_syntax_extension(name) for name in EXTENSIONS]
                if any(extension == _ffi.NULL for extension in found):  # pragma: no cover
                    raise RuntimeError("cmark-gfm lacks one of GitHub's extensions")
                _extensions.extend(found)
    return _extensions
