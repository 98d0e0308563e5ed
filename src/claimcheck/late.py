"""The third-party readers a run loads when it first meets what they read, not at start.

PyYAML reads a card's front matter for a claim on one of its fields, python-jsonpath a
JSON Pointer into a JSON document, pdfminer.six a PDF source; importing any of them costs
tens of milliseconds, and most runs (every offline run of kept claim files, a warm run
of READMEs) meet none (tests/cli/test_startup.py).
This is the one place besides `cli/lazy.py` that imports inside a function: each
function imports its library on its first call and hands out what the judge uses, the
same object every call.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from jsonpath import JSONPointer
    from pdfminer.layout import LAParams, LTPage, LTTextBox


class YamlReader(NamedTuple):
    """PyYAML's safe loading: `load(text)` (libyaml's loader when PyYAML is built with
    it), and the error it raises on text that is no YAML."""

    load: Callable[[str], object]
    error: type[Exception]


class JsonPointers(NamedTuple):
    """python-jsonpath's RFC 6901 pointers: `pointer(text)`, and the error of a bad one."""

    pointer: Callable[[str], JSONPointer]
    error: type[Exception]


class PdfReader(NamedTuple):
    """What pdfminer.six gives the judge: its layout analysis, a text box's type, and
    the errors of an encrypted PDF."""

    extract_pages: Callable[..., Iterator[LTPage]]
    laparams: Callable[[], LAParams]
    text_box: type[LTTextBox]
    password_incorrect: type[Exception]
    encryption_error: type[Exception]


@functools.cache
def yaml_reader() -> YamlReader:
    """PyYAML, imported on the first front matter read as data."""
    import yaml

    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    def load(text: str) -> object:
        value: object = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
        return value

    return YamlReader(load, yaml.YAMLError)


@functools.cache
def json_pointers() -> JsonPointers:
    """python-jsonpath, imported on the first JSON Pointer read."""
    from jsonpath import JSONPointer, JSONPointerError

    return JsonPointers(JSONPointer, JSONPointerError)


@functools.cache
def pdf_reader() -> PdfReader:
    """pdfminer.six, imported on the first PDF read, its warnings kept off stderr."""
    import logging

    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LAParams, LTTextBox
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect

    # pdfminer.six logs what it recovers from (a damaged xref, an unknown font) as
    # warnings; unhandled, Python would print them on stderr amid a run's progress.
    logging.getLogger("pdfminer").addHandler(logging.NullHandler())
    logging.getLogger("pdfminer").propagate = False
    return PdfReader(extract_pages, LAParams, LTTextBox, PDFPasswordIncorrect, PDFEncryptionError)
