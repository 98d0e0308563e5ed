"""A page's units compare as values of their own kind: equal to a unit with the same
fields, never to a plain tuple or another kind of value, hashable and immutable."""

from __future__ import annotations

import pytest

from claimcheck.page import Notice, Page, Unit


def test_a_unit_equals_a_unit_with_the_same_fields() -> None:
    one = Unit("item", "Runs offline.", ("Usage",), None, "It:")
    same = Unit("item", "Runs offline.", ("Usage",), None, "It:")
    assert one == same
    assert not one != same  # noqa: SIM202 - the operator itself is under test
    assert hash(one) == hash(same)
    assert len({one, same}) == 1


def test_a_unit_never_equals_a_plain_tuple_of_its_fields() -> None:
    unit = Unit("paragraph", "Fast.")
    fields = ("paragraph", "Fast.", (), None, None)
    assert unit != fields
    assert fields != unit
    assert not unit == fields  # noqa: SIM201 - the operator itself is under test
    assert not fields == unit  # noqa: SIM201


def test_units_that_differ_in_any_field_differ() -> None:
    base = Unit("row", "a | b", ("Table",), "x | y", None)
    for other in (
        base._replace(kind="item"),
        base._replace(text="a | c"),
        base._replace(headings=()),
        base._replace(header=None),
        base._replace(lead_in="Here:"),
    ):
        assert base != other
    assert base != Notice("a | b", 0, 1, ("Table",))
    assert base != "a | b"


def test_a_unit_is_immutable() -> None:
    unit = Unit("heading", "Install")
    with pytest.raises(AttributeError):
        unit.text = "Uninstall"  # type: ignore[misc]


def test_pages_of_equal_units_are_equal() -> None:
    one = Page.of([Unit("heading", "A"), Unit("paragraph", "b", ("A",))], [])
    two = Page.of([Unit("heading", "A"), Unit("paragraph", "b", ("A",))], [])
    assert one == two
    assert one != Page.of([Unit("heading", "A"), Unit("paragraph", "c", ("A",))], [])
