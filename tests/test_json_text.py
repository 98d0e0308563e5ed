"""`indented` writes the standard library's indented JSON, byte for byte (the oracle is
`json.dumps` itself), for the kinds of values claimcheck stores."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimcheck.json_text import indented, indented_bytes, indented_chunks

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(min_value=0, max_value=1e6, allow_nan=False).map(lambda f: round(f, 3))
    | st.text()
)
_DOCUMENTS = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(_DOCUMENTS)
def test_indented_is_the_standard_librarys_text(document: object) -> None:
    assert indented(document) == json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def test_what_the_fast_encoder_refuses_is_written_the_slow_way() -> None:
    for document in ({"text": "half \ud83d of a pair"}, {"n": 2**70}):
        assert indented(document) == json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def test_the_bytes_are_the_text_in_utf8_and_a_lone_surrogate_reads_back() -> None:
    document = {"quote": "fast \U0001f680 inference", "n": [1, 2.5, None, True]}
    assert indented_bytes(document) == indented(document).encode("utf-8")
    lone = {"quote": "half an emoji \ud83d here", "nested": ["\udca9"]}
    written = indented_bytes(lone)
    written.decode("utf-8")  # valid UTF-8, whatever the document held
    assert json.loads(written) == lone


def _stdlib_bytes(document: object) -> bytes:
    """The standard library's indented text as UTF-8, a lone surrogate as its escape."""
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return text.encode("utf-8", "backslashreplace")


_HEADS = st.dictionaries(st.text().filter(lambda k: k != "items"), _DOCUMENTS, max_size=4)


@settings(max_examples=300, deadline=None)
@given(head=_HEADS, items=st.lists(_DOCUMENTS, max_size=5))
def test_the_chunks_are_the_standard_librarys_text_of_the_whole_document(
    head: dict[str, object], items: list[object]
) -> None:
    chunks = list(indented_chunks(head, "items", items))
    assert b"".join(chunks) == _stdlib_bytes({**head, "items": items})
    assert len(chunks) == max(len(items) + 1, 1)  # one an item, then the close


def test_an_item_the_fast_encoder_refuses_is_chunked_the_slow_way() -> None:
    items = [{"quote": "half \ud83d of a pair"}, {"n": 2**70}, {"ok": "🚀\n\u2028"}]
    head = {"schema_version": 1, "text": "with \udca9 too"}
    written = b"".join(indented_chunks(head, "items", items))
    assert written == _stdlib_bytes({**head, "items": items})
    assert json.loads(written) == {**head, "items": items}


def test_the_items_key_must_be_new_to_the_head() -> None:
    with pytest.raises(ValueError, match="already in the document"):
        list(indented_chunks({"items": []}, "items", [1]))
