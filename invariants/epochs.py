"""Epoch invariants: over one state, over two successive states, and over one call."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kgspec.invariants.catalogue import (
    EPOCH_FENCING as EPOCH_FENCING,  # re-exported: conformance/streams.py
)
from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.consumer.heartbeat import parse_owned
from kgspec.model.consumer.member import (
    LEAVE_GROUP_STATIC_MEMBER_EPOCH,
    STATE_NAMES,
    UNREVOKED_PARTITIONS,
    ConsumerMember,
)


@dataclass(frozen=True, slots=True)
class EpochSnapshot:
    """What the stateful epoch checks remember of a group between two steps."""

    group_epoch: int
    assignment_epoch: int
    members: Mapping[str, tuple[int, int]]  # member id -> (member epoch, MemberState code)


# An EpochSnapshot's fields as a plain tuple: (group epoch, assignment epoch, members)
Epochs = tuple[int, int, Mapping[str, tuple[int, int]]]


def snapshot_epochs(group: ConsumerGroup | None) -> EpochSnapshot | None:
    if group is None:
        return None
    return EpochSnapshot(group.group_epoch, group.assignment_epoch,
                         {mid: (m.member_epoch, m.state) for mid, m in group.members.items()})


def epoch_monotonicity(previous: EpochSnapshot | None, current: EpochSnapshot) -> list[str]:
    """Epoch monotonicity.

    Within one state: assignment epoch ≤ group epoch, and no member runs ahead of the
    assignment epoch. Between two successive states: the group epoch never decreases; the
    assignment epoch never decreases (except to -1 when the group is deleted); a member's
    epoch never decreases except when it leaves temporarily (static member, epoch -2) or
    rejoins (it was absent from the previous state); and a member entering
    UNREVOKED_PARTITIONS keeps the epoch it had — its epoch moves to the target only once
    it has nothing left to revoke (KIP-848).
    """
    return epoch_changes(
        None if previous is None else (previous.group_epoch, previous.assignment_epoch, previous.members),
        (current.group_epoch, current.assignment_epoch, current.members))


def epoch_changes(previous: Epochs | None, current: Epochs) -> list[str]:
    """:func:`epoch_monotonicity` of two states given as plain tuples (no snapshot to build:
    record replay checks one member at every current-assignment record)."""
    group_epoch, assignment_epoch, members = current
    problems: list[str] = []
    if assignment_epoch > group_epoch:
        problems.append(f"assignment epoch {assignment_epoch} is ahead of group epoch {group_epoch}")
    for mid, (epoch, _state) in members.items():
        if epoch > assignment_epoch:
            problems.append(f"member {mid} at epoch {epoch} runs ahead of the assignment epoch "
                            f"{assignment_epoch}")
    if previous is None:
        return problems
    previous_group_epoch, previous_assignment_epoch, previous_members = previous
    if group_epoch < previous_group_epoch:
        problems.append(f"group epoch went back from {previous_group_epoch} to {group_epoch}")
    if assignment_epoch < previous_assignment_epoch and assignment_epoch != -1:
        problems.append(f"assignment epoch went back from {previous_assignment_epoch} to {assignment_epoch}")
    for mid, (epoch, state) in members.items():
        before = previous_members.get(mid)
        if before is None:
            continue
        old_epoch, old_state = before
        if epoch < old_epoch and epoch != LEAVE_GROUP_STATIC_MEMBER_EPOCH:
            problems.append(f"member {mid}'s epoch went back from {old_epoch} to {epoch}")
        if state == UNREVOKED_PARTITIONS and old_state != UNREVOKED_PARTITIONS and epoch != old_epoch:
            problems.append(f"member {mid} moved from epoch {old_epoch} to {epoch} while entering "
                            f"UNREVOKED_PARTITIONS (was {STATE_NAMES.get(old_state, old_state)})")
    return problems


def accepted_epoch_problems(member_id: str, current: int, previous: int, request: Mapping[str, Any],
                            response: Mapping[str, Any],
                            lost_response_problem: Callable[[int], str | None]) -> list[str]:
    """The epoch rule of a heartbeat, the same for consumer and streams members.

    A successful heartbeat with memberEpoch > 0 carries the member's ``current`` epoch, or
    exactly its ``previous`` epoch (a response may have been lost) when what it reports
    owning passes ``lost_response_problem`` (None: it does; else the problem).
    """
    epoch = request.get("memberEpoch", 0)
    if not isinstance(epoch, int) or epoch <= 0 or response.get("errorCode") != 0:
        return []
    if epoch > current:
        return [f"member {member_id} was accepted with epoch {epoch}, ahead of its epoch {current}"]
    if epoch == current:
        return []
    if epoch != previous:
        return [f"member {member_id} was accepted with stale epoch {epoch} (current {current}, "
                f"previous {previous})"]
    problem = lost_response_problem(epoch)
    return [problem] if problem is not None else []


def epoch_fencing(before: ConsumerMember | None, request: Mapping[str, Any],
                  response: Mapping[str, Any]) -> list[str]:
    """Epoch fencing (``throwIfConsumerGroupMemberEpochIsInvalid``).

    A ConsumerGroupHeartbeat with memberEpoch > 0 from a known member succeeds only if its
    epoch is the member's current epoch, or — a response may have been lost — exactly
    the member's previous epoch with reported owned partitions that are a subset of the
    member's assigned ones. ``before`` is the member as stored before the call.

    An independent statement of the rule, not a call of the model's check
    (``model/consumer/heartbeat.py``): only the request's owned partitions are decoded
    with the model's :func:`parse_owned`.
    """
    if before is None:
        return []
    mid = before.member_id

    def owned_problem(epoch: int) -> str | None:
        owned = parse_owned(request)
        if owned is None:
            return (f"member {mid} was accepted with its previous epoch {epoch} without reporting "
                    f"its owned partitions")
        extra = sorted(f"{t}-{p}" for t, parts in owned.items() for p in parts
                       if p not in before.assigned.get(t, {}))
        if extra:
            return (f"member {mid} was accepted with its previous epoch {epoch} while reporting "
                    f"{', '.join(extra)}, which it is not assigned")
        return None

    return accepted_epoch_problems(mid, before.member_epoch, before.previous_member_epoch, request,
                                   response, owned_problem)
