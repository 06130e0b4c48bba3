"""Drive the coordinator with classic calls the way a test in GroupMetadataManagerTest does."""

from __future__ import annotations

from typing import Any

from kgspec.model.coordinator import Coordinator
from kgspec.model.step import Decision

RANGE = (("range", "AAE="),)  # name, metadata (base64, as Kafka's JSON converters print bytes)


def protocols(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"name": n, "metadata": m} for n, m in pairs]


class Harness:
    """A coordinator whose generated member ids are ``<client or instance id>-1``, ``-2``, ..."""

    def __init__(self, configs: dict[str, Any] | None = None, profile: str = "kafka-4.3") -> None:
        self.coord = Coordinator(profile, configs, member_ids=lambda n: str(n + 1))
        self.done: dict[int, dict[str, Any]] = {}
        self.done_at: dict[int, int] = {}

    def _collect(self) -> None:
        for c in self.coord.take_completed():
            self.done[c.call.call_id] = c.response
            self.done_at[c.call.call_id] = c.completed_ms

    def advance(self, ts: int) -> list[Any]:
        firings = self.coord.advance(ts)
        self._collect()
        return firings

    def call(self, api: int, version: int, request: dict[str, Any], ts: int, client_id: str = "client") -> Decision:
        self.advance(ts)
        result = self.coord.handle(api, version, request, now=ts, client_id=client_id)
        self._collect()
        return result

    def join(self, ts: int, member_id: str = "", *, version: int = 9, client_id: str = "client",
             instance_id: str | None = None, session: int = 10_000, rebalance: int = 60_000,
             protos: tuple[tuple[str, str], ...] = RANGE, protocol_type: str = "consumer",
             group: str = "g", reason: str | None = None) -> Decision:
        req: dict[str, Any] = {"groupId": group, "sessionTimeoutMs": session, "rebalanceTimeoutMs": rebalance,
                               "memberId": member_id, "groupInstanceId": instance_id,
                               "protocolType": protocol_type, "protocols": protocols(*protos), "reason": reason}
        return self.call(11, version, req, ts, client_id)

    def sync(self, ts: int, member_id: str, generation: int, *, version: int = 5,
             assignments: dict[str, str] | None = None, instance_id: str | None = None,
             protocol_type: str | None = "consumer", protocol_name: str | None = "range", group: str = "g") -> Decision:
        req: dict[str, Any] = {"groupId": group, "generationId": generation, "memberId": member_id,
                               "groupInstanceId": instance_id, "protocolType": protocol_type,
                               "protocolName": protocol_name,
                               "assignments": [{"memberId": m, "assignment": a} for m, a in (assignments or {}).items()]}
        return self.call(14, version, req, ts)

    def heartbeat(self, ts: int, member_id: str, generation: int, *, version: int = 4,
                  instance_id: str | None = None, group: str = "g") -> dict[str, Any]:
        req = {"groupId": group, "generationId": generation, "memberId": member_id, "groupInstanceId": instance_id}
        response = self.call(12, version, req, ts).response
        assert response is not None
        return response

    def leave(self, ts: int, members: list[tuple[str, str | None]], *, version: int = 5, group: str = "g") -> Decision:
        if version >= 3:
            req: dict[str, Any] = {"groupId": group, "members": [
                {"memberId": m, "groupInstanceId": i, "reason": None} for m, i in members]}
        else:
            req = {"groupId": group, "memberId": members[0][0]}
        return self.call(13, version, req, ts)

    def response(self, result: Decision) -> dict[str, Any]:
        """The call's response: returned at once, or completed since (parked)."""
        if result.response is not None:
            return result.response
        assert result.pending is not None
        assert result.pending in self.done, "the call is still parked"
        return self.done[result.pending]

    def stable_group(self, n: int = 2, *, ts: int = 0) -> list[str]:
        """n dynamic members (v9) joined and synced by ts + 6000: generation 1, leader the first."""
        ids = []
        for i in range(n):
            first = self.join(ts, client_id=f"c{i}")
            assert first.response is not None
            ids.append(first.response["memberId"])
        calls = [self.join(ts, m, client_id=f"c{i}") for i, m in enumerate(ids)]
        self.advance(ts + 6000)  # later members extend the initial delay once
        leader = self.response(calls[0])["leader"]
        gen = self.response(calls[0])["generationId"]
        self.sync(ts + 6000, leader, gen, assignments={m: f"AAA{i}" for i, m in enumerate(ids)})
        for m in ids:
            if m != leader:
                self.sync(ts + 6000, m, gen)
        return ids

    def group(self, gid: str = "g") -> Any:
        return self.coord.classic_groups[gid]
