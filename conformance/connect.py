"""``kgspec check`` for the Connect draft's calls and records (profile ``kip``).

Calls are identified by ``requestHeader.requestApiKeyName`` (``CONNECT_GROUP_HEARTBEAT``,
``CONNECT_GROUP_PREPARE_ASSIGNMENT``, ``CONNECT_GROUP_INSTALL_ASSIGNMENT``): the draft gives them
no key. Compared (contract §2): the error code always; on success (and with COMPUTE_ASSIGNMENT,
which still carries a full heartbeat answer) the member epoch, heartbeat interval and assignment
(as sets; null differs from empty); Prepare's group epoch, assignor name and members (as sets).

Legal choices adopted from the trace: which eligible worker computes the assignment (the draft:
'The group coordinator can generally pick any workers', among those whose version range covers
everyone's). Records (kgspec types 1000-1004) are compared with the model's, the assignments in
them as sets; ConnectWorkerGroupConnectorsTasksMetadata is the coordinator's *input* (the draft
does not say where the connectors and tasks come from), so a trace's record of it is applied,
not predicted. A trace of records alone is replayed. Requests and responses are checked against
the draft's message schemas (``model/connect/schemas.py``) first: a mistyped field is a
``malformed`` finding naming it. After every event the group must keep the
invariants of ``invariants/connect.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgspec.conformance.connection import client_host
from kgspec.conformance.findings import Finding
from kgspec.conformance.record_values import canonical_value
from kgspec.conformance.shapes import call_shape_problem
from kgspec.invariants.catalogue import REPLAY
from kgspec.invariants.connect import group_problems
from kgspec.model.connect import ops
from kgspec.model.connect.resources import items, label, parse
from kgspec.model.consumer.records import ReplayError
from kgspec.model.errors import CoordinatorError, Errors, error_name
from kgspec.model.records import CONNECT_WORKER_GROUP_CONNECTORS_TASKS_METADATA, Record

if TYPE_CHECKING:
    from kgspec.conformance.checker import TraceChecker
    from kgspec.conformance.events import Event
    from kgspec.conformance.session import GroupSession

CONNECT_API_NAMES = ops.CONNECT_APIS
CONNECT_RECORD_TYPES = ops.CONNECT_RECORD_TYPES
_LABELS = {ops.CONNECT_GROUP_HEARTBEAT: "ConnectGroupHeartbeat",
           ops.CONNECT_GROUP_PREPARE_ASSIGNMENT: "ConnectGroupPrepareAssignment",
           ops.CONNECT_GROUP_INSTALL_ASSIGNMENT: "ConnectGroupInstallAssignment"}


class ConnectChecks:
    """The Connect part of one :class:`TraceChecker`."""

    def __init__(self, checker: TraceChecker) -> None:
        self.checker = checker

    def handle(self, g: GroupSession, event: Event, api: str) -> None:
        version = event.api_version if event.api_version is not None else 0
        # A request the draft's schema refuses (a float epoch, an int16 beyond 32767, a null
        # member id) never reaches the model: a malformed finding naming the field.
        shape = call_shape_problem(self.checker.profile, api, version, event.request, None)
        if shape is not None:
            self._report(g, event, "malformed", shape[1], shape[0])
            return
        if not self.checker.advance(g, float(event.ts_ms or 0), event.line):
            return
        g.saw_calls = True
        g.generation += 1
        coord, req, obs = g.coord, event.request, event.response
        gid = g.summary.group_id
        if api == ops.CONNECT_GROUP_HEARTBEAT and isinstance(req.get("memberId"), str) \
                and isinstance(obs.get("errorCode"), int):
            ops.adopt_selection(coord, gid, req["memberId"], obs["errorCode"] == Errors.COMPUTE_ASSIGNMENT)
        try:
            result = coord.handle(api, version, req, now=int(event.ts_ms or 0), client_id=event.client_id or "",
                                  client_host=client_host(event.connection))
        except (KeyError, TypeError, ValueError) as exc:
            self._report(g, event, "malformed", f"{_LABELS[api]} request: {exc}", "request")
            return
        for record in result.records:
            g.expected_records.append((event.line, record))
        assert result.response is not None
        shape = call_shape_problem(self.checker.profile, api, version, None, obs, missing=False)
        if shape is not None:  # the trace's copy of the answer is mistyped; the model has applied the call
            self._report(g, event, "malformed", shape[1], shape[0])
            return
        for name, exp, got in differences(api, result.response, obs):
            self._mismatch(g, event, api, name, exp, got, result.explain)
        self._invariants(g, event)

    def record(self, g: GroupSession, event: Event, record: Record) -> None:
        if not self.checker.advance(g, float(event.ts_ms or 0), event.line):
            return
        g.saw_records = True
        g.generation += 1
        gid = g.summary.group_id
        queue = g.expected_records
        if record.type == CONNECT_WORKER_GROUP_CONNECTORS_TASKS_METADATA and \
                not (queue and queue[0][1].type == record.type):
            connectors = {} if record.value is None else {c["name"]: c["tasks"] for c in record.value["connectors"]}
            try:
                written = ops.configure(g.coord, gid, connectors)
            except CoordinatorError as exc:  # the id is another type's group (e.g. classic: kip's migration)
                self._report(g, event, "response-mismatch", f"the trace shows {record.describe()} but the model "
                             f"writes nothing here: {exc.message}", "record", None, record.to_json())
                return
            queue.extend((event.line, r) for r in written[1:])
            self._invariants(g, event)
            return
        if not g.saw_calls:
            try:
                g.coord.replay(record)
            except ReplayError as exc:  # the shape was checked first (conformance/records.py)
                self._report(g, event, "invariant", f"replay would reject {record.describe()}: {exc}", REPLAY)
                return
            for name, message in g.record_epochs.observe(record):  # the group epoch (record 1000)
                self._report(g, event, "invariant", message, name)
            self._invariants(g, event)
            return
        if not queue:
            self._report(g, event, "response-mismatch",
                         f"the trace shows {record.describe()} but the model writes nothing here", "record",
                         None, record.to_json())
            return
        _, expected = queue.popleft()
        profile = self.checker.profile
        if expected.type != record.type or expected.key != record.key or expected.version != record.version \
                or normalize(canonical_value(profile, expected)) != normalize(canonical_value(profile, record)):
            self._report(g, event, "response-mismatch",
                         f"expected {expected.describe()}, the trace shows {record.describe()}", "record",
                         expected.to_json(), record.to_json())

    def _invariants(self, g: GroupSession, event: Event) -> None:
        for name, message in group_problems(g.coord.connect_groups.get(g.summary.group_id)):
            self._report(g, event, "invariant", message, name)

    def _mismatch(self, g: GroupSession, event: Event, api: str, name: str, exp: Any, got: Any,
                  explain: list[str]) -> None:
        if name == "errorCode":
            head = f"{_LABELS[api]}: the coordinator must answer {error_name(exp)} ({exp}), " \
                   f"not {error_name(got) if isinstance(got, int) else repr(got)} ({got})"
        else:
            head = f"{_LABELS[api]}: {name} must be {exp}, not {got}"
        reasons = [w for w in explain if w]
        self._report(g, event, "response-mismatch", head + (": " + "; ".join(reasons) if reasons else ""), name,
                     exp, got)

    def _report(self, g: GroupSession, event: Event, kind: str, message: str, name: str, exp: Any = None,
                got: Any = None) -> None:
        c = self.checker
        c.finding(g, Finding(c.path, event.line, g.summary.group_id, kind, message, name, exp, got))


def _labels(assignment: Any) -> Any:
    """An assignment (or null) as the draft's labels, for messages and the JSON report."""
    if not isinstance(assignment, dict):
        return assignment
    found = _resources(assignment.get("connectorsAndTasks"))
    return sorted(label(x) for x in found) if isinstance(found, frozenset) else found


