"""commit-fencing, executable: an accepted OffsetCommit names only what its member held.

The Z3 encoding (``invariants/symbolic/invariants.py: commit_fencing``) proves that a request a
client sent at its member's current epoch names only tasks the member still holds, because a
task leaves a member only with an epoch bump. This is its twin on a concrete state and one
commit: for every partition the coordinator accepted (error NONE) from a member of a consumer
or streams group (a member id and an epoch >= 0), the member must exist, the epoch must not be
newer than the member's, and the member must hold the partition (consumer: assigned or pending
revocation; streams: the active task of the source topic's subtopology) at an assignment epoch
not above the committed one (KIP-1251's epochs, where the profile keeps them). A commit from a
zombie (a fenced member, or one that has lost the partition) that is accepted is a finding.
Kafka's consumer groups accept any partition at the member's current epoch
(``Profile.consumer_commit_current_epoch_unchecked``); a partition can leave a consumer member
without an epoch bump, so that is weaker than the invariant (docs/upstream.md, finding 2) and is
not judged under the Kafka profiles.
Commits with epoch < 0 (admin, manual assignment) and classic groups are not judged here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kgspec.invariants.catalogue import COMMIT_FENCING
from kgspec.model.streams.commits import source_topic_map
from kgspec.model.streams.member import ACTIVE

if TYPE_CHECKING:
    from kgspec.model.consumer.member import ConsumerMember
    from kgspec.model.coordinator import Coordinator
    from kgspec.model.streams.member import StreamsMember


def _held_epoch(holdings: list[Mapping[Any, Mapping[int, int]]], key: Any, partition: int) -> int | None:
    for h in holdings:
        epoch = h.get(key, {}).get(partition)
        if epoch is not None:
            return epoch
    return None


def _unfit(group_id: str, member_id: str, epoch: int, member: ConsumerMember | StreamsMember | None) -> str:
    """Why no commit of ``member_id`` at ``epoch`` may be accepted: it is no member, or the epoch
    is newer than its own (a consumer's or a streams member's alike)."""
    if member is None:
        return f"an OffsetCommit from {member_id}, not a member of group {group_id}, was accepted"
    return f"an OffsetCommit at epoch {epoch}, newer than member {member_id}'s {member.member_epoch}, was accepted"


def commit_fencing(coord: Coordinator, group_id: str, member_id: str, epoch: int,
                   accepted: list[tuple[str, int]]) -> list[str]:
    """The accepted (topic name, partition) pairs of one commit that its member did not hold at
    ``epoch``, in words (the state is the coordinator's before the commit)."""
    if epoch < 0 or not member_id or not accepted:
        return []
    group = coord.groups.get(group_id)
    if group is not None:
        per_partition = coord.profile.per_partition_assignment_epochs
        cmember = group.members.get(member_id)
        if cmember is None or epoch > cmember.member_epoch:
            return [_unfit(group_id, member_id, epoch, cmember)]
        if epoch == cmember.member_epoch and coord.profile.consumer_commit_current_epoch_unchecked:
            # Kafka's rule, not a guarantee: it accepts any partition at the current epoch, which is
            # weaker than commit-fencing (docs/upstream.md, finding 2; tests/golden/offsets/commit_fencing.jsonl).
            return []
        out = []
        for topic, partition in accepted:
            topic_id = coord.topics.id_of(topic)
            held = _held_epoch([cmember.assigned, cmember.pending_revocation], topic_id, partition)
            if held is None or (per_partition and epoch < held):
                out.append(f"member {member_id} committed {topic}-{partition} at epoch {epoch} and was accepted, "
                           "but " + ("does not hold it" if held is None else f"holds it only since epoch {held}"))
        return out
    sgroup = coord.streams_groups.get(group_id)
    if sgroup is None:
        return []
    smember = sgroup.members.get(member_id)
    if smember is None or epoch > smember.member_epoch:
        return [_unfit(group_id, member_id, epoch, smember)]
    source = source_topic_map(sgroup.topology) if sgroup.topology is not None else {}
    out = []
    for topic, partition in accepted:
        sid = source.get(topic)
        held = None if sid is None else _held_epoch(
            [smember.assigned.get(ACTIVE, {}), smember.pending_revocation.get(ACTIVE, {})], sid, partition)
        if held is None or (coord.profile.streams_commit_task_epochs and epoch < held):
            out.append(f"member {member_id} committed {topic}-{partition} at epoch {epoch} and was accepted, but "
                       + ("does not hold its active task" if held is None else f"holds its task only since epoch {held}"))
    return out


def commit_fencing_problems(coord: Coordinator, group_id: str, request: Mapping[str, Any],
                            observed: Mapping[tuple[Any, Any], Mapping[str, Any]], version: int) -> list[tuple[str, str]]:
    """commit-fencing for one observed OffsetCommit (the checker's adapter): ``observed`` is the
    response's partitions by (topic name, or id from v10, partition)."""
    member_id = request.get("memberId") or ""
    epoch = request.get("generationIdOrMemberEpoch", -1)
    if type(epoch) is not int:
        return []
    accepted: list[tuple[str, int]] = []
    for (key, partition), entry in observed.items():
        if entry.get("errorCode", 0) != 0 or type(partition) is not int:
            continue
        name = coord.topics.name_of(key) if version >= 10 else key
        if isinstance(name, str):
            accepted.append((name, partition))
    return [(COMMIT_FENCING, m) for m in commit_fencing(coord, group_id, member_id, epoch, accepted)]
