"""`owner:` on a claim file and on a claim: who looks after the claims, by which
notifications are routed; a claim's own owner overrides its file's."""

from __future__ import annotations

import pytest

from claimcheck.claims.parse import parse_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.errors import ClaimFileError

FILE = """\
page: p
checked: 2026-10-20
owner: infra
claims:
  - id: theirs
    claim: It batches.
    source: https://example.org/a
    quote: It batches requests.
  - id: own
    owner: ana@example.org
    claim: It batches.
    source: https://example.org/a
    quote: It batches requests.
  - id: cited
    owner: '@docs-team'
    claim: It batches.
    cited: a talk
  - id: several
    claim: It batches.
    sources:
      - source: https://example.org/a
        quote: It batches requests.
      - source: https://example.org/b
        quote: It batches requests.
"""


def test_a_claims_owner_overrides_its_files() -> None:
    claims = parse_claims([("claims/p.yaml", FILE)], read=read_document)
    assert {c.id: c.owner for c in claims} == {
        "theirs": "infra",
        "own": "ana@example.org",
        "cited": "@docs-team",
        "several": "infra",
    }


def test_without_an_owner_a_claim_has_none() -> None:
    text = FILE.replace("owner: infra\n", "", 1)
    claims = parse_claims([("claims/p.yaml", text)], read=read_document)
    assert {c.id: c.owner for c in claims}["theirs"] is None


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        pytest.param(
            "owner: infra\n",
            "owner: infra team\n",
            "claims/p.yaml:3: owner: must be one word (a name, @handle, team or e-mail "
            "address) of at most 100 characters, no spaces",
            id="file-owner-with-a-space",
        ),
        pytest.param(
            "    owner: ana@example.org\n",
            f"    owner: {'a' * 101}\n",
            "claims/p.yaml:10: claim 'own': owner: must be one word",
            id="claim-owner-too-long",
        ),
        pytest.param(
            "    owner: ana@example.org\n",
            "    owner: [ana, bo]\n",
            "claims/p.yaml:10: claim 'own': owner: must be text, not a list",
            id="claim-owner-not-text",
        ),
        pytest.param(
            "    owner: ana@example.org\n",
            "    ownr: ana@example.org\n",
            "claims/p.yaml:10: claim 'own': ownr: unknown key; did you mean 'owner'?",
            id="misspelt-claim-key",
        ),
        pytest.param(
            "owner: infra\n",
            "owners: infra\n",
            "claims/p.yaml:3: owners: unknown key; did you mean 'owner'?",
            id="misspelt-file-key",
        ),
    ],
)
def test_a_bad_owner_is_named_by_file_line_and_field(old: str, new: str, problem: str) -> None:
    assert old in FILE
    with pytest.raises(ClaimFileError) as info:
        parse_claims([("claims/p.yaml", FILE.replace(old, new, 1))], read=read_document)
    assert any(p.startswith(problem) for p in info.value.problems), info.value.problems
