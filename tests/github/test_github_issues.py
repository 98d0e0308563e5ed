"""The GitHub issues client against the fake GitHub: headers, paging, spacing, rate limits."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator

import httpx
import pytest

from claimcheck.github.issues import (
    GitHubIssues,
    GitHubRefusedError,
    GitHubUnavailableError,
)
from support.fake_github import BOT, TOKEN, Clock, FakeGitHub, require_spec
from support.openapi_document import load_document

REPO = "desk/site"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(require_spec(), repo=REPO) as fake:
        yield fake
    assert not fake.errors, "\n".join(fake.errors)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def client(github: FakeGitHub, clock: Clock) -> Iterator[GitHubIssues]:
    with GitHubIssues(github.base_url, REPO, TOKEN, sleep=clock.sleep, clock=clock.time) as issues:
        yield issues


def test_every_request_carries_githubs_headers(client: GitHubIssues, github: FakeGitHub) -> None:
    assert client.authenticated_login() == BOT
    client.create_issue("t", "b", ["claimcheck"])
    for request in github.requests:
        assert request.headers["authorization"] == f"Bearer {TOKEN}"
        assert request.headers["accept"] == "application/vnd.github+json"
        assert request.headers["x-github-api-version"] == "2022-11-28"
        assert request.headers["user-agent"]


def test_listing_follows_links_past_100_issues(client: GitHubIssues, github: FakeGitHub) -> None:
    for n in range(250):
        github.add_issue(f"issue {n}", "body")
    github.add_issue("not ours", "body", labels=("bug",))

    issues = client.list_issues("claimcheck")

    assert len(issues) == 250
    assert len({i.number for i in issues}) == 250
    pages = [r for r in github.requests if r.operation == "issues/list-for-repo"]
    assert len(pages) == 3
    assert pages[0].query == {
        "labels": "claimcheck",
        "state": "all",
        "per_page": "100",
        "sort": "created",
        "direction": "asc",
    }
    assert [r.query.get("page") for r in pages] == [None, "2", "3"]


def test_list_answers_lack_closed_by_the_single_issue_has_it(
    client: GitHubIssues, github: FakeGitHub
) -> None:
    number = github.add_issue("t", "b").number
    github.close(number, "not_planned", by="alice")
    (listed,) = client.list_issues("claimcheck")
    assert listed.closed_by is None
    assert listed.state_reason == "not_planned"
    assert client.get_issue(number).closed_by == "alice"


def test_writes_are_spaced_a_second_apart(
    client: GitHubIssues, clock: Clock, github: FakeGitHub
) -> None:
    issue = client.create_issue("t", "b", ["claimcheck"])
    client.comment(issue.number, "one")
    client.list_issues("claimcheck")  # reads are not spaced
    client.update_issue(issue.number, state="closed", state_reason="completed")
    assert clock.sleeps == [1.0, 1.0]
    assert len(github.writes()) == 3


def test_spacing_with_the_real_clock(github: FakeGitHub) -> None:
    with GitHubIssues(github.base_url, REPO, TOKEN) as client:
        issue = client.create_issue("t", "b", ["claimcheck"])
        client.comment(issue.number, "one")
        client.update_issue(issue.number, state="closed", state_reason="completed")
    times = [r.at for r in github.writes()]
    assert len(times) == 3
    assert all(later - earlier >= 1.0 for earlier, later in itertools.pairwise(times))


def test_429_with_retry_after_is_waited_out(
    client: GitHubIssues, github: FakeGitHub, clock: Clock
) -> None:
    number = github.add_issue("t", "b").number
    github.inject(429, headers={"Retry-After": "7"}, operation="issues/update")
    client.update_issue(number, title="new")
    assert 7.0 in clock.sleeps
    assert github.issues[number].title == "new"


def test_403_with_spent_quota_waits_for_the_reset(
    client: GitHubIssues, github: FakeGitHub, clock: Clock
) -> None:
    number = github.add_issue("t", "b").number
    reset = str(int(clock.now) + 30)
    github.inject(
        403,
        headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset},
        operation="issues/create-comment",
    )
    client.comment(number, "hello")
    assert clock.sleeps[-1] == 31.0
    assert github.issues[number].comments == ["hello"]


def test_secondary_limit_without_headers_backs_off_a_minute(
    client: GitHubIssues, github: FakeGitHub, clock: Clock
) -> None:
    github.inject(403, message="You have exceeded a secondary rate limit.", times=2)
    assert client.authenticated_login() == BOT
    assert clock.sleeps == []  # GET /user is not an operation of the subset: not injected
    github.add_issue("t", "b")
    assert len(client.list_issues("claimcheck")) == 1
    assert clock.sleeps == [60.0, 120.0]


def test_a_long_wait_gives_up_at_once(
    client: GitHubIssues, github: FakeGitHub, clock: Clock
) -> None:
    github.inject(429, headers={"Retry-After": "3600"})
    with pytest.raises(GitHubUnavailableError) as caught:
        client.list_issues("claimcheck")
    assert caught.value.final
    assert clock.sleeps == []


def test_a_failed_create_is_never_retried(
    client: GitHubIssues, github: FakeGitHub, clock: Clock
) -> None:
    github.inject(429, headers={"Retry-After": "5"}, operation="issues/create")
    with pytest.raises(GitHubUnavailableError) as caught:
        client.create_issue("t", "b", ["claimcheck"])
    assert not caught.value.final
    assert clock.sleeps == [5.0]  # waited, so that listing again is allowed
    assert len([r for r in github.requests if r.operation == "issues/create"]) == 1
    assert github.issues == {}


def test_a_server_error_on_a_comment_is_not_resent(
    client: GitHubIssues, github: FakeGitHub
) -> None:
    number = github.add_issue("t", "b").number
    github.inject(502, operation="issues/create-comment", apply=True)
    with pytest.raises(GitHubUnavailableError):
        client.comment(number, "once")
    assert github.issues[number].comments == ["once"]


def test_a_server_error_on_an_update_is_retried(client: GitHubIssues, github: FakeGitHub) -> None:
    number = github.add_issue("t", "b").number
    github.inject(502, operation="issues/update")
    client.update_issue(number, body="new")
    assert github.issues[number].body == "new"


def test_a_plain_403_is_a_refusal(client: GitHubIssues, github: FakeGitHub, clock: Clock) -> None:
    github.inject(403, message="Resource not accessible by integration", operation="issues/create")
    with pytest.raises(GitHubRefusedError) as caught:
        client.create_issue("t", "b", ["claimcheck"])
    assert caught.value.status == 403
    assert clock.sleeps == []


def test_a_bad_token_is_refused_and_never_shown(github: FakeGitHub, clock: Clock) -> None:
    secret = "ghp_wrongTokenSECRET"
    client = GitHubIssues(github.base_url, REPO, secret, sleep=clock.sleep)
    with client, pytest.raises(GitHubRefusedError) as caught:
        client.authenticated_login()
    assert caught.value.status == 401
    assert secret not in str(caught.value) + caught.value.hint
    assert secret not in repr(client.__dict__)


def test_a_missing_label_is_created_once(client: GitHubIssues, github: FakeGitHub) -> None:
    assert client.ensure_label("claimcheck", "d93f0b", "stale claims")
    assert not client.ensure_label("ClaimCheck", "d93f0b", "stale claims")
    assert github.labels["claimcheck"]["description"] == "stale claims"


def test_a_next_link_to_another_host_is_not_followed() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        link = '<https://elsewhere.example/repos/desk/site/issues?page=2>; rel="next"'
        return httpx.Response(200, json=[], headers={"Link": link})

    transport = httpx.MockTransport(answer)
    client = GitHubIssues("https://api.github.com", REPO, TOKEN, transport=transport)
    with client, pytest.raises(GitHubUnavailableError, match="another host"):
        client.list_issues("claimcheck")


def test_the_fake_refuses_what_the_description_does_not_allow(github: FakeGitHub) -> None:
    headers = {
        "Authorization": f"Bearer {TOKEN}",
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
    }
    url = f"{github.base_url}/repos/{REPO}/issues"
    with httpx.Client(headers=headers) as http:
        bad_reason = http.patch(url + "/1", json={"state": "closed", "state_reason": "fixed"})
        no_title = http.post(url, json={"body": "no title"})
        unknown = http.get(url, params={"bogus": "1"})
        typed = http.get(url, params={"per_page": "many"})
    assert [r.status_code for r in (bad_reason, no_title, unknown, typed)] == [422] * 4
    assert len(github.errors) == 4
    github.errors.clear()


def test_real_sleep_is_the_default() -> None:
    client = GitHubIssues("https://api.github.com", REPO, None)
    assert client._sleep is time.sleep
    client.close()


@pytest.mark.parametrize(
    ("example", "schema"),
    [
        ("issue", {"$ref": "#/components/schemas/issue"}),
        ("issue-items", {"type": "array", "items": {"$ref": "#/components/schemas/issue"}}),
        ("issue-comment", {"$ref": "#/components/schemas/issue-comment"}),
        ("label-items", {"type": "array", "items": {"$ref": "#/components/schemas/label"}}),
    ],
)
def test_the_documents_own_examples_pass_its_schemas(example: str, schema: object) -> None:
    document = load_document(require_spec())
    value = document.doc["components"]["examples"][example]["value"]
    assert document.problems(schema, value, example) == []
    broken = [{**value[0], "id": "x"}] if isinstance(value, list) else {**value, "id": "x"}
    assert document.problems(schema, broken, example)
