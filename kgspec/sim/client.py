"""Simulated group clients, driven by the compiled ``consumer-client`` table.

:class:`MemberClient` is the lifecycle both KIP-848 consumers and KIP-1071 streams
clients share (``AbstractMembershipManager`` / ``StreamsMembershipManager`` move over the
same ``MemberState`` table, and their heartbeat managers keep the same timing): join with
epoch 0, heartbeat every interval, reconcile a new assignment (revoke, then assign, taking
``reconcile_ms`` of callbacks) and acknowledge it at once, keep one heartbeat in flight,
send a full heartbeat after a lost or failed one, rejoin with epoch 0 when fenced, leave
with -1 (or -2 for a static member). Every state change is a ``Table.fire``, so a client
can only move along the declared lifecycle. Subclasses say what a request carries and how
an assignment reads: :class:`SimClient` (consumer, API 68) here, and
``streams_client.StreamsSimClient`` (API 88).

Misbehaviour the simulator can inject:

- a *poll stall* (:meth:`MemberClient.stall_poll`): the application thread stops polling;
  the background thread keeps heartbeating, but callbacks (which run in ``poll()``) wait.
  Past ``max.poll.interval.ms`` (the rebalance timeout the client sends) the client leaves
  with a stale leave heartbeat and stays STALE until the application polls again, then
  rejoins with epoch 0 (``AbstractMembershipManager.transitionToSendingLeaveGroup(true)``,
  ``maybeRejoinStaleMember``). A member stalled while revoking keeps its partitions until
  the coordinator's rebalance timeout fences it; fenced while stalled, it rejoins only once
  the application polls again (``onPartitionsLost`` runs in ``poll()``).
- a *freeze* (:meth:`MemberClient.freeze`): the whole process stops (a long GC pause, a
  suspended VM): no heartbeats, responses wait. Past the session timeout the coordinator
  fences it; its next heartbeat is answered with a fencing error and it rejoins with
  epoch 0.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from kgspec.model.errors import Errors
from kgspec.sim.committer import Committer, commit_request
from kgspec.spec import client as cs
from kgspec.spec.tables import fire, table

MACHINE = "consumer-client"
IN_GROUP = frozenset({cs.JOINING, cs.RECONCILING, cs.ACKNOWLEDGING, cs.STABLE})
_FENCING_ERRORS = frozenset({int(Errors.FENCED_MEMBER_EPOCH), int(Errors.UNKNOWN_MEMBER_ID)})

Owned = dict[str, frozenset[int]]


@dataclass(slots=True)
class ClientOptions:
    rebalance_timeout_ms: int = 30000  # also max.poll.interval.ms: the consumer sends it as its rebalance timeout
    reconcile_ms: int = 0  # time the rebalance callbacks take
    request_timeout_ms: int = 5000
    server_assignor: str | None = None
    topic_regex: str | None = None  # subscribe by pattern (server-side RE2J resolution) instead of names
    # enable.auto.commit with auto.commit.interval.ms (the Java default: 5000); None: the client never
    # commits offsets (kgspec/sim/committer.py), as the simulator's clients did before commits
    auto_commit_interval_ms: int | None = None


def owned_json(owned: Mapping[str, frozenset[int]]) -> list[dict[str, Any]]:
    return [{"topicId": t, "partitions": sorted(p)} for t, p in sorted(owned.items()) if p]


def parse_assignment(response: Mapping[str, Any]) -> Owned | None:
    assignment = response.get("assignment")
    if assignment is None:
        return None
    out: dict[str, set[int]] = {}
    for entry in assignment.get("topicPartitions", []):
        out.setdefault(entry["topicId"], set()).update(entry["partitions"])
    return {t: frozenset(p) for t, p in out.items() if p}


class MemberClient:
    """One client incarnation; the simulator calls :meth:`wake` and :meth:`on_response`."""

    API_KEY: ClassVar[int] = 68
    API_VERSION: ClassVar[int] = 1
    PROTOCOL: ClassVar[str] = "consumer"

    def __init__(self, name: str, group_id: str, member_id: str, instance_id: str | None = None,
                 options: ClientOptions | None = None) -> None:
        self.name = name
        self.group_id = group_id
        self.member_id = member_id
        self.instance_id = instance_id
        self.opts = options or ClientOptions()
        self.state = table(MACHINE).initial
        self.epoch = 0
        self.owned: dict[str, Any] = {}
        self.target: dict[str, Any] | None = None  # the latest assignment the coordinator sent
        self.alive = True
        self.hb_interval = 0
        self.next_hb = 0
        self.in_flight: int | None = None
        self.in_flight_deadline = 0
        self.corr = 0
        self.full = True
        self.last_sent_owned: dict[str, Any] | None = None  # what the last heartbeat reported
        self.reconcile_to: dict[str, Any] | None = None
        self.reconcile_done_at: int | None = None
        self.leave_epoch = -1
        self.leave_done_at: int | None = None
        self.transitions = 0
        self.stalled_until: int | None = None  # the application thread does not poll until then
        self.poll_expires_at: int | None = None  # max.poll.interval.ms after the last poll
        self.frozen_until: int | None = None  # the whole process is stopped until then
        self.stale_leave = False

    # --- lifecycle ----------------------------------------------------------------------

    def _fire(self, trigger: str) -> None:
        self.state = fire(MACHINE, self.state, trigger)
        self.transitions += 1

    def subscribe(self, now: int) -> None:
        self._fire("subscribe")
        self.epoch = 0
        self.full = True
        self.next_hb = now

    def leave(self, now: int, temporary: bool = False) -> None:
        """unsubscribe()/close(): revoke callbacks, then the leave heartbeat (-1, or -2)."""
        if self.state not in IN_GROUP:
            if self.state == cs.FENCED:
                self._fire("leave_group")
            return
        self._fire("leave_group")
        self.reconcile_to = self.reconcile_done_at = None
        self.leave_epoch = -2 if (temporary and self.instance_id is not None) else -1
        self.leave_done_at = now + self.opts.reconcile_ms

    def crash(self) -> None:
        """The process dies: no more requests, and a dead process owns nothing."""
        self.alive = False
        self.owned = {}

    def stall_poll(self, now: int, duration_ms: int) -> None:
        """The application stops polling for ``duration_ms`` (heartbeats go on)."""
        if self.done:
            return
        self.stalled_until = max(self.stalled_until or 0, now + duration_ms)
        if self.poll_expires_at is None:
            self.poll_expires_at = now + self.opts.rebalance_timeout_ms

    def freeze(self, now: int, duration_ms: int) -> None:
        """The whole process stops for ``duration_ms`` (no heartbeats, responses wait)."""
        if not self.done:
            self.frozen_until = max(self.frozen_until or 0, now + duration_ms)

    def resume(self) -> None:
        """Faults stop: a stalled application polls again, a frozen process runs on."""
        if self.stalled_until is not None:
            self.stalled_until = 0
        if self.frozen_until is not None:
            self.frozen_until = 0

    def frozen(self, now: int) -> bool:
        return self.frozen_until is not None and now < self.frozen_until

    @property
    def done(self) -> bool:
        if self.state == cs.STALE:
            return not self.alive or self.stalled_until is None
        return not self.alive or self.state in (cs.UNSUBSCRIBED, cs.FATAL)

    # --- time -----------------------------------------------------------------------------

    def wake_time(self) -> int | None:
        if self.done:
            return None
        times: list[int] = []
        if self.stalled_until is None:
            times.extend(t for t in (self.reconcile_done_at, self.leave_done_at) if t is not None)
        else:  # callbacks wait for the application to poll again
            times.append(self.stalled_until)
            if self.poll_expires_at is not None and self.state in IN_GROUP:
                times.append(self.poll_expires_at)
        if self.in_flight is not None:
            times.append(self.in_flight_deadline)
        elif self.state in (cs.JOINING, cs.ACKNOWLEDGING, cs.LEAVING):
            times.append(self.next_hb if self.state == cs.JOINING else 0)
        elif self.state in (cs.RECONCILING, cs.STABLE):
            times.append(self.next_hb)
        at = min(times) if times else None
        if at is not None and self.frozen_until is not None:
            at = max(at, self.frozen_until)
        return at

    def _poll(self, now: int) -> None:
        """The application thread: stall bookkeeping, a stale member's rejoin."""
        if self.stalled_until is None:
            return
        if now < self.stalled_until:
            if (self.poll_expires_at is not None and now >= self.poll_expires_at
                    and self.state in IN_GROUP):
                # max.poll.interval.ms expired: leave at once, no callbacks (transitionToSendingLeaveGroup(true))
                self._fire("poll_timer_expired")
                self.reconcile_to = self.reconcile_done_at = None
                self.leave_epoch = -2 if self.instance_id is not None else -1
                self.stale_leave = True
            return
        self.stalled_until = self.poll_expires_at = None  # the application polls again
        if self.state in (cs.STALE, cs.FENCED):  # onPartitionsLost ran: rejoin
            self._fire("rejoin")  # maybeRejoinStaleMember
            self.epoch = 0
            self.full = True
            self.next_hb = now

    def wake(self, now: int) -> dict[str, Any] | None:
        """Do what is due by ``now``; return the request to send, if any."""
        if self.done or self.frozen(now):
            return None
        self._poll(now)
        stalled = self.stalled_until is not None
        if not stalled and self.reconcile_done_at is not None and self.reconcile_done_at <= now:
            assert self.reconcile_to is not None
            self.owned = self.reconcile_to
            self.reconcile_to = self.reconcile_done_at = None
            self._fire("reconciliation_completed")
        if not stalled and self.leave_done_at is not None and self.leave_done_at <= now:
            self.owned = {}
            self.leave_done_at = None
            self._fire("leave_callbacks_done")
        if self.in_flight is not None and now >= self.in_flight_deadline:
            self.in_flight = None  # timed out: the next heartbeat is a full one
            self.full = True
        if self.in_flight is not None:
            return None
        if self.state == cs.LEAVING:
            request = self._send(self.leave_epoch, full=False)
            if self.stale_leave:
                self.stale_leave = False
                self.owned = {}  # onPartitionsLost once STALE
                self.target = None
                self._fire("stale_leave_heartbeat_sent")
            else:
                self._fire("leave_heartbeat_sent")
            return request
        due = self.state == cs.ACKNOWLEDGING or (
            self.state in (cs.JOINING, cs.RECONCILING, cs.STABLE) and self.next_hb <= now)
        if not due:
            return None
        request = self._send(self.epoch, full=self.full or self.state == cs.JOINING)
        self.in_flight_deadline = now + self.opts.request_timeout_ms
        self.next_hb = now + max(self.hb_interval, 1)
        if self.state == cs.ACKNOWLEDGING:
            if self.target is None or self.target == self.owned:
                self._fire("ack_sent")
            else:
                self._fire("ack_sent_more_to_reconcile")
                self._start_reconcile(now)
        return request

    def _send(self, epoch: int, full: bool) -> dict[str, Any]:
        """The next heartbeat, now in flight; the one after it is incremental."""
        self.corr += 1
        self.in_flight = self.corr
        request = self._request(epoch, full)
        self.full = False
        return request

    def _reports_owned(self, full: bool) -> bool:
        """Whether this heartbeat carries the owned assignment: when ``full`` or when it changed
        since the last one reported (then it counts as reported)."""
        if not full and self.owned == self.last_sent_owned:
            return False
        self.last_sent_owned = dict(self.owned)
        return True

    def _request(self, epoch: int, full: bool) -> dict[str, Any]:
        """The heartbeat to send (``full``: every field, as after a join or a failure)."""
        raise NotImplementedError

    def _parse_assignment(self, response: Mapping[str, Any]) -> dict[str, Any] | None:
        """The assignment a successful response carries (None: unchanged)."""
        raise NotImplementedError

    def _accepted(self, response: Mapping[str, Any]) -> None:
        """Protocol-specific fields of a successful response."""

    def _other_response(self, corr: int, response: Mapping[str, Any], now: int) -> bool:
        """Whether ``corr`` answered a request other than a heartbeat (handled here)."""
        return False

    # --- responses ------------------------------------------------------------------------

    def on_response(self, corr: int, response: Mapping[str, Any], now: int) -> None:
        if self._other_response(corr, response, now):
            return
        if self.done or corr != self.in_flight:
            return  # a response to a request the client no longer waits for
        self.in_flight = None
        error = response.get("errorCode", 0)
        if error in _FENCING_ERRORS:
            self._on_fenced(now)
            return
        if error != 0:
            if "fatal_error" in table(MACHINE).triggers_for(self.state):
                self._fire("fatal_error")
            self.owned = {}
            return
        if self.state not in IN_GROUP:
            return
        self.member_id = response.get("memberId") or self.member_id
        self.epoch = int(response["memberEpoch"])
        self.hb_interval = int(response.get("heartbeatIntervalMs", 0))
        self.next_hb = now + self.hb_interval
        self._accepted(response)
        assignment = self._parse_assignment(response)
        if assignment is not None:
            self.target = assignment
        if self.state == cs.JOINING:
            if self.target is not None and self.target != self.owned:
                self._fire("assignment_received")
                self._start_reconcile(now)
            else:
                self._fire("assignment_unchanged")
        elif self.state == cs.STABLE and assignment is not None and assignment != self.owned:
            self._fire("assignment_received")
            self._start_reconcile(now)
        elif self.state == cs.RECONCILING and assignment is not None:
            self._fire("assignment_received")  # the running reconciliation finishes first

    def _on_fenced(self, now: int) -> None:
        """transitionToFenced: onPartitionsLost, epoch 0, then rejoin (or stop if leaving)."""
        self.owned = {}
        self.target = None
        self.reconcile_to = self.reconcile_done_at = self.leave_done_at = None
        if self.state in IN_GROUP:
            self._fire("fenced")
            self.epoch = 0
            if self.stalled_until is not None:
                return  # onPartitionsLost runs in poll(): the rejoin waits for the application
            self._fire("rejoin")
            self.full = True
            self.next_hb = now
        elif self.state in (cs.PREPARE_LEAVING, cs.LEAVING):
            self.stale_leave = False
            self._fire("fenced")

    def _start_reconcile(self, now: int) -> None:
        assert self.target is not None
        self.reconcile_to = dict(self.target)
        self.reconcile_done_at = now + self.opts.reconcile_ms


