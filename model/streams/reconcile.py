"""Streams ``CurrentAssignmentBuilder`` (``streams/CurrentAssignmentBuilder.java``) on the shared engine.

Three roles (active, standby, warm-up) go through :func:`kgspec.model.reconcile.split_towards_target`
and :func:`kgspec.model.reconcile.decide`; streams supplies only its ownership rules, which are
about *processes*, not members:

* an active task is unreleased while any process still holds it as active, or the member's own
  process holds it as standby or warm-up;
* a standby or warm-up task is unreleased while the member's own process holds it in any role.

Leaving UNREVOKED_TASKS moves the member to ``memberEpoch + 1`` before reconciling on (4.3 and
trunk: the streams builder never got KAFKA-19974).

Trunk (``profile.streams_in_place_role_changes``, KAFKA-20665 #22923/#22981) changes a task's role
on the same member without revoke-then-assign: the member's *own* standby/warm-up no longer
blocks its promotion to active (nor its own active a demotion to standby), an active task
demoted to standby is granted as standby at once (the active stays pending revocation),
standby and warm-up convert into each other at once without an ack, and a standby/warm-up
promoted to active is kept until the active task is granted (:data:`TRUNK_ROLE_CHANGES`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kgspec.model.errors import CoordinatorError, Errors
from kgspec.model.mutants import NONE, Mutants
from kgspec.model.reconcile import (
    PHASE_TRIGGERS,
    RoleChange,
    apply_role_changes,
    decide,
    owns_any_of,
    split_towards_target,
)
from kgspec.model.streams.group import StreamsGroup
from kgspec.model.streams.member import (
    ACTIVE,
    ROLES,
    STABLE,
    STANDBY,
    STATE_CODES,
    UNRELEASED_TASKS,
    UNREVOKED_TASKS,
    WARMUP,
    StreamsMember,
    TaskSets,
    normalize,
)
from kgspec.spec.tables import fire

MACHINE = "streams-member"  # every member state change goes through its table (spec/members.py)

OwnedTasks = Mapping[str, Mapping[str, frozenset[int]]]  # role -> subtopology -> partitions

# CurrentAssignmentBuilder.computeNextAssignment on trunk, in its order.
TRUNK_ROLE_CHANGES: tuple[RoleChange, ...] = (
    RoleChange(ACTIVE, STANDBY, source_needs_no_ack=False, wait_for_grant=False),  # demoteActiveTasksToStandby
    RoleChange(STANDBY, WARMUP, source_needs_no_ack=True, wait_for_grant=False),  # convertReplicaRole
    RoleChange(WARMUP, STANDBY, source_needs_no_ack=True, wait_for_grant=False),  # convertReplicaRole
    RoleChange(STANDBY, ACTIVE, source_needs_no_ack=True, wait_for_grant=True),  # applyPromotionsToActive
    RoleChange(WARMUP, ACTIVE, source_needs_no_ack=True, wait_for_grant=True),
)


def build_current_assignment(group: StreamsGroup, member: StreamsMember, target_epoch: int,
                             target: TaskSets, owned: OwnedTasks | None,
                             mutants: Mutants = NONE, *, in_place: bool = False, seed: bool = False) -> StreamsMember:
    """``CurrentAssignmentBuilder.build()``; ``in_place`` selects trunk's role changes, ``seed``
    the kip rules of seed 002 "Reconciliation of the group" (:func:`_seed_unreleased`)."""
    owns = owns_any_of(owned)
    state, epoch = member.state, member.member_epoch
    if state == STABLE:
        if epoch != target_epoch:
            return _next(group, member, epoch, target_epoch, target, owned, mutants, in_place, seed)
        return member
    if state == UNREVOKED_TASKS:
        if owned is None or owns(member.pending_revocation):
            return member
        return _next(group, member, epoch + 1, target_epoch, target, owned, mutants, in_place, seed)
    if state == UNRELEASED_TASKS:
        return _next(group, member, epoch, target_epoch, target, owned, mutants, in_place, seed)
    if owned is None or any(p for tasks in owned.values() for p in tasks.values()):
        raise CoordinatorError(Errors.FENCED_MEMBER_EPOCH,
                               "The streams group member is in a unknown state. "
                               "The member must abandon all its tasks and rejoin.")
    return _next(group, member, target_epoch, target_epoch, target, owned, mutants, in_place, seed)


def _next(group: StreamsGroup, member: StreamsMember, member_epoch: int, target_epoch: int,
          target: TaskSets, owned: OwnedTasks | None, mutants: Mutants, in_place: bool,
          seed: bool = False) -> StreamsMember:
    pid = member.process_id
    ignore_pending = mutants.active("grant-before-ack")
    current = normalize(member.assigned)

    def own(role: str, sid: str, p: int) -> bool:
        return p in current.get(role, {}).get(sid, {})

    pending = normalize(member.pending_revocation)

    def held(role: str, sid: str, p: int) -> bool:  # by this member, assigned or pending revocation
        return own(role, sid, p) or p in pending.get(role, {}).get(sid, {})

    def released(role: str, sid: str, p: int) -> bool:  # pending revocation, confirmed by this request
        return (p in pending.get(role, {}).get(sid, {}) and owned is not None
                and p not in owned.get(role, {}).get(sid, frozenset()))

    def is_unreleased(role: str, sid: str, p: int) -> bool:
        if ignore_pending:
            # Mutant: only what other members hold *as assigned* counts; tasks still pending
            # revocation elsewhere look free.
            return _held_as_assigned(group, member, role, sid, p)
        if seed:
            return _seed_unreleased(group, pid, role, sid, p, held, released)
        if in_place:
            # isUnreleased{Active,Standby,Warmup}Task (trunk): the member's own holding of the task
            # in another role is a candidate for an in-place change, not a blocker.
            active_here = group.current_active_process(sid, p) == pid
            standby_elsewhere = pid in group.current_standby_processes(sid, p) and not own(STANDBY, sid, p)
            warmup_elsewhere = pid in group.current_warmup_processes(sid, p) and not own(WARMUP, sid, p)
            if role == ACTIVE:
                return group.current_active_process(sid, p) is not None or standby_elsewhere or warmup_elsewhere
            if role == STANDBY:
                return ((active_here and not own(ACTIVE, sid, p)) or pid in group.current_standby_processes(sid, p)
                        or warmup_elsewhere)
            return active_here or standby_elsewhere or pid in group.current_warmup_processes(sid, p)
        if role == ACTIVE:
            return (group.current_active_process(sid, p) is not None
                    or pid in group.current_standby_processes(sid, p)
                    or pid in group.current_warmup_processes(sid, p))
        return (group.current_active_process(sid, p) == pid
                or pid in group.current_standby_processes(sid, p)
                or pid in group.current_warmup_processes(sid, p))

    split = split_towards_target(ROLES, current, target, in_scope=lambda _r, _s: True, is_unreleased=is_unreleased)
    if in_place:
        apply_role_changes(split, current, target, TRUNK_ROLE_CHANGES, owns_any_of(owned), target_epoch)
    outcome = decide(split, member_epoch, target_epoch, owns_any_of(owned),
                     epoch_while_revoking=target_epoch if mutants.active("bump-while-revoking") else None)
    updated = member.copy()
    updated.state = STATE_CODES[fire(MACHINE, group.lifecycle_state(member), PHASE_TRIGGERS[outcome.phase])]
    updated.previous_member_epoch = member.member_epoch
    updated.member_epoch = outcome.member_epoch
    updated.assigned = normalize(outcome.assigned)
    updated.pending_revocation = normalize(outcome.pending_revocation)
    return updated


def _seed_unreleased(group: StreamsGroup, pid: str, role: str, sid: str, p: int,
                     held: Callable[[str, str, int], bool], released: Callable[[str, str, int], bool]) -> bool:
    """kip, seed 002 "Reconciliation of the group". An active task "is assigned as soon as no other
    client owns it anymore": the member's *own* standby or warm-up of it does not block (Kafka 4.3's
    does); another member of its process holding it in any role still does, as the seed's "A stateful
    task (in the various roles) cannot be assigned to two clients with the same processId" requires.
    A standby or warm-up "await[s] that any member with the same processId owning that task (as
    active or standby) confirms revocation", the member itself included (no in-place role change;
    a revocation confirmed by this very request counts); a warm-up held in the process blocks too,
    for the same invariant (docs/kip.md)."""
    if role == ACTIVE:
        return ((group.current_active_process(sid, p) is not None and not released(ACTIVE, sid, p))
                or (pid in group.current_standby_processes(sid, p) and not held(STANDBY, sid, p))
                or (pid in group.current_warmup_processes(sid, p) and not held(WARMUP, sid, p)))
    return ((group.current_active_process(sid, p) == pid and not released(ACTIVE, sid, p))
            or (pid in group.current_standby_processes(sid, p) and not released(STANDBY, sid, p))
            or (pid in group.current_warmup_processes(sid, p) and not released(WARMUP, sid, p)))


def _held_as_assigned(group: StreamsGroup, member: StreamsMember, role: str, sid: str, p: int) -> bool:
    for other in group.members.values():
        if other.member_id == member.member_id:
            continue
        if role == ACTIVE and p in other.assigned.get(ACTIVE, {}).get(sid, {}):
            return True
        if role != ACTIVE and other.process_id == member.process_id and any(
                p in other.assigned.get(r, {}).get(sid, {}) for r in ROLES):
            return True
    return False
