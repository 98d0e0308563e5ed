"""Verdicts kept: a claim judged again against the same snapshots gets the same answer.

Most nights nothing changes upstream: every answer is a 304, and every claim is judged
again against the very text it was judged against the night before. The judgement
(`judge.verdict.judge_observed`) is a pure function of the claim, the source's
snapshot now, its baseline and the thresholds, so its answer is kept in
`snapshots/.cache/verdicts.json`, found by a digest of exactly those inputs, and a run
that meets the same inputs again takes the answer instead of searching the page (and
does not even read the page's units).

Kept answers are derived data, never a source of truth, under the cache's one scheme
(`cache/keys.py`):

- the key (`keys.entry_digest`) is a SHA-256 over the judging code itself (every
  module of `claimcheck.judge` and `models.py`, and the page reader's version), the
  whole claim as parsed (any edit of any field misses), both snapshots' full records
  (body digest, date, URL, media) and the thresholds; the claim's age is weighed after,
  every run (`expire`); not how the source was read (online or from the store), which
  changes only a reason's words: a verified quote's are switched, any other answer
  read the other way is judged again (`_as_read`), so `verify --offline` right after
  `verify` takes its answers;
- a source whose body is new in this run is always judged: a kept answer can't stand
  in for a text it was not computed from, even if an entry for its digest was planted;
- the file is kept as every kind of kept answer is (`cache/kept.py`): ignored when
  damaged or of another version, written only when this run added or dropped answers
  (a night in which nothing changed writes nothing), old answers dropped in time.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claimcheck import judge, models
from claimcheck.cache.kept import Kept
from claimcheck.cache.keys import code_version, entry_digest
from claimcheck.cache.pages import reader_version
from claimcheck.judge.verdict import Observed, Thresholds, judge_observed, verified_reason_start
from claimcheck.models import Claim, ClaimResult, Snapshot, Verdict

if TYPE_CHECKING:
    from _hashlib import HASH

VERDICTS_FILE = "verdicts.json"
_KEPT_FIELDS = (
    "verdict",
    "reason",
    "score",
    "found",
    "diff",
    "occurrences",
    "block_before",
    "block_after",
    "block_diff",
)


@functools.cache
def judge_version() -> str:
    """A digest of everything that decides a judgement besides its inputs."""
    return f"{reader_version()}-{code_version((judge, models))}"


class Verdicts:
    """Judge observed claims, taking the answer kept for the same inputs when there is one."""

    def __init__(self, snapshots: Path | None) -> None:
        self._version = judge_version()
        self._kept = Kept(snapshots, VERDICTS_FILE, self._version, field="verdicts")
        # The digest of all but the claim, by the snapshots' identity (each held, so that
        # its id is not another's for the run) and the rest of the state and thresholds.
        self._inputs: dict[tuple[object, ...], tuple[Snapshot, Snapshot | None, HASH]] = {}
        self._last_key: tuple[Claim, HASH, str] | None = None
        self.taken = 0  # answers taken from the kept ones this run
        self.judged = 0  # claims judged this run

    def judge(
        self,
        claim: Claim,
        state: Observed,
        limits: Thresholds,
        *,
        baseline: Observed | None,
    ) -> ClaimResult:
        """`judge_observed(claim, state, limits, baseline=baseline)`, kept."""
        found = self.kept(claim, state, limits, baseline=baseline)
        if found is not None:
            return found
        return self.judge_anew(claim, state, limits, baseline=baseline)

    def kept(
        self,
        claim: Claim,
        state: Observed,
        limits: Thresholds,
        *,
        baseline: Observed | None,
    ) -> ClaimResult | None:
        """The answer kept for these inputs, or None (then `judge_anew`): it needs
        neither page, so a run reads the pages of the claims it judges anew alone."""
        key = self._key(claim, state, limits, baseline)
        fresh = state.fresh or (baseline is not None and baseline.fresh)
        kept = None if fresh else self._kept.get(key)
        if isinstance(kept, dict):
            result = _rebuild(_as_read(kept, state), claim, state, baseline)
            if result is not None:
                self.taken += 1
                return result
        return None

    def judge_anew(
        self,
        claim: Claim,
        state: Observed,
        limits: Thresholds,
        *,
        baseline: Observed | None,
    ) -> ClaimResult:
        """`judge_observed(claim, state, limits, baseline=baseline)`, its answer kept."""
        key = self._key(claim, state, limits, baseline)
        self.judged += 1
        result = judge_observed(claim, state, limits, baseline=baseline)
        if _rebuildable(result, state, baseline):
            answer = {name: getattr(result, name) for name in _KEPT_FIELDS}
            answer["verdict"] = result.verdict.value  # the one field that is no JSON value
            answer["live"] = state.live
            self._kept.put(key, answer)
        return result

    def save(self) -> None:
        """Write this run's answers if they changed (see `cache.kept`)."""
        self._kept.save()

    def _key(
        self, claim: Claim, state: Observed, limits: Thresholds, baseline: Observed | None
    ) -> str:
        digest = self._digest_of_inputs(state, limits, baseline)
        last = self._last_key
        if last is not None and last[0] is claim and last[1] is digest:
            return last[2]  # asked by `kept`, then by `judge_anew`
        mine = digest.copy()
        mine.update(b"\0claim\0")
        mine.update(Claim.__pydantic_serializer__.to_json(claim))  # model_dump_json's bytes
        key = mine.hexdigest()
        self._last_key = (claim, digest, key)
        return key

    def _digest_of_inputs(
        self, state: Observed, limits: Thresholds, baseline: Observed | None
    ) -> HASH:
        """The digest of the code's version, both snapshots' whole records, the rest of
        the state and the thresholds: made once per source and baseline, not per claim
        (a desk has ten claims a source, and a kept run does little else per claim)."""
        now, then = state.snapshot, baseline.snapshot if baseline is not None else None
        rest = (state.moved_to, state.moved_why, limits.drift_min_score)
        identity = (id(now), id(then), *rest)
        found = self._inputs.get(identity)
        if found is not None and found[0] is now and found[1] is then:
            return found[2]
        digest = entry_digest(
            self._version,
            now.model_dump_json(),
            state.moved_to,
            state.moved_why,
            then.model_dump_json() if then is not None else None,
            repr(limits.drift_min_score),
        )
        self._inputs[identity] = (now, then, digest)
        return digest


