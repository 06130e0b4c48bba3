"""Replay equivalence: the records are the whole truth about a group."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kgspec.model.consumer.group import ConsumerGroup
from kgspec.model.coordinator import Coordinator
from kgspec.model.mutants import NONE, Mutants
from kgspec.model.records import Record
from kgspec.model.streams.group import StreamsGroup


def replay_records(records: Iterable[Record], profile: str | None = None,
                   configs: dict[str, Any] | None = None, mutants: Mutants = NONE) -> Coordinator:
    """A fresh coordinator that has replayed ``records`` (as a new coordinator loads them)."""
    fresh = Coordinator(profile, configs, mutants)
    fresh.apply(records)
    return fresh


def replay_equivalence(live: ConsumerGroup | StreamsGroup | None,
                       replayed: ConsumerGroup | StreamsGroup | None) -> list[str]:
    """Replay equivalence.

    Replaying every record the coordinator emitted so far into a fresh coordinator rebuilds
    the live group exactly: epochs, metadata hash, members (with their assignments and
    assignment epochs), targets, static-member map, partition epochs, regexes and state.
    Timers are soft state and are excluded (``onLoaded`` re-arms them).
    """
    if live is None and replayed is None:
        return []
    if live is None or replayed is None:
        return [f"the group exists only in the {'replay' if live is None else 'live coordinator'}"]
    a, b = live.snapshot(), replayed.snapshot()
    if a == b:
        return []
    problems: list[str] = []
    for key in a:
        if key == "members":
            continue
        if a[key] != b.get(key):
            problems.append(f"{key}: live {a[key]!r}, replayed {b.get(key)!r}")
    live_members, replayed_members = a["members"], b["members"]
    for mid in sorted(set(live_members) | set(replayed_members)):
        x, y = live_members.get(mid), replayed_members.get(mid)
        if x is None or y is None:
            problems.append(f"member {mid} exists only in the {'replay' if x is None else 'live coordinator'}")
            continue
        for field in x:
            if x[field] != y[field]:
                problems.append(f"member {mid} {field}: live {x[field]!r}, replayed {y[field]!r}")
    return problems
