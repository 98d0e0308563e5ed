"""Who is told of what (`notify.plan`) and the message they get (`notify.message`), as
tables of plain values: no file, no network."""

from __future__ import annotations

import datetime as dt

import pytest

from claimcheck.config.notify import NotifyConfig
from claimcheck.models import (
    Acknowledged,
    Anchor,
    Claim,
    ClaimResult,
    NotifiedState,
    Review,
    Verdict,
)
from claimcheck.notify.message import MAX_CLAIMS, Links, render_message, run_links, title_of
from claimcheck.notify.plan import (
    Route,
    RouteNotices,
    Transition,
    plan_notices,
    routes_for,
    routes_of,
    transition,
)

DAY = dt.date(2026, 10, 20)


def result(
    claim_id: str,
    verdict: Verdict,
    *,
    owner: str | None = None,
    file: str = "claims/page.yaml",
    page: str = "page",
    quote: str = "It batches requests.",
    claim: str = "It batches.",
    reason: str = "why",
) -> ClaimResult:
    return ClaimResult(
        claim=Claim(
            id=claim_id,
            page=page,
            claim=claim,
            source="https://example.org/doc",
            anchor=Anchor(quote=quote),
            checked=DAY,
            owner=owner,
            file=file,
            line=4,
        ),
        verdict=verdict,
        reason=reason,
    )


@pytest.mark.parametrize(
    ("before", "now", "expected"),
    [
        pytest.param(None, "verified", None, id="first-seen-verified-is-quiet"),
        pytest.param(None, "stale", Transition.STALE, id="first-seen-stale-is-told"),
        pytest.param(None, "review", Transition.REVIEW, id="first-seen-review-is-told"),
        pytest.param("stale", "stale", None, id="still-stale-is-quiet"),
        pytest.param("review", "review", None, id="still-review-is-quiet"),
        pytest.param("review", "stale", Transition.STALE, id="review-to-stale"),
        pytest.param("stale", "review", Transition.REVIEW, id="stale-to-review"),
        pytest.param("stale", "verified", Transition.RECOVERED, id="stale-recovers"),
        pytest.param("review", "verified", Transition.RECOVERED, id="review-recovers"),
        pytest.param("stale", None, None, id="unknown-changes-nothing"),
        pytest.param("review", "acknowledged", None, id="acknowledging-sends-nothing"),
        pytest.param(None, "acknowledged", None, id="acknowledged-first-sends-nothing"),
        pytest.param("acknowledged", "acknowledged", None, id="still-acknowledged"),
        pytest.param("acknowledged", "review", Transition.REVIEW, id="a-lapse-is-told"),
        pytest.param("acknowledged", "stale", Transition.STALE, id="acked-then-stale"),
        pytest.param("acknowledged", "verified", None, id="acked-then-verified-is-quiet"),
    ],
)
def test_transitions(
    before: NotifiedState | None, now: NotifiedState | None, expected: Transition | None
) -> None:
    assert transition(before, now) is expected


INFRA = Route("infra", "N_INFRA", owners=frozenset({"infra"}))
DOCS = Route("docs", "N_DOCS", pages=("claims/docs/*",))
BOTH = Route("gpu-docs", "N_GPU", owners=frozenset({"infra"}), pages=("gpu-*",))
DEFAULT = Route("default", "CLAIMCHECK_NOTIFY")
ROUTES = (INFRA, DOCS, BOTH, DEFAULT)


@pytest.mark.parametrize(
    ("owner", "file", "page", "expected"),
    [
        pytest.param(None, "claims/a.yaml", "a", ["default"], id="no-match-goes-default"),
        pytest.param("infra", "claims/a.yaml", "a", ["infra"], id="by-owner"),
        pytest.param(None, "claims/docs/a.yaml", "a", ["docs"], id="by-file-glob"),
        pytest.param(None, "claims/docs/deep/a.md", "a", ["docs"], id="star-crosses-folders"),
        pytest.param("infra", "claims/docs/a.yaml", "a", ["infra", "docs"], id="every-match"),
        pytest.param("infra", "claims/x.yaml", "gpu-tips", ["infra", "gpu-docs"], id="by-slug"),
        pytest.param("ana", "claims/x.yaml", "gpu-tips", ["default"], id="both-needed"),
        pytest.param("Infra", "claims/x.yaml", "x", ["default"], id="owners-are-exact"),
    ],
)
def test_routing(owner: str | None, file: str, page: str, expected: list[str]) -> None:
    chosen = routes_for(result("c", Verdict.DRIFTED, owner=owner, file=file, page=page), ROUTES)
    assert [route.name for route in chosen] == expected


