"""Classic Connect group -> the Connect draft's group (profile ``kip`` only).

Seed 001, "Migration To the New Protocol": "When the first worker that supports the new
protocol joins the group, the group is converted from generic to connect … Note that the group
epoch starts at the current group generation." The section stops there ("<Need to add more
details>"); what it leaves open is decided as Kafka's consumer-group upgrade
(``model/migration/upgrade.py``) does it and listed in docs/kip.md:

- a joining ConnectGroupHeartbeat (epoch 0) to a classic group converts it; any other epoch is
  GROUP_ID_NOT_FOUND (the draft's type clash); an EMPTY classic group is deleted (its tombstone)
  and the draft's group is created as for an unknown id;
- the classic group must use protocol type ``connect`` and every member's protocols must parse
  (:mod:`kgspec.model.migration.connect_protocol`), else GROUP_ID_NOT_FOUND;
- each classic worker becomes a STABLE worker at the generation holding its current connectors and
  tasks: with ``default`` (eager) the last SyncGroup assignment; with ``compatible`` /
  ``sessioned`` the allocation its JoinGroup reported, minus the assignment's ``revoked``, plus
  its ``assignment`` (an incremental cooperative leader sends only the changes);
- its protocols become one client assignor :data:`CLASSIC_ASSIGNOR` whose version range spans its
  protocols' versions (the draft: "Version … between 0-2 i.e EAGER, COMPATIBLE and SESSIONED"),
  at the version of its first protocol;
- records: the GroupMetadata tombstone; 1001 (the connectors and tasks the workers hold: the
  coordinator knows no other configuration yet); 1002 per worker with ``classicMemberMetadata``;
  1000 (epoch = the generation); 1003 (assignment epoch = the generation, each worker's holdings);
  1004 per worker (STABLE, epoch = previous epoch = the generation); workers in member id order;
- parked JoinGroup / SyncGroup calls are answered REBALANCE_IN_PROGRESS; each worker's session
  timer is armed with its classic session timeout;
- the conversion and the join are one step: a joining worker whose assignors overlap no converted
  worker's is refused (UNSUPPORTED_ASSIGNOR) before anything is written.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from kgspec.model.classic.group import ClassicGroup
from kgspec.model.classic.member import EMPTY_ASSIGNMENT, ClassicMember
from kgspec.model.classic.records import group_metadata_tombstone
from kgspec.model.connect import ops as connect_ops
from kgspec.model.connect import records as crec
from kgspec.model.connect.group import TargetEntry, overlaps_everyone
from kgspec.model.connect.member import STABLE, Assignor, ConnectMember
from kgspec.model.connect.resources import Resources, from_items, items, label, to_holdings
from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.migration import members as mm
from kgspec.model.migration.connect_protocol import (
    CONNECT_PROTOCOL_TYPE,
    decode_connect_assignment,
    decode_worker_state,
    protocol_version,
)
from kgspec.model.migration.protocol import SchemaError
from kgspec.model.migration.upgrade import Effects, fail_parked_calls
from kgspec.model.records import Record
from kgspec.spec.classic import EMPTY

if TYPE_CHECKING:
    from kgspec.model.coordinator import Coordinator

# kgspec's name for the assignor a classic worker's protocols translate to (the draft names none;
# the case-study goldens' workers use it too, so old and new workers share one assignor).
CLASSIC_ASSIGNOR = "incremental"


def _cannot(gid: str, why: str) -> CoordinatorError:
    return CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Cannot upgrade classic group {gid} to connect group "
                            f"because {why}.")


def translate_assignor(protocols: tuple[tuple[str, str], ...]) -> Assignor:
    """A classic worker's JoinGroup protocols as the draft's ClientAssignors entry."""
    versions = [protocol_version(name) for name, _ in protocols]
    if not versions:
        raise SchemaError("no protocols")
    return Assignor(CLASSIC_ASSIGNOR, min(versions), max(versions), 0, versions[0], None)


def owned_at_join(protocols: tuple[tuple[str, str], ...]) -> Resources:
    """What the worker says it holds in its first protocol's metadata (v0: nothing: an eager
    worker revokes everything before it rejoins)."""
    state = decode_worker_state(protocols[0][1])
    return state.allocation if state.allocation is not None else from_items([])


def current_holdings(cm: ClassicMember, protocol_name: str | None) -> Resources:
    """The connectors and tasks a classic worker runs after its last SyncGroup."""
    name = protocol_name or cm.protocols[0][0]
    metadata = cm.metadata(name)
    if cm.assignment == EMPTY_ASSIGNMENT:
        state = decode_worker_state(metadata)
        return state.allocation if state.allocation is not None else from_items([])
    assignment = decode_connect_assignment(cm.assignment)
    if protocol_version(name) == 0:
        return assignment.assigned
    state = decode_worker_state(metadata)
    before = items(state.allocation) if state.allocation is not None else set()
    return from_items((before - items(assignment.revoked)) | items(assignment.assigned))


def group_records_for_join(coord: Coordinator, classic: ClassicGroup, joining: ConnectMember, epoch: int,
                           effects: Effects, now: int) -> list[Record]:
    """The records a joining heartbeat of ``joining`` (its id and assignors) writes before it
    joins the group ``classic`` held."""
    gid = classic.group_id
    if epoch != 0:
        raise CoordinatorError(Errors.GROUP_ID_NOT_FOUND, f"Group {gid} is not a connect group.")
    if classic.state == EMPTY:
        return [group_metadata_tombstone(gid)]  # deleted: the draft's group is created as for a new id
    return convert(coord, classic, joining, effects, now)


def convert(coord: Coordinator, classic: ClassicGroup, joining: ConnectMember, effects: Effects,
            now: int) -> list[Record]:
    gid = classic.group_id
    if classic.protocol_type != CONNECT_PROTOCOL_TYPE:
        raise _cannot(gid, "the group does not use the connect protocol type")
    generation = classic.generation_id
    workers: list[ConnectMember] = []
    for cm in sorted(classic.members.values(), key=lambda m: m.member_id):
        try:
            assignor = translate_assignor(cm.protocols)
            held = current_holdings(cm, classic.protocol_name)
        except (SchemaError, ValueError):
            raise _cannot(gid, "the embedded connect protocol is malformed") from None
        workers.append(ConnectMember(
            cm.member_id, joined_epoch=generation, member_epoch=generation, previous_member_epoch=generation,
            state=STABLE, instance_id=cm.instance_id, client_id=cm.client_id, client_host=cm.client_host,
            rebalance_timeout_ms=cm.rebalance_timeout_ms, assignors=(assignor,), assigned=to_holdings(held),
            version=assignor.version,
            classic_member_metadata=mm.classic_metadata(cm.session_timeout_ms, cm.protocols)))
    counts = Counter(x for w in workers for x in items(w.assigned_resources()))
    twice = sorted(label(x) for x, n in counts.items() if n > 1)
    if twice:
        raise _cannot(gid, f"{twice} are held by more than one worker")
    # The join that follows must succeed, or the conversion would stand without it (Kafka's
    # heartbeat is atomic): its one possible refusal is checked first.
    if not overlaps_everyone(joining, [w for w in workers if w.member_id != joining.member_id]):
        raise CoordinatorError(Errors.UNSUPPORTED_ASSIGNOR,
                               "The ClientAssignors' version ranges do not overlap with the other members'.")
    config = from_items(counts)
    members = list(classic.members.values())  # HashMap order: the order the futures complete in
    effects.append(lambda: fail_parked_calls(coord, classic, members, now))
    records = [group_metadata_tombstone(gid), crec.connectors_tasks_record(gid, config)]
    records += [crec.member_metadata_record(gid, w) for w in workers]
    records.append(crec.group_metadata_record(gid, generation))
    target = {w.member_id: TargetEntry(w.assigned_resources(), 0, w.version, None) for w in workers}
    records.append(crec.target_record(gid, generation, 0, -1, target))
    records += [crec.current_assignment_record(gid, w) for w in workers]
    effects.extend(_session(coord, gid, w.member_id, now) for w in workers)
    return records


def _session(coord: Coordinator, gid: str, member_id: str, now: int) -> Callable[[], None]:
    return lambda: connect_ops.schedule_session(coord, gid, member_id, now)
