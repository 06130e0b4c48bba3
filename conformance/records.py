"""Coordinator records in a trace, checked against the model.

While a group's calls are in the trace, its records are compared with the records the model
wrote for them (in order, target-assignment members matched within their run, as Kafka writes
them in HashMap order). A group known only by its records (a ``__consumer_offsets`` dump) is
replayed into the model and checked against the invariants, as Kafka's own replay checks them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from kgspec.conformance.connect import CONNECT_RECORD_TYPES
from kgspec.conformance.events import Event
from kgspec.conformance.findings import Finding
from kgspec.conformance.invariant_hooks import (
    member_epoch_values,
    member_record_problems,
    record_invariant_problems,
)
from kgspec.conformance.record_values import comparable, with_whole_numbers
from kgspec.conformance.session import GroupSession
from kgspec.conformance.shapes import record_shape_problem
from kgspec.invariants.catalogue import EPOCH_MONOTONICITY, NO_DOUBLE_OWNERSHIP, REPLAY
from kgspec.model.consumer.group import OwnershipConflict
from kgspec.model.consumer.records import CONSUMER_RECORD_TYPES, ReplayError
from kgspec.model.offsets.records import OFFSET_RECORD_TYPES
from kgspec.model.profiles import get_profile
from kgspec.model.record_schemas import key_string_fields
from kgspec.model.records import (
    CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA,
    GROUP_METADATA,
    STREAMS_GROUP_PARTITION_METADATA,
    Record,
)
from kgspec.model.streams.records import STREAMS_RECORD_TYPES

if TYPE_CHECKING:
    from kgspec.conformance.checker import TraceChecker

TARGET_RECORD_TYPES = frozenset({6, 7})  # target-assignment metadata and member
# record type -> the type of group it belongs to (Connect's records aside)
_RECORD_GROUP_TYPES: Final = {**dict.fromkeys(CONSUMER_RECORD_TYPES, "consumer"),
                              **dict.fromkeys(STREAMS_RECORD_TYPES, "streams"), GROUP_METADATA: "classic"}
# record type -> its key's other string fields (the group id is checked first, for every type)
_KEY_STRINGS: Final = {t: key_string_fields(t) for t in _RECORD_GROUP_TYPES}


class RecordChecks:
    """The records of one :class:`~kgspec.conformance.checker.TraceChecker`."""

    def __init__(self, checker: TraceChecker) -> None:
        self.checker = checker

    def record(self, event: Event) -> None:
        if "endTxnMarker" in event.body:
            self.marker(event)
            return
        try:
            record = Record.from_json(event.body)
        except ValueError as exc:
            self.checker.finding(None, Finding(self.checker.path, event.line, event.group_id, "malformed", str(exc), "record"))
            return
        key = record.key  # event.group_id, from the parsed key
        gid = key.get("groupId", key.get("group"))
        if not isinstance(gid, str):
            self.checker.finding(None, Finding(self.checker.path, event.line, None, "malformed",
                                        "record key has no groupId", "record.key.data.groupId"))
            return
        if record.type in CONNECT_RECORD_TYPES:
            g = self.checker.group(gid, "connect")
            g.summary.events += 1
            checked = self._well_shaped(g, event, record)
            if checked is not None:
                self.checker.connect.record(g, event, checked)
            return
        gtype = _RECORD_GROUP_TYPES.get(record.type)
        if record.type == STREAMS_GROUP_PARTITION_METADATA and not get_profile(self.checker.profile).streams_kip_seed_records:
            gtype = None  # the seed's record (kip); Kafka 4.1+ has no type 18: not modelled, as before
        if gtype is None and record.type in OFFSET_RECORD_TYPES:  # offsets: the group's session (conformance/offsets.py)
            g = self.checker.offsets.session(gid)
            gtype = g.summary.type
        if gtype is None:
            g = self.checker.group(gid, "consumer")
            g.summary.events += 1
            g.summary.incomplete = True
            self.checker.finding(g, Finding(self.checker.path, event.line, gid, "unsupported",
                                     f"{record.name} records are not modelled yet", "record.key.type"))
            return
        g = self.checker.group(gid, gtype, from_describe=record.type in OFFSET_RECORD_TYPES)
        g.summary.events += 1
        for name in _KEY_STRINGS.get(record.type, ("topic",)):  # the key schema's strings (the invariants sort member ids)
            value = key.get(name)
            if value is not None and type(value) is not str:
                self.checker.finding(g, Finding(self.checker.path, event.line, gid, "malformed", f"record key {name} must be a string",
                                         f"record.key.data.{name}"))
                return
        # A value Kafka's deserializer refuses (a fraction or Infinity for an int32, a list for a
        # string, a required field left out) is malformed, never handed to the model.
        checked = self._well_shaped(g, event, record)
        if checked is None:
            return
        record = checked
        if not self.checker.advance(g, float(event.ts_ms) if event.ts_ms is not None else 0.0, event.line):  # _ts
            return
        g.saw_records = True
        if g.saw_calls:
            self.compare(g, event, record)
        else:
            self.replay(g, event, record)
            self.checker.bound_members(g, event.line)

    def marker(self, event: Event) -> None:
        """A transaction marker of the log (a dump's control record): every group with offsets
        pending in its producer id ends the transaction (``replayEndTransactionMarker``; a dump is
        one ``__consumer_offsets`` partition, so all of them)."""
        producer, committed = event.body["producerId"], event.body["endTxnMarker"] == "COMMIT"
        ts = float(event.ts_ms) if event.ts_ms is not None else 0.0
        for g in list(self.checker.groups.values()):
            if producer in g.coord.offsets.pending and self.checker.advance(g, ts, event.line):
                g.generation += 1
                g.coord.offsets.end_transaction(producer, committed, lambda _gid: True)

    def _well_shaped(self, g: GroupSession, event: Event, record: Record) -> Record | None:
        """``record``, or the same record with its whole numbers spelled as integers (``5.0`` is
        ``5``: record_values.py); None, reported malformed, when the schema refuses it. Only a
        record the schema refuses is rewritten, so the common case costs one check."""
        shape = record_shape_problem(self.checker.profile, record.type, record.key, record.value, record.version)
        if shape is not None:
            whole = with_whole_numbers(self.checker.profile, record)
            if whole is not record:
                record = whole
                shape = record_shape_problem(self.checker.profile, record.type, record.key, record.value,
                                             record.version)
        if shape is None:
            return record
        self.checker.finding(g, Finding(self.checker.path, event.line, g.summary.group_id, "malformed",
                                        shape[1], shape[0]))
        return None

    def compare(self, g: GroupSession, event: Event, observed: Record) -> None:
        gid = g.summary.group_id
        queue = g.expected_records
        if not queue:
            self.checker.finding(g, Finding(self.checker.path, event.line, gid, "response-mismatch",
                                     f"the trace shows {observed.describe()} but the model writes nothing here",
                                     "record", None, observed.to_json()))
            if observed.type in TARGET_RECORD_TYPES:
                for name, message in g.observed_target.observe(observed):
                    self.checker.finding(g, Finding(self.checker.path, event.line, gid, "invariant", message, name))
            return
        # Kafka writes target-assignment members in HashMap order; match within the run.
        index = 0
        if observed.type == queue[0][1].type and observed.key != queue[0][1].key:
            for i, (_, candidate) in enumerate(queue):
                if candidate.type != observed.type:
                    break
                if candidate.key == observed.key:
                    index = i
                    break
        _, expected = queue[index]
        del queue[index]
        # The same rendering is the same record; only another one needs its by-value normal form.
        same = expected.producer_id == observed.producer_id and (  # a transactional batch's producer
            (expected.type, expected.key, expected.version, expected.value)
            == (observed.type, observed.key, observed.version, observed.value)
            or comparable(self.checker.profile, expected) == comparable(self.checker.profile, observed))
        if not same:
            self.checker.finding(g, Finding(self.checker.path, event.line, gid, "response-mismatch",
                                     f"expected {expected.describe()}, the trace shows {observed.describe()}",
                                     "record", expected.to_json(), observed.to_json()))
        if observed.type in TARGET_RECORD_TYPES:
            for name, message in g.observed_target.observe(observed):
                self.checker.finding(g, Finding(self.checker.path, event.line, gid, "invariant", message, name))

    def replay(self, g: GroupSession, event: Event, record: Record) -> None:
        gid = g.summary.group_id
        rtype = record.type
        member_id = record.key.get("memberId") if rtype == CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT else None
        epochs_before = member_epoch_values(g.coord, gid, member_id) \
            if isinstance(member_id, str) and record.value is not None and g.saw_target_metadata else None
        g.generation += 1
        try:
            g.coord.replay(record)
        except OwnershipConflict as exc:
            self.checker.finding(g, Finding(self.checker.path, event.line, gid, "invariant", str(exc), NO_DOUBLE_OWNERSHIP))
            return
        except ReplayError as exc:  # the shape was checked first: anything else is a bug, raised
            self.checker.finding(g, Finding(self.checker.path, event.line, gid, "invariant",
                                     f"Kafka's replay would reject {record.describe()}: {exc}", REPLAY))
            return
        problems = record_invariant_problems(g.coord, gid, record) \
            if rtype == CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA else []  # the only one it checks
        if rtype == GROUP_METADATA:
            problems += self.checker.classic.record(g, record)
        if epochs_before is not None:
            assert isinstance(member_id, str)
            problems += member_record_problems(epochs_before, g.coord, gid, member_id)
        # The epochs the records themselves show (invariants/record_epochs.py); the consumer's
        # model-based check above may have named the same departure already.
        shown = g.record_epochs.observe(record)
        if shown and not any(name == EPOCH_MONOTONICITY for name, _ in problems):
            problems += shown
        if rtype == CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA and record.value is not None:
            g.saw_target_metadata = True
        for name, message in problems:
            self.checker.finding(g, Finding(self.checker.path, event.line, gid, "invariant", message, name))
        if rtype in STREAMS_RECORD_TYPES:
            for name, message in g.streams_state.problems(g.coord.streams_groups.get(gid), record, g.generation):
                self.checker.finding(g, Finding(self.checker.path, event.line, gid, "invariant", message, name))