def test_the_config_gives_its_routes_in_order_then_the_default() -> None:
    config = NotifyConfig.model_validate(
        {
            "routes": {
                "infra": {"env": "N_INFRA", "owners": ["infra"]},
                "docs": {"env": "N_DOCS", "pages": ["claims/docs/*"]},
            }
        }
    )
    assert routes_of(config) == (INFRA, DOCS, DEFAULT)


def _told(plans: list[RouteNotices]) -> dict[str, list[tuple[str, str, str | None]]]:
    return {
        p.route.name: [(n.result.claim.id, n.transition.value, n.record) for n in p.notices]
        for p in plans
    }


def test_a_plan_tells_each_route_its_transitions_and_the_new_records() -> None:
    results = [
        result("quiet", Verdict.VERIFIED),
        result("drift", Verdict.DRIFTED, owner="infra"),
        result("gone", Verdict.SOURCE_GONE),
        result("back", Verdict.VERIFIED, owner="infra"),
        result("moved", Verdict.MOVED, file="claims/docs/a.yaml"),
        result("still", Verdict.MISSING),
        result("flaky", Verdict.UNREACHABLE, owner="infra"),
    ]
    notified: dict[str, dict[str, NotifiedState]] = {
        "infra": {"back": "stale", "flaky": "stale"},
        "default": {"still": "stale"},
    }
    assert _told(plan_notices(results, notified, ROUTES)) == {
        "infra": [("drift", "newly stale", "stale"), ("back", "recovered", None)],
        "docs": [("moved", "newly needing review", "review")],
        "default": [("gone", "newly stale", "stale")],
    }


def test_review_off_leaves_review_verdicts_silent_and_their_records_as_they_were() -> None:
    results = [result("ctx", Verdict.CONTEXT_CHANGED), result("old", Verdict.EXPIRED)]
    notified: dict[str, dict[str, NotifiedState]] = {"default": {"old": "stale"}}
    assert plan_notices(results, notified, ROUTES, review=False) == []


def test_a_route_is_told_by_its_own_record_not_another_routes() -> None:
    """The docs route failed last night: it is told again; infra, told then, is not."""
    results = [result("both", Verdict.DRIFTED, owner="infra", file="claims/docs/a.yaml")]
    notified: dict[str, dict[str, NotifiedState]] = {"infra": {"both": "stale"}}
    assert _told(plan_notices(results, notified, ROUTES)) == {
        "docs": [("both", "newly stale", "stale")]
    }


def test_the_title_counts_each_transition_in_order() -> None:
    plans = plan_notices(
        [
            result("a", Verdict.VERIFIED),
            result("b", Verdict.DRIFTED),
            result("c", Verdict.EXPIRED),
            result("d", Verdict.MISSING),
        ],
        {"default": {"a": "review"}},
        ROUTES,
    )
    assert title_of(plans[0].notices) == (
        "claimcheck: 2 newly stale, 1 newly needing review, 1 recovered"
    )


def test_a_message_groups_by_page_and_links_the_issue_and_the_report() -> None:
    plans = plan_notices(
        [
            result("b", Verdict.CONTRADICTED, file="claims/b.yaml", page="bee"),
            result("a", Verdict.VERIFIED, file="claims/a.yaml", page="ay"),
            result("b2", Verdict.DRIFTED, file="claims/b.yaml", page="bee"),
        ],
        {"default": {"a": "stale"}},
        ROUTES,
    )
    links = Links(
        report="https://github.com/desk/site/actions/runs/7",
        issues={"b": 12},
        issues_page="https://github.com/desk/site/issues",
    )
    body = render_message(plans[0], links).body
    assert body == (
        "### `claims/b.yaml` (bee)\n"
        "\n"
        "- ❌ **newly stale**: `b` · contradicted\n"
        "  - **Why:** why\n"
        "  - **Claim:** It batches.\n"
        "  - **Quote:** “It batches requests.”\n"
        "  - **Source:** [example.org/doc](https://example.org/doc#:~:text=It%20batches%20requests.)\n"
        "  - **Issue:** [#12](https://github.com/desk/site/issues/12)\n"
        "  - **Where:** `claims/b.yaml:4`\n"
        "\n"
        "- ❌ **newly stale**: `b2` · drifted\n"
        "  - **Why:** why\n"
        "  - **Claim:** It batches.\n"
        "  - **Quote:** “It batches requests.”\n"
        "  - **Source:** [example.org/doc](https://example.org/doc#:~:text=It%20batches%20requests.)\n"
        "  - **Where:** `claims/b.yaml:4`\n"
        "\n"
        "### `claims/a.yaml` (ay)\n"
        "\n"
        "- ✅ **recovered**: `a` · verified\n"
        "  - **Why:** why\n"
        "  - **Claim:** It batches.\n"
        "  - **Quote:** “It batches requests.”\n"
        "  - **Source:** [example.org/doc](https://example.org/doc#:~:text=It%20batches%20requests.)\n"
        "  - **Where:** `claims/a.yaml:4`\n"
        "\n"
        "[The run's report](https://github.com/desk/site/actions/runs/7)\n"
    )


