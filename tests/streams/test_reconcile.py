"""The streams CurrentAssignmentBuilder on the shared engine (S9 and the processId rules)."""

from __future__ import annotations

import pytest
from kgspec.model.errors import CoordinatorError
from kgspec.model.mutants import Mutants
from kgspec.model.streams.group import StreamsGroup
from kgspec.model.streams.member import (
    STABLE,
    UNKNOWN,
    UNRELEASED_TASKS,
    UNREVOKED_TASKS,
    StreamsMember,
    TaskSets,
    holdings_sets,
)
from kgspec.model.streams.reconcile import build_current_assignment


def member(mid: str, pid: str, epoch: int, state: int = STABLE, active: dict[str, dict[int, int]] | None = None,
           standby: dict[str, list[int]] | None = None, pending_active: dict[str, dict[int, int]] | None = None
           ) -> StreamsMember:
    m = StreamsMember(mid, member_epoch=epoch, previous_member_epoch=epoch - 1, state=state, process_id=pid)
    m.assigned = {"active": active or {}, "standby": {s: dict.fromkeys(p, 0) for s, p in (standby or {}).items()},
                  "warmup": {}}
    m.pending_revocation = {"active": pending_active or {}, "standby": {}, "warmup": {}}
    return m


def target(active: dict[str, list[int]] | None = None, standby: dict[str, list[int]] | None = None) -> TaskSets:
    return {"active": {s: frozenset(p) for s, p in (active or {}).items()},
            "standby": {s: frozenset(p) for s, p in (standby or {}).items()}, "warmup": {}}


def group(*members: StreamsMember) -> StreamsGroup:
    g = StreamsGroup("g", 1)
    for m in members:
        g.put_member(m)
    return g


def owned(active: dict[str, list[int]] | None = None) -> dict[str, dict[str, frozenset[int]]]:
    return {"active": {s: frozenset(p) for s, p in (active or {}).items()}, "standby": {}, "warmup": {}}


def test_s9_unrevoked_exit_is_member_epoch_plus_one() -> None:
    m = member("m1", "p1", 10, UNREVOKED_TASKS, active={"sub1": {0: 10, 1: 10}}, pending_active={"sub1": {2: 10}})
    g = group(m)
    out = build_current_assignment(g, m, 11, target({"sub1": [0, 1]}), owned({"sub1": [0, 1]}))
    assert (out.state, out.member_epoch, out.previous_member_epoch) == (STABLE, 11, 10)
    assert out.pending_revocation == {"active": {}, "standby": {}, "warmup": {}}


def test_unrevoked_stays_while_owned_or_unknown() -> None:
    m = member("m1", "p1", 10, UNREVOKED_TASKS, active={"sub1": {0: 10}}, pending_active={"sub1": {2: 10}})
    g = group(m)
    assert build_current_assignment(g, m, 11, target({"sub1": [0]}), owned({"sub1": [0, 2]})) is m
    assert build_current_assignment(g, m, 11, target({"sub1": [0]}), None) is m


def test_s9_any_active_owner_withholds() -> None:
    other = member("m2", "p2", 10, active={"sub1": {4: 10}})
    m = member("m1", "p1", 11, UNRELEASED_TASKS, active={"sub1": {0: 11}})
    g = group(other, m)
    out = build_current_assignment(g, m, 11, target({"sub1": [0, 4], "sub2": [7]}), owned({"sub1": [0]}))
    assert (out.state, out.member_epoch) == (UNRELEASED_TASKS, 11)
    assert holdings_sets(out.assigned)["active"] == {"sub1": frozenset({0}), "sub2": frozenset({7})}
    assert out.assigned["active"]["sub2"] == {7: 11}  # granted at the target epoch


def test_revocation_keeps_epoch_and_assignment_epochs() -> None:
    m = member("m1", "p1", 5, active={"s": {0: 3, 1: 5}})
    g = group(m)
    out = build_current_assignment(g, m, 6, target({"s": [0]}), owned({"s": [0, 1]}))
    assert (out.state, out.member_epoch, out.previous_member_epoch) == (UNREVOKED_TASKS, 5, 5)
    assert out.assigned["active"] == {"s": {0: 3}}
    assert out.pending_revocation["active"] == {"s": {1: 5}}


