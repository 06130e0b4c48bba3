"""The group state is derived, never set."""

from __future__ import annotations

from kgspec.model.consumer.group import ConsumerGroup
from kgspec.spec.groups import derive_consumer_group_state


def state_derivation(group: ConsumerGroup) -> list[str]:
    """State derivation.

    The group's state equals Kafka's ``ConsumerGroup.maybeUpdateGroupState`` applied to its
    members, group epoch, assignment epoch and whether every member is reconciled to the
    assignment epoch (STABLE at memberEpoch == assignmentEpoch); the model's index of
    unreconciled members agrees with that definition.
    """
    unreconciled = {mid for mid, m in group.members.items()
                    if not m.is_reconciled_to(group.assignment_epoch)}
    expected = derive_consumer_group_state(len(group.members), group.group_epoch,
                                           group.assignment_epoch, not unreconciled)
    problems: list[str] = []
    if group.state.upper() != expected:
        problems.append(f"group state is {group.state}, derivation gives {expected}")
    if group.unreconciled != unreconciled:
        problems.append(f"unreconciled index {sorted(group.unreconciled)} differs from "
                        f"{sorted(unreconciled)}")
    return problems
