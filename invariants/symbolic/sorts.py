"""Sorts of the symbolic encoding: uninterpreted (proofs) or finite enumerations (BMC, evaluation).

The same encoding code runs over either choice. With ``DeclareSort`` the proofs hold for any
number of members, tasks (partitions) and processes; with ``EnumSort`` the sorts are a small
concrete instance whose constants carry readable names (``m1``, ``p0``, ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import z3

MEMBER_STATES = ("STABLE", "UNREVOKED", "UNRELEASED")

_ENUMS: dict[tuple[str, tuple[str, ...]], tuple[Any, list[Any]]] = {}


def enum_sort(name: str, values: tuple[str, ...]) -> tuple[Any, list[Any]]:
    """An EnumSort, declared once per (name, values): Z3 rejects re-declaring a datatype."""
    key = (name, values)
    if key not in _ENUMS:
        _ENUMS[key] = z3.EnumSort(name, list(values))
    return _ENUMS[key]


@dataclass(frozen=True)
class Sorts:
    """The sorts of one encoding; the ``*_values`` maps are empty for uninterpreted sorts."""

    member: Any
    task: Any
    process: Any  # None for the consumer protocol
    mstate: Any
    mstates: dict[str, Any]
    members: dict[str, Any]
    tasks: dict[str, Any]
    processes: dict[str, Any]

    @property
    def finite(self) -> bool:
        return bool(self.members)


def _mstates() -> tuple[Any, dict[str, Any]]:
    sort, consts = enum_sort("MemberState", MEMBER_STATES)
    return sort, dict(zip(MEMBER_STATES, consts, strict=True))


def symbolic_sorts(streams: bool) -> Sorts:
    """Uninterpreted sorts: the proofs quantify over every finite (or infinite) instance."""
    mstate, mstates = _mstates()
    return Sorts(z3.DeclareSort("Member"), z3.DeclareSort("Task"),
                 z3.DeclareSort("Process") if streams else None, mstate, mstates, {}, {}, {})


def finite_sorts(members: tuple[str, ...], tasks: tuple[str, ...],
                 processes: tuple[str, ...]) -> Sorts:
    """Enumerated sorts for a concrete instance (names double as the sort's constants)."""
    mstate, mstates = _mstates()
    msort, mcs = enum_sort("M_" + "_".join(members), members)
    tsort, tcs = enum_sort("T_" + "_".join(tasks), tasks)
    psort: Any = None
    pmap: dict[str, Any] = {}
    if processes:
        psort, pcs = enum_sort("P_" + "_".join(processes), processes)
        pmap = dict(zip(processes, pcs, strict=True))
    return Sorts(msort, tsort, psort, mstate, mstates, dict(zip(members, mcs, strict=True)),
                 dict(zip(tasks, tcs, strict=True)), pmap)
