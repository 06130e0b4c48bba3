"""A simulated consumer's offset commits, as the Java consumer (``CommitRequestManager``, 4.3) makes them.

- *Auto-commit*: every ``auto.commit.interval.ms`` (``ClientOptions.auto_commit_interval_ms``)
  the application's poll commits the positions of every owned partition, asynchronously, unless
  an auto-commit is still in flight (``maybeAutoCommitAsync``); a stalled or frozen application
  does not poll, so it does not commit. A failed auto-commit is only logged: no retry.
- *Before a revocation and on close* (``maybeAutoCommitSyncBeforeRebalance``): a commit of every
  owned partition, sent even while an auto-commit is in flight; the revocation (or the leave
  heartbeat) waits for it. STALE_MEMBER_EPOCH and a timed-out request are retried after
  ``retry.backoff.ms`` with the latest member epoch until the rebalance timeout; UNKNOWN_MEMBER_ID
  (``CommitFailedException``) or any other error ends it, and the revocation goes on.
- Every commit carries the member id and the member epoch the client knows *when it sends it*
  (``memberInfo``, updated by ``onMemberEpochUpdated``), and only partitions the client owns.
- *A zombie* (:meth:`Committer.zombie`): a commit request of up to ``HISTORY`` member epochs ago
  sent again as it was built, with its old epoch and partitions: what a process that was fenced, lost its session or was cut
  off sends when it comes back with a request it had built. Kafka answers STALE_MEMBER_EPOCH
  (the member has a newer epoch and no longer holds a partition: KIP-1251) or UNKNOWN_MEMBER_ID
  (the member is gone); the client logs it.

Consumed positions are simulated: a partition's position is ``now // 10`` (100 records a
second), so they only grow. Commits are OffsetCommit v10 (topic ids), the version a 4.3 client
uses against a 4.3 coordinator.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kgspec.model.errors import Errors

OFFSET_COMMIT, OFFSET_COMMIT_VERSION = 8, 10
RETRY_BACKOFF_MS = 100  # retry.backoff.ms
HISTORY = 3  # member epochs whose last commit a zombie may resend
AUTO, SYNC, ZOMBIE = "auto", "sync", "zombie"
_STALE = int(Errors.STALE_MEMBER_EPOCH)


def position(now: int) -> int:
    """The consumed position of any owned partition at ``now`` (monotonic in time)."""
    return now // 10


def commit_request(group_id: str, member_id: str, instance_id: str | None, epoch: int,
                   owned: Mapping[str, frozenset[int]], now: int) -> dict[str, Any]:
    """An OffsetCommit v10 of the positions of ``owned`` (topic id -> partitions)."""
    return {
        "groupId": group_id, "generationIdOrMemberEpoch": epoch, "memberId": member_id,
        "groupInstanceId": instance_id,
        "topics": [{"topicId": t, "partitions": [
            {"partitionIndex": p, "committedOffset": position(now), "committedLeaderEpoch": -1,
             "committedMetadata": ""} for p in sorted(parts)]} for t, parts in sorted(owned.items()) if parts],
    }


def first_error(response: Mapping[str, Any]) -> int:
    """The first non-zero partition error of an OffsetCommit response (0: all committed)."""
    for topic in response.get("topics") or []:
        for p in topic.get("partitions") or []:
            if p.get("errorCode", 0):
                return int(p["errorCode"])
    return 0


@dataclass(slots=True)
class _InFlight:
    kind: str
    deadline: int


class Committer:
    """The commit side of one client incarnation; :class:`~kgspec.sim.client.SimClient` drives it."""

    __slots__ = (
        "committed",
        "failed",
        "history",
        "in_flight",
        "interval_ms",
        "next_auto",
        "outbox",
        "sync_retry_at",
        "sync_until",
    )

    def __init__(self, interval_ms: int) -> None:
        self.interval_ms = interval_ms
        self.next_auto: int | None = None  # the auto-commit timer (armed at the first wake)
        self.outbox: list[tuple[str, dict[str, Any]]] = []  # (kind, request) to send at the next wake
        self.in_flight: dict[int, _InFlight] = {}  # correlation id -> commit
        self.sync_until: int | None = None  # a commit before revocation/close runs until then
        self.sync_retry_at: int | None = None
        self.history: dict[int, dict[str, Any]] = {}  # member epoch -> its last commit, oldest first
        self.committed = 0  # commits answered without error
        self.failed: dict[int, int] = {}  # error code -> commits answered with it

    @property
    def syncing(self) -> bool:
        return self.sync_until is not None

    def wake_time(self, polling: bool) -> int | None:
        """When :meth:`due` has something to do (the auto-commit timer only while the application polls)."""
        times = [f.deadline for f in self.in_flight.values()]
        # a sync commit already in flight (a revocation's, then the leave's) is answered or times out first
        retry = None if any(f.kind == SYNC for f in self.in_flight.values()) else self.sync_retry_at
        times += [t for t in (self.next_auto if polling else None, retry) if t is not None]
        if self.outbox:
            times.append(0)
        return min(times) if times else None

    def start_sync(self, now: int, timeout_ms: int) -> None:
        """``maybeAutoCommitSyncBeforeRebalance``: commit now, retry until ``now + timeout_ms``."""
        self.sync_until = now + timeout_ms
        self.sync_retry_at = now

    def cancel_sync(self) -> None:
        self.sync_until = self.sync_retry_at = None

    def zombie(self) -> bool:
        """Send again, as it was built, the last commit of the oldest member epoch remembered
        (False: nothing was ever committed)."""
        if not self.history:
            return False
        self.outbox.append((ZOMBIE, copy.deepcopy(next(iter(self.history.values())))))
        return True

    def due(self, now: int, polling: bool, can_commit: bool, build: Any) -> bool:
        """Queue what is due at ``now``; ``build()`` makes a commit of the owned partitions at the
        current epoch. True when a sync commit ended (failed for good or past its deadline)."""
        ended = False
        for corr, flight in list(self.in_flight.items()):
            if now >= flight.deadline:  # the response was lost
                del self.in_flight[corr]
                if flight.kind == SYNC and self.sync_until is not None:
                    self.sync_retry_at = now
        if self.sync_until is not None and now >= self.sync_until:
            self.cancel_sync()
            ended = True
        if self.sync_retry_at is not None and now >= self.sync_retry_at and not any(
                f.kind == SYNC for f in self.in_flight.values()):
            self.sync_retry_at = None
            if can_commit:
                self.outbox.append((SYNC, build()))
            else:
                self.cancel_sync()
                ended = True
        if self.next_auto is None:  # the timer starts with the consumer
            self.next_auto = now + self.interval_ms
        elif polling and now >= self.next_auto:
            self.next_auto = now + self.interval_ms
            if can_commit and not any(f.kind == AUTO for f in self.in_flight.values()):
                self.outbox.append((AUTO, build()))
        return ended

    def sent(self, corr: int, kind: str, request: dict[str, Any], deadline: int) -> None:
        self.in_flight[corr] = _InFlight(kind, deadline)
        if kind != ZOMBIE:  # the last commit of each of the last HISTORY epochs
            epoch = request["generationIdOrMemberEpoch"]
            self.history.pop(epoch, None)
            self.history[epoch] = request
            while len(self.history) > HISTORY:
                del self.history[next(iter(self.history))]

    def on_response(self, corr: int, response: Mapping[str, Any], now: int) -> bool | None:
        """A commit's response: None if ``corr`` is no commit in flight; else whether a sync
        commit ended with it (committed, or failed with an error not retried)."""
        flight = self.in_flight.pop(corr, None)
        if flight is None:
            return None
        error = first_error(response)
        if error:
            self.failed[error] = self.failed.get(error, 0) + 1
        else:
            self.committed += 1
        if flight.kind != SYNC or self.sync_until is None:
            return False
        if error == _STALE:  # retried with the latest epoch
            self.sync_retry_at = now + RETRY_BACKOFF_MS
            return False
        self.cancel_sync()
        return True
