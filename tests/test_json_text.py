"""`indented` writes the standard library's indented JSON, byte for byte (the oracle is
`json.dumps` itself), for the kinds of values claimcheck stores."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from claimcheck.json_text import indented

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
