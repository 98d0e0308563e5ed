"""`indented` writes the standard library's indented JSON, byte for byte (the oracle is
`json.dumps` itself), for the kinds of values claimcheck stores."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from claimcheck.json_text import indented, indented_bytes

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