class SimClient(MemberClient):
    """A KIP-848 consumer (ConsumerGroupHeartbeat v1)."""

    def __init__(self, name: str, group_id: str, member_id: str, topics: tuple[str, ...],
                 instance_id: str | None = None, options: ClientOptions | None = None) -> None:
        super().__init__(name, group_id, member_id, instance_id, options)
        self.topics = topics
        self.subscription_changed = False
        self.dropped_regex = False  # the next subscription heartbeat sends regex "" (pattern removed)
        interval = self.opts.auto_commit_interval_ms
        self.committer = Committer(interval) if interval else None
        self.waits_for_commit: str | None = None  # "reconcile" or "leave": callbacks wait for a sync commit

    # --- offset commits (kgspec/sim/committer.py) -------------------------------------------

    def _can_commit(self) -> bool:
        return self.epoch > 0 and bool(self.owned) and (self.state in IN_GROUP or self.state == cs.PREPARE_LEAVING)

    def _build_commit(self, now: int) -> dict[str, Any]:
        return commit_request(self.group_id, self.member_id, self.instance_id, self.epoch, self.owned, now)

    def _start_sync_commit(self, now: int, waiting: str) -> bool:
        """Commit every owned partition before revoking or leaving; False: nothing to commit."""
        if self.committer is None or not self._can_commit():
            return False
        self.committer.start_sync(now, self.opts.rebalance_timeout_ms)
        self.waits_for_commit = waiting
        return True

    def _sync_commit_ended(self, now: int) -> None:
        """The revocation callbacks (or the leave's) run once the commit before them is done."""
        waiting, self.waits_for_commit = self.waits_for_commit, None
        if waiting == "reconcile" and self.state == cs.RECONCILING and self.reconcile_to is not None:
            self.reconcile_done_at = now + self.opts.reconcile_ms
        elif waiting == "leave" and self.state == cs.PREPARE_LEAVING:
            self.leave_done_at = now + self.opts.reconcile_ms

    def _start_reconcile(self, now: int) -> None:
        super()._start_reconcile(now)
        assert self.target is not None
        revoking = any(p - self.target.get(t, frozenset()) for t, p in self.owned.items())
        if revoking and self._start_sync_commit(now, "reconcile"):
            self.reconcile_done_at = None

    def leave(self, now: int, temporary: bool = False) -> None:
        super().leave(now, temporary)
        if self.state == cs.PREPARE_LEAVING and self._start_sync_commit(now, "leave"):
            self.leave_done_at = None

    def _on_fenced(self, now: int) -> None:
        if self.committer is not None:
            self.committer.cancel_sync()
            self.waits_for_commit = None
        super()._on_fenced(now)

    def zombie_commit(self) -> bool:
        """Send the last commit again, as built (old epoch, old partitions); False: none yet."""
        return self.committer is not None and not self.done and self.committer.zombie()

    def wake_time(self) -> int | None:
        at = super().wake_time()
        if self.committer is None or self.done:
            return at
        due = self.committer.wake_time(polling=self.stalled_until is None)
        if due is not None and self.frozen_until is not None:
            due = max(due, self.frozen_until)
        return due if at is None else at if due is None else min(at, due)

    def wake(self, now: int) -> dict[str, Any] | None:
        if self.committer is not None and not self.done and not self.frozen(now):
            ended = self.committer.due(now, self.stalled_until is None, self._can_commit(),
                                       lambda: self._build_commit(now))
            if ended:
                self._sync_commit_ended(now)
        return super().wake(now)

    def take_commits(self, now: int) -> list[tuple[int, dict[str, Any]]]:
        """The commits to send now, each with its correlation id (they go before the heartbeat)."""
        if self.committer is None or not self.committer.outbox:
            return []
        out = []
        for kind, request in self.committer.outbox:
            self.corr += 1
            self.committer.sent(self.corr, kind, request, now + self.opts.request_timeout_ms)
            out.append((self.corr, request))
        self.committer.outbox.clear()
        return out

    def _other_response(self, corr: int, response: Mapping[str, Any], now: int) -> bool:
        if self.committer is None:
            return False
        ended = self.committer.on_response(corr, response, now)
        if ended is None:
            return False
        if ended:
            self._sync_commit_ended(now)
        return True

    def resubscribe(self, topics: tuple[str, ...], regex: str | None) -> None:
        """subscribe() again with other topic names or another pattern; the next heartbeat
        carries the new subscription (and an empty regex to drop a pattern, as
        ``ConsumerHeartbeatRequestManager.HeartbeatState`` sends)."""
        self.dropped_regex = self.dropped_regex or (self.opts.topic_regex is not None and regex is None)
        self.topics = topics
        self.opts = dataclasses.replace(self.opts, topic_regex=regex)
        self.subscription_changed = True

    def _request(self, epoch: int, full: bool) -> dict[str, Any]:
        request: dict[str, Any] = {
            "groupId": self.group_id, "memberId": self.member_id, "memberEpoch": epoch,
            "instanceId": self.instance_id, "rackId": None, "rebalanceTimeoutMs": -1,
            "subscribedTopicNames": None, "subscribedTopicRegex": None, "serverAssignor": None,
            "topicPartitions": None,
        }
        if epoch < 0:
            return request
        if full:
            request["rebalanceTimeoutMs"] = self.opts.rebalance_timeout_ms
            request["serverAssignor"] = self.opts.server_assignor
        if full or self.subscription_changed:
            if self.opts.topic_regex is not None:
                request["subscribedTopicRegex"] = self.opts.topic_regex
                if self.subscription_changed:
                    request["subscribedTopicNames"] = []
            else:
                request["subscribedTopicNames"] = list(self.topics)
                if self.dropped_regex:
                    request["subscribedTopicRegex"] = ""
                    self.dropped_regex = False
            self.subscription_changed = False
        if self._reports_owned(full):
            request["topicPartitions"] = owned_json(self.owned)
        return request

    def _parse_assignment(self, response: Mapping[str, Any]) -> dict[str, Any] | None:
        return parse_assignment(response)
