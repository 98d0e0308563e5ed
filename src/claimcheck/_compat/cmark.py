"""cmark-gfm's C functions through cmarkgfm's private binding, to free what it leaks.

cmark-gfm is GitHub's own Markdown renderer, which is what a reader of a README sees,
and cmarkgfm is the maintained binding that ships it compiled. But its
`github_flavored_markdown_to_html` never frees what it allocates: neither the
document tree (`cmark_node_free` is not in its bindings) nor the HTML string
`cmark_render_html` returns. That is about a hundred kilobytes of C memory a README,
kept until the process ends.

The freeing renderer makes the same calls through the same compiled library
(`cmarkgfm._cmark`, private), and frees both: the two functions the binding leaves out
are found in its own shared object (loaded once already, so `dlopen` gives back the
same library, with the same allocator), reached with ctypes rather than a cffi
declaration, which would parse C text with pycparser at every start.

Written for cmarkgfm 2024.1 up to 2026. With another release installed the renderer is
the public `github_flavored_markdown_to_html`: the same HTML, only its memory is not
given back, so the fallback is safe and no error is needed; `tests/judge/test_gfm.py`
bounds the memory and so notices a release the freeing path no longer fits.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from typing import Any

from cmarkgfm import _cmark, cmark
from cmarkgfm.cmark import Options

from claimcheck._compat.versions import Release, supported

SUPPORTED_RANGE: tuple[Release, Release] = ((2024, 1), (2026,))
"""The cmarkgfm releases whose `_cmark` binding the freeing renderer was written for."""

EXTENSIONS = (b"table", b"autolink", b"tagfilter", b"strikethrough", b"tasklist")
"""The extensions `github_flavored_markdown_to_html` attaches, in its order."""

Renderer = Callable[[str, int], str]


class _Mem(ctypes.Structure):
    """cmark's `cmark_mem`: the allocator the library's strings and nodes come from."""

    _fields_ = (
        ("calloc", ctypes.c_void_p),
        ("realloc", ctypes.c_void_p),
        ("free", ctypes.CFUNCTYPE(None, ctypes.c_void_p)),
    )


_chosen: list[Renderer] = []
_prepared = threading.Lock()


def render_gfm(markdown: str, options: int) -> str:
    """The HTML GitHub renders for `markdown`, by the renderer `choose_renderer` picks
    (picked once a process)."""
    if not _chosen:
        with _prepared:
            if not _chosen:
                _chosen.append(choose_renderer())
    return _chosen[0](markdown, options)


def choose_renderer() -> Renderer:
    """The freeing renderer for the cmarkgfm it was written for, else the public one."""
    if supported("cmarkgfm", *SUPPORTED_RANGE):
        return _FreeingRenderer()
    return _public_renderer


def _public_renderer(markdown: str, options: int) -> str:
    html: str = cmark.github_flavored_markdown_to_html(markdown, options)
    return html


class _FreeingRenderer:
    """cmarkgfm's `github_flavored_markdown_to_html`, with its tree and string freed."""

    def __init__(self) -> None:
        self._lib: Any = _cmark.lib
        self._ffi: Any = _cmark.ffi
        released = ctypes.CDLL(_cmark.__file__)
        released.cmark_node_free.argtypes = (ctypes.c_void_p,)
        released.cmark_node_free.restype = None
        released.cmark_get_default_mem_allocator.restype = ctypes.POINTER(_Mem)
        self._node_free: Any = released.cmark_node_free
        self._free: Any = released.cmark_get_default_mem_allocator().contents.free
        lib = self._lib
        lib.cmark_gfm_core_extensions_ensure_registered()
        found = [lib.cmark_find_syntax_extension(name) for name in EXTENSIONS]
        if any(extension == self._ffi.NULL for extension in found):  # pragma: no cover
            raise RuntimeError("cmark-gfm lacks one of GitHub's extensions")
        self._extensions = found

    def __call__(self, markdown: str, options: int) -> str:
        lib = self._lib
        options |= Options.CMARK_OPT_GITHUB_PRE_LANG
        encoded = markdown.encode("utf-8")
        parser = lib.cmark_parser_new(options)
        try:
            for extension in self._extensions:
                lib.cmark_parser_attach_syntax_extension(parser, extension)
            lib.cmark_parser_feed(parser, encoded, len(encoded))
            root = lib.cmark_parser_finish(parser)
            try:
                rendered = lib.cmark_render_html(
                    root, options, lib.cmark_parser_get_syntax_extensions(parser)
                )
                try:
                    html: str = self._ffi.string(rendered).decode("utf-8")
                finally:
                    self._free(self._own(rendered))
            finally:
                self._node_free(self._own(root))
        finally:
            lib.cmark_parser_free(parser)
        return html

    def _own(self, pointer: Any) -> int:
        """A pointer of the binding's as an address, for the functions it leaves out."""
        return int(self._ffi.cast("uintptr_t", pointer))
