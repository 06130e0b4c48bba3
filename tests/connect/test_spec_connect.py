"""The model moves Connect groups and workers only along the declared machines (spec/connect.py)."""

from __future__ import annotations

import pytest
from kgspec.model.connect.member import STATE_NAMES
from kgspec.model.records import Record
from kgspec.spec.tables import table

from tests.connect.scenarios import SCENARIOS


def _edges(name: str) -> set[tuple[str, str]]:
    return {(src, dest) for (src, _), dest in table(name).edges.items()}


# The group edges each case study walks (its records applied call by call).
GROUP_EDGES_WALKED = {
    "empty_group_and_two_workers": {("EMPTY", "ASSIGNING"), ("ASSIGNING", "RECONCILING"), ("RECONCILING", "STABLE"),
                                    ("STABLE", "ASSIGNING")},
    "worker_bounces": {("ASSIGNING", "RECONCILING"), ("RECONCILING", "STABLE"), ("STABLE", "ASSIGNING")},
    "worker_leaving": {("ASSIGNING", "RECONCILING"), ("RECONCILING", "STABLE"), ("STABLE", "ASSIGNING")},
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_group_and_worker_states_follow_the_tables(name: str) -> None:
    from kgspec.model.coordinator import Coordinator

    cluster, _ = SCENARIOS[name]()
    group_edges, member_edges = _edges("connect-group"), _edges("connect-member")
    coord = Coordinator("kip")
    seen_group: set[tuple[str, str]] = set()
    last_group = "EMPTY"
    last_members: dict[str, str] = {}
    # States are read after each call's (or timer's) records, as Kafka derives them after a batch.
    batches: list[list[Record]] = [[]]
    for event in cluster.events:
        if "record" in event:
            batches[-1].append(Record.from_json(event["record"]))
        elif batches[-1]:
            batches.append([])
    coord.apply(batches[0])  # configuration, or the records a coordinator loads: no transition
    first = coord.connect_groups["g"]
    last_group = first.state()
    last_members = {mid: STATE_NAMES[m.state] for mid, m in first.members.items()}
    for batch in batches[1:]:
        coord.apply(batch)
        group = coord.connect_groups.get("g")
        if group is None:
            continue
        state = group.state()
        if state != last_group:
            assert (last_group, state) in group_edges, (last_group, state)
            seen_group.add((last_group, state))
        last_group = state
        for mid, m in group.members.items():
            now = STATE_NAMES[m.state]
            before = last_members.get(mid, "STABLE")
            assert before == now or (before, now) in member_edges, (mid, before, now)
            last_members[mid] = now
    assert seen_group == GROUP_EDGES_WALKED[name]


def test_assignment_machine_has_every_phase_reachable() -> None:
    t = table("connect-assignment")
    reached = {t.initial}
    frontier = [t.initial]
    while frontier:
        state = frontier.pop()
        for trig in t.triggers_for(state):
            dest = t.fire(state, trig)
            if dest not in reached:
                reached.add(dest)
                frontier.append(dest)
    assert reached == {"IDLE", "REQUESTED", "NOTIFIED", "PREPARED"}
