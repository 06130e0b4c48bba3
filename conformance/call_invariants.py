"""Which protocol invariant an observed heartbeat response breaks, read against the model.

A departing response is first a ``response-mismatch``. When the group had conformed up to
this call, the model's state is what the trace has shown so far, so the checker can also
say which invariant the observed answer breaks, by the same names record replay uses
(``invariants/``): a partition given to a member while another member still owns it
(assigned or pending revocation) is ``no-double-ownership``; a heartbeat accepted with
an epoch Kafka fences is ``epoch-fencing``; a member's epoch moved while it enters
UNREVOKED_PARTITIONS is ``epoch-monotonicity``. This lets a request log name the invariant a
dump-log of the same run names.
"""

from __future__ import annotations

from typing import Any

from kgspec.conformance.compare import assignment_set
from kgspec.invariants.catalogue import EPOCH_FENCING, EPOCH_MONOTONICITY, NO_DOUBLE_OWNERSHIP
from kgspec.invariants.epochs import EpochSnapshot, epoch_fencing, epoch_monotonicity
from kgspec.invariants.exclusivity import shared
from kgspec.model.consumer.group import ConsumerGroup


def observed_call_problems(group: ConsumerGroup | None, member_id: str, request: dict[str, Any],
                           observed: dict[str, Any]) -> list[tuple[str, str]]:
    """(invariant, message) for each invariant the observed response breaks; ``group`` as before the call."""
    if group is None or observed.get("errorCode", 0) != 0:
        return []
    problems = [(EPOCH_FENCING, m) for m in epoch_fencing(group.members.get(member_id), request, observed)]
    mid = observed.get("memberId") or member_id
    given = assignment_set(observed.get("assignment")) or frozenset()
    if not given:
        return problems
    # no-double-ownership's rule (exclusivity.shared) over the member's new assignment and what
    # the other members hold (assigned or pending revocation)
    held = ((other_id, (topic_id, p)) for other_id, other in sorted(group.members.items()) if other_id != mid
            for holding in (other.assigned, other.pending_revocation) for topic_id, parts in holding.items()
            for p in parts if (topic_id, p) in given)
    owners = shared([*((mid, tp) for tp in sorted(given)), *held])
    for (topic_id, partition), holders in sorted(owners.items()):
        problems += [(NO_DOUBLE_OWNERSHIP, f"member {mid} is given {topic_id}-{partition} while member {other_id} "
                                           "still owns it") for other_id in holders[1:]]
    return problems


def observed_epoch_problems(before: EpochSnapshot | None, group: ConsumerGroup | None, member_id: str,
                            observed: dict[str, Any]) -> list[tuple[str, str]]:
    """``epoch-monotonicity`` of the member the model holds after the call, at the observed epoch.

    ``before``: the member's epochs before the call; ``group``: the model's group after it. A
    response that moves the epoch of a member the model has entering UNREVOKED_PARTITIONS (its
    revocations still pending) is the epoch rule a dump-log shows broken in the member's record.
    """
    epoch = observed.get("memberEpoch")
    mid = observed.get("memberId") or member_id
    if before is None or group is None or observed.get("errorCode", 0) != 0 or type(epoch) is not int:
        return []
    member = group.members.get(mid)
    if member is None or mid not in before.members:
        return []
    after = EpochSnapshot(group.group_epoch, group.assignment_epoch, {mid: (epoch, member.state)})
    return [(EPOCH_MONOTONICITY, m) for m in epoch_monotonicity(before, after)]