def test_text_from_pages_and_claim_files_is_escaped_and_bounded() -> None:
    hostile = "[click](https://evil.example) <img src=x> @everyone #1 " + "x" * 2000
    plans = plan_notices(
        [result("c", Verdict.DRIFTED, claim=hostile, reason=hostile, page="p<b>")],
        {},
        ROUTES,
    )
    body = render_message(plans[0], Links()).body
    assert "<img" not in body
    assert "](https://evil" not in body
    assert "&lt;img src=x&gt;" in body
    assert "@\u200beveryone" in body
    assert "#\u200b1" in body
    assert "(p&lt;b&gt;)" in body
    assert max(len(line) for line in body.splitlines()) < 800


def test_a_message_lists_a_bounded_number_of_claims() -> None:
    many = [result(f"c{i}", Verdict.MISSING) for i in range(MAX_CLAIMS + 5)]
    (plan,) = plan_notices(many, {}, ROUTES)
    message = render_message(plan, Links())
    assert message.title == f"claimcheck: {MAX_CLAIMS + 5} newly stale"
    assert message.body.count("**newly stale**") == MAX_CLAIMS
    assert "… and 5 more claims: see the report." in message.body
    assert len(message.claims) == MAX_CLAIMS + 5


@pytest.mark.parametrize(
    ("env", "report", "issues_page"),
    [
        pytest.param({}, None, None, id="outside-actions"),
        pytest.param(
            {
                "GITHUB_SERVER_URL": "https://github.com",
                "GITHUB_REPOSITORY": "desk/site",
                "GITHUB_RUN_ID": "42",
            },
            "https://github.com/desk/site/actions/runs/42",
            "https://github.com/desk/site/issues",
            id="in-actions",
        ),
        pytest.param(
            {"GITHUB_SERVER_URL": "javascript:alert(1)", "GITHUB_REPOSITORY": "d/s"},
            None,
            None,
            id="no-script-server",
        ),
        pytest.param(
            {
                "GITHUB_SERVER_URL": "https://github.com",
                "GITHUB_REPOSITORY": "desk/site",
                "GITHUB_RUN_ID": "42)[x](y",
            },
            None,
            "https://github.com/desk/site/issues",
            id="no-odd-run-id",
        ),
    ],
)
def test_run_links_come_from_the_actions_variables(
    env: dict[str, str], report: str | None, issues_page: str | None
) -> None:
    links = run_links(env)
    assert (links.report, links.issues_page) == (report, issues_page)


def acknowledged(claim_id: str, *, holds: bool = True) -> ClaimResult:
    review = Review(date=DAY, note="looked", verdict=Verdict.CONTEXT_CHANGED, version="v1")
    return result(claim_id, Verdict.CONTEXT_CHANGED).model_copy(
        update={"acknowledged": Acknowledged(review=review, holds=holds)}
    )


def test_an_acknowledgement_changes_the_record_without_a_message_and_its_lapse_is_told() -> None:
    told_review: dict[str, dict[str, NotifiedState]] = {"default": {"c": "review"}}
    (acked,) = plan_notices([acknowledged("c")], told_review, ROUTES)
    assert (acked.notices, acked.silent) == ((), (("c", "acknowledged"),))

    told_acked: dict[str, dict[str, NotifiedState]] = {"default": {"c": "acknowledged"}}
    assert plan_notices([acknowledged("c")], told_acked, ROUTES) == []  # quiet nights
    assert _told(plan_notices([acknowledged("c", holds=False)], told_acked, ROUTES)) == {
        "default": [("c", "newly needing review", "review")]
    }
    (cleared,) = plan_notices([result("c", Verdict.VERIFIED)], told_acked, ROUTES)
    assert (cleared.notices, cleared.silent) == ((), (("c", None),))