def _rebuildable(result: ClaimResult, state: Observed, baseline: Observed | None) -> bool:
    """Whether a result is its kept fields plus what its inputs give back."""
    then = baseline.snapshot if baseline is not None else None
    return (
        result.snapshot is state.snapshot
        and result.moved_to == state.moved_to
        and (result.baseline is then or result.baseline == then)
        and result.blame is None
    )


def _as_read(kept: dict[str, Any], state: Observed) -> dict[str, Any]:
    """A kept answer as this run reads the source: online (live) or from the store.

    The key leaves out how the source was read, since the judgement does not depend on
    it; only a reason's words do. A verdict whose quote stands verbatim says it at the
    very start of its reason (`verified_reason_start`), which is switched; any other
    answer judged the other way is not this run's (`_rebuild` refuses it, so it is
    judged again). So an offline run right after an online one takes its answers.
    """
    live = kept.get("live")
    if live is state.live:
        return kept
    reason, verdict = kept.get("reason"), kept.get("verdict")
    if type(live) is not bool or not isinstance(reason, str) or verdict not in _SWITCHABLE:
        return {}
    was = verified_reason_start(live, state.snapshot)
    if not reason.startswith(was):
        return {}
    return {
        **kept,
        "reason": verified_reason_start(state.live, state.snapshot) + reason[len(was) :],
    }


_SWITCHABLE = frozenset({Verdict.VERIFIED.value, Verdict.MOVED.value})


def _rebuild(
    kept: dict[str, Any], claim: Claim, state: Observed, baseline: Observed | None
) -> ClaimResult | None:
    """The result a kept answer stands for; None when the entry is not one."""
    try:  # the model checks each kept field (the verdict's name made a `Verdict`)
        fields = {name: kept[name] for name in _KEPT_FIELDS}
        fields["claim"] = claim
        fields["snapshot"] = state.snapshot
        fields["moved_to"] = state.moved_to
        fields["baseline"] = baseline.snapshot if baseline is not None else None
        return ClaimResult.model_validate(fields)
    except (KeyError, ValueError, TypeError):
        return None
