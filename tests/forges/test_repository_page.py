"""The page a reader opens for a repository field's source: what `archive` captures."""

from __future__ import annotations

import pytest

from claimcheck.forges.github import repository_field, repository_page


@pytest.mark.parametrize(
    ("source", "page"),
    [
        ("https://api.github.com/repos/acme/engine", "https://github.com/acme/engine"),
        (
            "https://api.github.com/repos/acme/engine/releases/latest",
            "https://github.com/acme/engine/releases/latest",
        ),
        ("https://api.github.com/repos/acme/engine/readme", None),
        ("https://api.github.com/repos/acme", None),
        ("https://github.com/acme/engine", None),
        ("https://docs.example.org/tool.json", None),
    ],
)
def test_the_page_of_a_repository_fields_source(source: str, page: str | None) -> None:
    assert repository_page(source) == page


@pytest.mark.parametrize("field", ["license", "latest-release", "default-branch"])
def test_every_repository_field_leads_back_to_a_page_of_its_repository(field: str) -> None:
    found = repository_field("https://github.com/acme/engine", field)
    assert isinstance(found, tuple)
    assert (repository_page(found[0]) or "").startswith("https://github.com/acme/engine")