def _resources(value: Any) -> frozenset[tuple[str, str, int]] | str | None:
    if value is None:
        return None
    try:
        return frozenset(items(parse(value)))
    except (TypeError, ValueError):  # not the draft's shape: a list of a mistyped value
        return "unreadable"


def differences(api: str, expected: dict[str, Any], observed: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(field, expected, observed) for every field that counts (module docstring)."""
    code = expected.get("errorCode", 0)
    if code != observed.get("errorCode", 0):
        return [("errorCode", code, observed.get("errorCode"))]
    out: list[tuple[str, Any, Any]] = []
    if api == ops.CONNECT_GROUP_HEARTBEAT and code in (0, Errors.COMPUTE_ASSIGNMENT):
        for name in ("memberEpoch", "heartbeatIntervalMs"):
            if expected.get(name) != observed.get(name):
                out.append((name, expected.get(name), observed.get(name)))
        exp_a, got_a = expected.get("assignment"), observed.get("assignment")
        if not isinstance(exp_a, dict) or not isinstance(got_a, dict):
            if exp_a != got_a:  # null ("unchanged") against an assignment
                out.append(("assignment", _labels(exp_a), _labels(got_a)))
        else:
            exp_r, got_r = _resources(exp_a.get("connectorsAndTasks")), _resources(got_a.get("connectorsAndTasks"))
            if exp_r != got_r:
                out.append(("assignment", _labels(exp_a), _labels(got_a)))
            if exp_a.get("error", 0) != got_a.get("error", 0):
                out.append(("assignment.error", exp_a.get("error", 0), got_a.get("error")))
    elif api == ops.CONNECT_GROUP_PREPARE_ASSIGNMENT and code == 0:
        for name in ("groupEpoch", "assignorName"):
            if expected.get(name) != observed.get(name):
                out.append((name, expected.get(name), observed.get(name)))
        exp_m, got_m = _members(expected.get("members")), _members(observed.get("members"))
        if exp_m != got_m:
            out.append(("members", sorted(exp_m, key=repr), sorted(got_m, key=repr)))
    return out


def _members(value: Any) -> set[tuple[Any, ...]]:
    if not isinstance(value, list):
        return set()
    return {(m.get("memberId"), m.get("memberEpoch"), repr(_labels(m))) for m in value if isinstance(m, dict)}


def normalize(value: dict[str, Any] | None) -> Any:
    """Record values with every ConnectorsAndTasks as a set (their order means nothing)."""
    if value is None:
        return None
    out: dict[str, Any] = {}
    for name, v in value.items():
        if name.startswith("connectorsAndTasks"):
            found = _resources(v)
            out[name] = sorted(label(x) for x in found) if isinstance(found, frozenset) else found
        elif name in ("members", "connectors") and isinstance(v, list):
            out[name] = sorted(repr(sorted((normalize(m) or {}).items())) for m in v if isinstance(m, dict))
        else:
            out[name] = v
    return out
