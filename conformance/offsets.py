"""OffsetCommit, OffsetFetch, OffsetDelete and DeleteGroups calls checked against the model (the
offsets part of a check).

The same loop as every call: the model decides (``Coordinator.decide``), the decision is
compared with the trace, and committed. A commit belongs to its group's session; a batched
OffsetFetch (v8+, ``groups[]``) is split by group, each group decided by its own session's
model and compared with its entry of the response. Compared: every error code (the group's and
each partition's), and for a fetch each partition's committed offset, leader epoch and metadata
(the fields the trace carries); for OffsetDelete the top-level and per-partition error codes
(and, through the record check, the tombstones). Partitions are matched by topic (name, or id from v10) and
index, so the order of topics and partitions does not count (Kafka answers ``fetchAllOffsets``
in hash-map order). A DeleteGroups call is split by group like a batched fetch: each group's
deletion is decided by its session's model, its ``errorCode`` compared with the group's result
(matched by group id: Kafka answers in shard and hash-set order, ``model/offsets/groups.py``),
its tombstones through the record check. A group first seen here is typed ``classic`` (Kafka's
simple group) until a call of its own protocol types it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgspec.conformance.events import Event
from kgspec.conformance.findings import Finding
from kgspec.conformance.readers.validate import is_int
from kgspec.conformance.session import GroupSession, ts_of
from kgspec.invariants.offsets import commit_fencing_problems
from kgspec.model.apis import (
    DELETE_GROUPS,
    OFFSET_COMMIT,
    OFFSET_DELETE,
    OFFSET_FETCH,
    version_range,
)
from kgspec.model.errors import error_name
from kgspec.model.offsets.apis import TXN_OFFSET_COMMIT, WRITE_TXN_MARKERS
from kgspec.model.profiles import get_profile
from kgspec.model.shards import GROUP_METADATA_TOPIC

if TYPE_CHECKING:
    from kgspec.conformance.checker import TraceChecker

OFFSET_APIS = frozenset({OFFSET_COMMIT, OFFSET_FETCH, OFFSET_DELETE, DELETE_GROUPS, TXN_OFFSET_COMMIT,
                         WRITE_TXN_MARKERS})
_NAMES = {OFFSET_COMMIT: "OffsetCommit", OFFSET_FETCH: "OffsetFetch", OFFSET_DELETE: "OffsetDelete",
          DELETE_GROUPS: "DeleteGroups", TXN_OFFSET_COMMIT: "TxnOffsetCommit", WRITE_TXN_MARKERS: "WriteTxnMarkers"}
_DEFAULT_VERSIONS = {OFFSET_DELETE: 0, OFFSET_COMMIT: 8, DELETE_GROUPS: 2, TXN_OFFSET_COMMIT: 3, WRITE_TXN_MARKERS: 1}
_FETCHED = ("committedOffset", "committedLeaderEpoch", "metadata")


def _topics_problem(topics: Any, where: str, parts: str, part_ok: Any) -> tuple[str, str] | None:
    if not isinstance(topics, list):
        return where, f"`{where}` must be a list"
    for i, t in enumerate(topics):
        if not isinstance(t, dict) or not isinstance(t.get("name", t.get("topicId")), str):
            return f"{where}[{i}]", f"`{where}[{i}]` needs a string name (or topicId from v10)"
        ps = t.get(parts)
        if not isinstance(ps, list) or not all(part_ok(p) for p in ps):
            return f"{where}[{i}].{parts}", f"`{where}[{i}].{parts}` is not a list of the right shape"
    return None


def _commit_partition_ok(p: Any) -> bool:
    return isinstance(p, dict) and is_int(p.get("partitionIndex")) and is_int(p.get("committedOffset")) \
        and (p.get("committedMetadata") is None or isinstance(p.get("committedMetadata"), str)) \
        and is_int(p.get("committedLeaderEpoch", -1))


def request_problem(api: int, req: dict[str, Any]) -> tuple[str, str] | None:
    """Shape errors of an offsets request (the schema tables do not cover these messages)."""
    if api == DELETE_GROUPS:
        names = req.get("groupsNames")
        if not isinstance(names, list):
            return "request.groupsNames", "`request.groupsNames` must be a list"
        for i, name in enumerate(names):
            if not isinstance(name, str):
                return f"request.groupsNames[{i}]", f"`request.groupsNames[{i}]` must be a string"
        return None
    if api == WRITE_TXN_MARKERS:
        markers = req.get("markers")
        if not isinstance(markers, list):
            return "request.markers", "`request.markers` must be a list"
        for i, m in enumerate(markers):
            if not isinstance(m, dict) or not is_int(m.get("producerId")) \
                    or not isinstance(m.get("transactionResult"), bool):
                return f"request.markers[{i}]", f"`request.markers[{i}]` needs an integer producerId and a " \
                                                 "boolean transactionResult"
            problem = _topics_problem(m.get("topics"), f"request.markers[{i}].topics", "partitionIndexes", is_int)
            if problem is not None:
                return problem
        return None
    if api == TXN_OFFSET_COMMIT:
        if not isinstance(req.get("groupId"), str):
            return "request.groupId", "request has no string `groupId`"
        if not is_int(req.get("producerId")):
            return "request.producerId", "`request.producerId` must be an integer"
        for name in ("generationId", "generationIdOrMemberEpoch"):
            if not is_int(req.get(name, -1)):
                return f"request.{name}", f"`request.{name}` must be an integer"
        if req.get("memberId") is not None and not isinstance(req.get("memberId"), str):
            return "request.memberId", "`request.memberId` must be a string"
        if req.get("groupInstanceId") is not None and not isinstance(req.get("groupInstanceId"), str):
            return "request.groupInstanceId", "`request.groupInstanceId` must be a string or null"
        return _topics_problem(req.get("topics"), "request.topics", "partitions", _commit_partition_ok)
    if api == OFFSET_DELETE:
        if not isinstance(req.get("groupId"), str):
            return "request.groupId", "request has no string `groupId`"
        return _topics_problem(req.get("topics"), "request.topics", "partitions",
                               lambda p: isinstance(p, dict) and is_int(p.get("partitionIndex")))
    if api == OFFSET_COMMIT:
        if not isinstance(req.get("groupId"), str):
            return "request.groupId", "request has no string `groupId`"
        if not is_int(req.get("generationIdOrMemberEpoch", -1)):
            return "request.generationIdOrMemberEpoch", "`request.generationIdOrMemberEpoch` must be an integer"
        if req.get("memberId") is not None and not isinstance(req.get("memberId"), str):
            return "request.memberId", "`request.memberId` must be a string"
        if req.get("groupInstanceId") is not None and not isinstance(req.get("groupInstanceId"), str):
            return "request.groupInstanceId", "`request.groupInstanceId` must be a string or null"
        if not is_int(req.get("retentionTimeMs", -1)):
            return "request.retentionTimeMs", "`request.retentionTimeMs` must be an integer"
        return _topics_problem(req.get("topics"), "request.topics", "partitions", _commit_partition_ok)
    groups = req.get("groups")
    batched = groups is not None  # v8+; v1-7 name one group at the top level
    if groups is None:
        groups = [req]
    elif not isinstance(groups, list):
        return "request.groups", "`request.groups` must be a list"
    for i, g in enumerate(groups):
        where = f"request.groups[{i}]" if batched else "request"
        if not isinstance(g, dict) or not isinstance(g.get("groupId"), str):
            return f"{where}.groupId", "request has no string `groupId`"
        if g.get("topics") is not None:
            problem = _topics_problem(g["topics"], f"{where}.topics", "partitionIndexes", is_int)
            if problem is not None:
                return problem
        if not is_int(g.get("memberEpoch", -1)):
            return f"{where}.memberEpoch", f"`{where}.memberEpoch` must be an integer"
        if g.get("memberId") is not None and not isinstance(g.get("memberId"), str):
            return f"{where}.memberId", f"`{where}.memberId` must be a string or null"
    return None


def _must_answer(expected: int, observed: Any) -> str:
    return f"the coordinator must answer {error_name(expected)} ({expected}), not {error_name(observed)} ({observed})"


def _because(explain: list[str]) -> str:
    """The decision's reasons, as a finding's message ends with them."""
    why = [w for w in explain if w]
    return ": " + "; ".join(why) if why else ""


def _hashable(value: Any) -> Any:
    return value if value is None or isinstance(value, (str, int, float)) else repr(value)


def _partitions(topics: Any, version: int) -> dict[tuple[Any, Any], dict[str, Any]]:
    """(topic name or id, partition) -> the partition's entry (a mistyped key stays a key, by
    its repr, so the comparison names it)."""
    out: dict[tuple[Any, Any], dict[str, Any]] = {}
    for t in topics if isinstance(topics, list) else []:
        if not isinstance(t, dict):
            continue
        key = _hashable(t.get("topicId") if version >= 10 else t.get("name"))
        parts = t.get("partitions")
        for p in parts if isinstance(parts, list) else []:
            if isinstance(p, dict):
                out[(key, _hashable(p.get("partitionIndex")))] = p
    return out


class OffsetChecks:
    """The offsets part of one :class:`~kgspec.conformance.checker.TraceChecker`."""

    def __init__(self, checker: TraceChecker) -> None:
        self.checker = checker

    def _finding(self, g: GroupSession | None, event: Event, gid: str | None, kind: str, message: str,
                 field: str | None, expected: Any = None, observed: Any = None) -> None:
        self.checker.finding(g, Finding(self.checker.path, event.line, gid, kind, message, field, expected, observed))

    def session(self, gid: str) -> GroupSession:
        known = self.checker.groups.get(gid)
        # A group the trace has not typed yet: Kafka's simple group is a classic one; its own
        # protocol's first call types it (the session is marked as typed by an admin call).
        return known if known is not None else self.checker.group(gid, "classic", from_describe=True)

    def handle(self, event: Event, api: int) -> None:
        req, obs = event.request, event.response
        name = _NAMES[api]
        version = event.api_version
        if version is None:
            version = _DEFAULT_VERSIONS.get(api, 8 if "groups" in req else 7)
        gid = req.get("groupId") if isinstance(req.get("groupId"), str) else None
        low, high = version_range(api, get_profile(self.checker.profile))
        if not low <= version <= high:
            g = self.session(gid) if gid is not None else None
            self._finding(g, event, gid, "unsupported", f"{name} v{version} is not modelled (v{low}-v{high})",
                          "requestHeader.requestApiVersion")
            return
        problem = request_problem(api, req)
        if problem is None and not isinstance(obs, dict):
            problem = ("response", "the response must be an object")
        if problem is not None:
            g = self.session(gid) if gid is not None else None
            self._finding(g, event, gid, "malformed", problem[1], problem[0])
            return
        if api == DELETE_GROUPS:
            self.delete_groups(event, version)
        elif api == WRITE_TXN_MARKERS:
            self.markers(event, version)
        elif api == TXN_OFFSET_COMMIT:
            assert gid is not None
            self.txn_commit(self.session(gid), event, version)
        elif api == OFFSET_DELETE:
            assert gid is not None
            self.delete(self.session(gid), event, version)
        elif api == OFFSET_COMMIT:
            assert gid is not None
            self.commit(self.session(gid), event, version)
        elif version >= 8:
            answered = obs.get("groups")
            observed = {og.get("groupId"): og for og in (answered if isinstance(answered, list) else [])
                        if isinstance(og, dict)}
            for entry in req["groups"]:
                one = {"groups": [entry], "requireStable": req.get("requireStable", False)}
                self.fetch(self.session(entry["groupId"]), event, version, one, observed.get(entry["groupId"]))
        else:
            assert gid is not None
            self.fetch(self.session(gid), event, version, req, obs)

    def _decide(self, g: GroupSession, event: Event, api: int, version: int, req: dict[str, Any]) -> Any:
        g.summary.events += 1
        if not self.checker.advance(g, ts_of(event), event.line):
            return None
        g.saw_calls = True
        return g.coord.decide(api, version, req, now=int(ts_of(event)), client_id=event.client_id or "")

    def _committed(self, g: GroupSession, event: Event, decision: Any) -> None:
        g.coord.commit(decision)
        if decision.records or decision.timer_ops:
            g.generation += 1
        for record in decision.records:
            g.expected_records.append((event.line, record))

    def commit(self, g: GroupSession, event: Event, version: int) -> None:
        gid = g.summary.group_id
        coord = g.coord
        conformed = not g.summary.diverged  # only then is the model's state the trace's
        decision = self._decide(g, event, OFFSET_COMMIT, version, event.request)
        if decision is None:
            return
        observed = _partitions(event.response.get("topics"), version)
        self._partition_codes(g, event, _partitions(decision.response["topics"], version), observed, decision.explain)
        # The commit-fencing invariant judges what the coordinator accepted, against its own state.
        broken = commit_fencing_problems(coord, gid, event.request, observed, version) if conformed else []
        self._committed(g, event, decision)
        for invariant, message in broken:
            self._finding(g, event, gid, "invariant", message, invariant)

    def fetch(self, g: GroupSession, event: Event, version: int, req: dict[str, Any],
              obs: dict[str, Any] | None) -> None:
        gid = g.summary.group_id
        decision = self._decide(g, event, OFFSET_FETCH, version, req)
        if decision is None:
            return
        response = decision.response
        exp_group = response["groups"][0] if version >= 8 else response
        self._committed(g, event, decision)
        if obs is None:
            self._finding(g, event, gid, "response-mismatch", f"the response has no entry for group {gid}",
                          "groups", exp_group, None)
            return
        e, o = exp_group.get("errorCode", 0), obs.get("errorCode", 0)
        if e != o:
            self._finding(g, event, gid, "response-mismatch", f"{_must_answer(e, o)} for group {gid}", "errorCode", e, o)
            return
        expected = _partitions(exp_group.get("topics"), version)
        observed = _partitions(obs.get("topics"), version)
        for key, exp in expected.items():
            got = observed.get(key)
            where = f"{key[0]}-{key[1]}"
            if got is None:
                self._finding(g, event, gid, "response-mismatch",
                              f"the response has no entry for partition {where} (committed offset "
                              f"{exp['committedOffset']})", "topics.partitions", exp, None)
                continue
            for name in ("errorCode", *_FETCHED):
                if name not in got and name != "errorCode":
                    continue  # the contract compares the fields the trace carries
                if got.get(name, 0) != exp[name]:
                    self._finding(g, event, gid, "response-mismatch",
                                  f"partition {where}: {name} must be {exp[name]!r}, not {got.get(name, 0)!r}",
                                  name, exp[name], got.get(name, 0))
        requested = req["groups"][0].get("topics") if version >= 8 else req.get("topics")
        for key in observed.keys() - expected.keys():
            what = "for which the model has no committed offset" if requested is None \
                else "which the request does not name"
            self._finding(g, event, gid, "response-mismatch",
                          f"the response shows partition {key[0]}-{key[1]}, {what}", "topics.partitions",
                          None, observed[key])

    def delete(self, g: GroupSession, event: Event, version: int) -> None:
        gid = g.summary.group_id
        decision = self._decide(g, event, OFFSET_DELETE, version, event.request)
        if decision is None:
            return
        self._committed(g, event, decision)
        exp_response, obs = decision.response, event.response
        e, o = exp_response["errorCode"], obs.get("errorCode", 0)
        if e != o:
            self._finding(g, event, gid, "response-mismatch", _must_answer(e, o) + _because(decision.explain),
                          "errorCode", e, o)
            return
        self._partition_codes(g, event, _partitions(exp_response["topics"], version),
                              _partitions(obs.get("topics"), version), decision.explain)

    def txn_commit(self, g: GroupSession, event: Event, version: int) -> None:
        """TxnOffsetCommit: each partition's ``errorCode`` (by topic name and partition), and the
        records (offsets of the request's producer id, pending until its end marker)."""
        decision = self._decide(g, event, TXN_OFFSET_COMMIT, version, event.request)
        if decision is None:
            return
        self._committed(g, event, decision)
        self._partition_codes(g, event, _partitions(decision.response["topics"], version),
                              _partitions(event.response.get("topics"), version), decision.explain)

    def markers(self, event: Event, version: int) -> None:
        """WriteTxnMarkers: every group with offsets pending in a marker's producer id gets the
        marker (its model commits or drops them); each ``__consumer_offsets`` partition must
        answer NONE (the model's marker was written). Other topics' answers are the log's."""
        producers = {m["producerId"] for m in event.request["markers"]}
        for g in list(self.checker.groups.values()):
            if not producers & g.coord.offsets.pending.keys():
                continue
            decision = self._decide(g, event, WRITE_TXN_MARKERS, version, event.request)
            if decision is not None:
                self._committed(g, event, decision)
        answered = event.response.get("markers")
        for i, m in enumerate(answered if isinstance(answered, list) else []):
            for t in m.get("topics") or [] if isinstance(m, dict) else []:
                if not isinstance(t, dict) or t.get("name") != GROUP_METADATA_TOPIC:
                    continue
                for p in t.get("partitions") or []:
                    if isinstance(p, dict) and p.get("errorCode", 0) != 0:
                        self._finding(None, event, None, "response-mismatch",
                                      f"marker {i}: {GROUP_METADATA_TOPIC}-{p.get('partitionIndex')}: "
                                      + _must_answer(0, p.get("errorCode")) + " (the model writes every marker)",
                                      "markers.topics.partitions.errorCode", 0, p.get("errorCode"))

    def delete_groups(self, event: Event, version: int) -> None:
        """DeleteGroups: each named group (once: KafkaApis drops duplicates) decided on its own
        session and its result's ``errorCode`` compared; a result for a group the request does
        not name is reported on its own."""
        answered = event.response.get("results")
        observed: dict[Any, Any] = {}
        for r in answered if isinstance(answered, list) else []:
            if isinstance(r, dict):
                observed.setdefault(_hashable(r.get("groupId")), r)
        names = list(dict.fromkeys(event.request["groupsNames"]))
        for gid in names:
            g = self.session(gid)
            decision = self._decide(g, event, DELETE_GROUPS, version, {"groupsNames": [gid]})
            if decision is None:
                continue
            self._committed(g, event, decision)
            expected = decision.response["results"][0]["errorCode"]
            got = observed.get(gid)
            if got is None:
                self._finding(g, event, gid, "response-mismatch", f"the response has no result for group {gid}",
                              "results", decision.response["results"][0], None)
                continue
            o = got.get("errorCode", 0)
            if o != expected:
                self._finding(g, event, gid, "response-mismatch", _must_answer(expected, o) + _because(decision.explain),
                              "results.errorCode", expected, o)
        for key in observed.keys() - set(names):
            self._finding(None, event, key if isinstance(key, str) else None, "response-mismatch",
                          f"the response answers group {key}, which the request does not name", "results",
                          None, observed[key])

    def _partition_codes(self, g: GroupSession, event: Event, expected: dict[tuple[Any, Any], dict[str, Any]],
                         observed: dict[tuple[Any, Any], dict[str, Any]], explain: list[str]) -> None:
        """Each partition's error code (OffsetCommit, OffsetDelete): a partition the response leaves
        out, answers otherwise, or answers though the request does not name it."""
        gid = g.summary.group_id
        for key, exp in expected.items():
            got = observed.get(key)
            where = f"{key[0]}-{key[1]}"
            if got is None:
                self._finding(g, event, gid, "response-mismatch", f"the response has no entry for partition {where}",
                              "topics.partitions", exp, None)
                continue
            e, o = exp["errorCode"], got.get("errorCode", 0)
            if o != e:
                self._finding(g, event, gid, "response-mismatch", f"partition {where}: {_must_answer(e, o)}"
                              + _because(explain), "errorCode", e, o)
        for key in observed.keys() - expected.keys():
            self._finding(g, event, gid, "response-mismatch", f"the response answers partition {key[0]}-{key[1]}, "
                          "which the request does not name", "topics.partitions", None, observed[key])
