"""kip, seed 004: where the classic protocol lets the coordinator choose, the trace's choice is legal.

The seed: "the coordinator randomly selects a leader from the group", and for the protocol: "if
all members list protocol "a" before protocol "b," then the coordinator will choose "a." If there
is no agreement in terms of preference among the protocols which all members support, then one is
chosen randomly." Kafka picks the leader that joined first (kept while it rejoins) and breaks
protocol ties by a vote in HashMap order; both are legal picks here.

The legal protocols are those every member supports that no other such protocol precedes in
every member's list. A checker notes the leader and protocol a trace shows for a generation
(``note``) before the call that may complete it; ``complete_join`` takes them when they are legal
(``leader_choice`` / ``protocol_choice``), else the model's own pick stands.
"""

from __future__ import annotations

from kgspec.model.classic.group import ClassicGroup


def legal_protocols(group: ClassicGroup) -> set[str]:
    n = len(group.members)
    candidates = {p for p, c in group.supported_protocols.items() if c == n}
    ranks = [{name: i for i, (name, _) in enumerate(m.protocols)} for m in group.members.values()]

    def dominated(x: str) -> bool:
        return any(all(r[y] < r[x] for r in ranks) for y in candidates if y != x)

    return {x for x in candidates if not dominated(x)}


def note(group: ClassicGroup, generation: int, leader: object, protocol: object) -> None:
    """The leader and protocol a trace shows for ``generation`` (kept until that generation forms)."""
    if isinstance(leader, str) and isinstance(protocol, str):
        group.seed_choice = (generation, leader, protocol)


def leader_choice(group: ClassicGroup) -> str | None:
    """The noted leader for the generation being formed, if it is a member awaiting its join."""
    choice = group.seed_choice
    if choice is None or choice[0] != group.generation_id + 1:
        return None
    member = group.members.get(choice[1])
    return choice[1] if member is not None and member.awaiting_join else None


def protocol_choice(group: ClassicGroup) -> str | None:
    """The noted protocol for the generation just formed, if the seed allows it."""
    choice = group.seed_choice
    if choice is None or choice[0] != group.generation_id:
        return None
    return choice[2] if choice[2] in legal_protocols(group) else None
