"""A KIP-848 consumer client, driven by the compiled ``consumer-client`` table.

It follows ``AbstractMembershipManager`` and ``HeartbeatRequestManager`` as far as the
coordinator can tell: join with epoch 0, heartbeat every interval, reconcile a new
assignment (revoke, then assign, taking ``reconcile_ms`` of callbacks) and acknowledge it
at once, keep one heartbeat in flight, send a full heartbeat after a lost or failed one,
rejoin with epoch 0 when fenced, leave with -1 (or -2 for a static member). Every state
change is a ``Table.fire``, so the client can only move along the declared lifecycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kgspec.model.errors import Errors
from kgspec.spec import client as cs
from kgspec.spec.tables import table

TABLE = table("consumer-client")
IN_GROUP = frozenset({cs.JOINING, cs.RECONCILING, cs.ACKNOWLEDGING, cs.STABLE})
_FENCING_ERRORS = frozenset({int(Errors.FENCED_MEMBER_EPOCH), int(Errors.UNKNOWN_MEMBER_ID)})

Owned = dict[str, frozenset[int]]


@dataclass(slots=True)
class ClientOptions:
    rebalance_timeout_ms: int = 30000
    reconcile_ms: int = 0  # time the rebalance callbacks take
    request_timeout_ms: int = 5000
    server_assignor: str | None = None
    topic_regex: str | None = None  # subscribe by pattern (server-side RE2J resolution) instead of names


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


class SimClient:
    """One consumer incarnation; the simulator calls :meth:`wake` and :meth:`on_response`."""

    def __init__(self, name: str, group_id: str, member_id: str, topics: tuple[str, ...],
                 instance_id: str | None = None, options: ClientOptions | None = None) -> None:
        self.name = name
        self.group_id = group_id
        self.member_id = member_id
        self.topics = topics
        self.instance_id = instance_id
        self.opts = options or ClientOptions()
        self.state = TABLE.initial
        self.epoch = 0
        self.owned: Owned = {}
        self.target: Owned | None = None  # the latest assignment the coordinator sent
        self.alive = True
        self.hb_interval = 0
        self.next_hb = 0
        self.in_flight: int | None = None
        self.in_flight_deadline = 0
        self.corr = 0
        self.full = True
        self.last_sent_owned: Owned | None = None
        self.reconcile_to: Owned | None = None
        self.reconcile_done_at: int | None = None
        self.leave_epoch = -1
        self.leave_done_at: int | None = None
        self.transitions = 0

    # --- lifecycle ----------------------------------------------------------------------

    def _fire(self, trigger: str) -> None:
        self.state = TABLE.fire(self.state, trigger)
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

    @property
    def done(self) -> bool:
        return not self.alive or self.state in (cs.UNSUBSCRIBED, cs.FATAL, cs.STALE)

    # --- time -----------------------------------------------------------------------------

    def wake_time(self) -> int | None:
        if self.done:
            return None
        times = [t for t in (self.reconcile_done_at, self.leave_done_at) if t is not None]
        if self.in_flight is not None:
            times.append(self.in_flight_deadline)
        elif self.state in (cs.JOINING, cs.ACKNOWLEDGING, cs.LEAVING):
            times.append(self.next_hb if self.state == cs.JOINING else 0)
        elif self.state in (cs.RECONCILING, cs.STABLE):
            times.append(self.next_hb)
        return min(times) if times else None

    def wake(self, now: int) -> dict[str, Any] | None:
        """Do what is due by ``now``; return the request to send, if any."""
        if self.done:
            return None
        if self.reconcile_done_at is not None and self.reconcile_done_at <= now:
            assert self.reconcile_to is not None
            self.owned = self.reconcile_to
            self.reconcile_to = self.reconcile_done_at = None
            self._fire("reconciliation_completed")
        if self.leave_done_at is not None and self.leave_done_at <= now:
            self.owned = {}
            self.leave_done_at = None
            self._fire("leave_callbacks_done")
        if self.in_flight is not None and now >= self.in_flight_deadline:
            self.in_flight = None  # timed out: the next heartbeat is a full one
            self.full = True
        if self.in_flight is not None:
            return None
        if self.state == cs.LEAVING:
            request = self._request(self.leave_epoch, full=False)
            self._fire("leave_heartbeat_sent")
            return request
        due = self.state == cs.ACKNOWLEDGING or (
            self.state in (cs.JOINING, cs.RECONCILING, cs.STABLE) and self.next_hb <= now)
        if not due:
            return None
        request = self._request(self.epoch, full=self.full or self.state == cs.JOINING)
        self.in_flight_deadline = now + self.opts.request_timeout_ms
        self.next_hb = now + max(self.hb_interval, 1)
        if self.state == cs.ACKNOWLEDGING:
            if self.target is None or self.target == self.owned:
                self._fire("ack_sent")
            else:
                self._fire("ack_sent_more_to_reconcile")
                self._start_reconcile(now)
        return request

    def _request(self, epoch: int, full: bool) -> dict[str, Any]:
        self.corr += 1
        self.in_flight = self.corr
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
            if self.opts.topic_regex is not None:
                request["subscribedTopicRegex"] = self.opts.topic_regex
            else:
                request["subscribedTopicNames"] = list(self.topics)
            request["serverAssignor"] = self.opts.server_assignor
        if full or self.owned != self.last_sent_owned:
            request["topicPartitions"] = owned_json(self.owned)
            self.last_sent_owned = dict(self.owned)
        self.full = False
        return request

    # --- responses ------------------------------------------------------------------------

    def on_response(self, corr: int, response: Mapping[str, Any], now: int) -> None:
        if self.done or corr != self.in_flight:
            return  # a response to a request the client no longer waits for
        self.in_flight = None
        error = response.get("errorCode", 0)
        if error in _FENCING_ERRORS:
            self._on_fenced(now)
            return
        if error != 0:
            if "fatal_error" in TABLE.triggers_for(self.state):
                self._fire("fatal_error")
            self.owned = {}
            return
        if self.state not in IN_GROUP:
            return
        self.member_id = response.get("memberId") or self.member_id
        self.epoch = int(response["memberEpoch"])
        self.hb_interval = int(response.get("heartbeatIntervalMs", 0))
        self.next_hb = now + self.hb_interval
        assignment = parse_assignment(response)
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
            self._fire("rejoin")
            self.full = True
            self.next_hb = now
        elif self.state in (cs.PREPARE_LEAVING, cs.LEAVING):
            self._fire("fenced")

    def _start_reconcile(self, now: int) -> None:
        assert self.target is not None
        self.reconcile_to = dict(self.target)
        self.reconcile_done_at = now + self.opts.reconcile_ms