def test_revocation_not_owned_moves_on() -> None:
    m = member("m1", "p1", 5, active={"s": {0: 5, 1: 5}})
    g = group(m)
    out = build_current_assignment(g, m, 6, target({"s": [0]}), owned({"s": [0]}))
    assert (out.state, out.member_epoch) == (STABLE, 6)


def test_standby_withheld_while_own_process_holds_task_active() -> None:
    sibling = member("m2", "p1", 5, active={"s": {3: 5}})
    m = member("m1", "p1", 5)
    g = group(sibling, m)
    out = build_current_assignment(g, m, 6, target(standby={"s": [3]}), owned())
    assert (out.state, out.member_epoch) == (UNRELEASED_TASKS, 6)
    assert holdings_sets(out.assigned)["standby"] == {}


def test_standby_granted_when_other_process_holds_it_as_standby() -> None:
    other = member("m2", "p2", 5, standby={"s": [3]})
    m = member("m1", "p1", 5)
    g = group(other, m)
    out = build_current_assignment(g, m, 6, target(standby={"s": [3]}), owned())
    assert (out.state, out.member_epoch) == (STABLE, 6)
    assert holdings_sets(out.assigned)["standby"] == {"s": frozenset({3})}


def test_active_withheld_while_own_process_holds_it_as_standby() -> None:
    sibling = member("m2", "p1", 5, standby={"s": [1]})
    m = member("m1", "p1", 5)
    g = group(sibling, m)
    out = build_current_assignment(g, m, 6, target({"s": [1]}), owned())
    assert out.state == UNRELEASED_TASKS
    assert holdings_sets(out.assigned)["active"] == {}


def test_active_pending_revocation_elsewhere_is_unreleased() -> None:
    revoking = member("m2", "p2", 5, UNREVOKED_TASKS, pending_active={"s": {2: 5}})
    m = member("m1", "p1", 5)
    g = group(revoking, m)
    out = build_current_assignment(g, m, 6, target({"s": [2]}), owned())
    assert out.state == UNRELEASED_TASKS
    # The grant-before-ack mutant ignores pending revocations.
    bad = build_current_assignment(g, m, 6, target({"s": [2]}), owned(), Mutants({"grant-before-ack"}))
    assert holdings_sets(bad.assigned)["active"] == {"s": frozenset({2})}


def test_bump_while_revoking_mutant() -> None:
    m = member("m1", "p1", 5, active={"s": {0: 5, 1: 5}})
    g = group(m)
    out = build_current_assignment(g, m, 6, target({"s": [0]}), owned({"s": [0, 1]}), Mutants({"bump-while-revoking"}))
    assert (out.state, out.member_epoch) == (UNREVOKED_TASKS, 6)


def test_unknown_state_fences_unless_it_owns_nothing() -> None:
    m = member("m1", "p1", 5, UNKNOWN)
    g = group(m)
    with pytest.raises(CoordinatorError) as err:
        build_current_assignment(g, m, 6, target({"s": [0]}), None)
    assert err.value.message == ("The streams group member is in a unknown state. "
                                 "The member must abandon all its tasks and rejoin.")
    out = build_current_assignment(g, m, 6, target({"s": [0]}), owned())
    assert (out.state, out.member_epoch) == (STABLE, 6)


def test_process_index_semantics() -> None:
    # Active index: one process per task, cleared only by its own process; standby: a set.
    a = member("m1", "p1", 5, active={"s": {0: 5}}, standby={"s": [1]})
    b = member("m2", "p2", 5, standby={"s": [1]})
    g = group(a, b)
    assert g.current_active_process("s", 0) == "p1"
    assert g.current_standby_processes("s", 1) == {"p1", "p2"}
    g.remove_member("m1")
    assert g.current_active_process("s", 0) is None
    assert g.current_standby_processes("s", 1) == {"p2"}
