"""Per-group replay for ``kgspec conform``: one group at a time through a ``TraceChecker``.

The input is a stream of a partition's rows sorted by (file, group, order): each group's
events are contiguous and in file order. Each group gets a fresh checker, fed the file's
cluster-wide events (topics, ticks) merged with the group's own events by their order
key, exactly as ``kgspec check`` feeds the same checker the whole file: a group only
sees topic and tick events and its own events, and none of its results depend on other
groups. Events that name no group (``o`` rows) are fed to one checker per file that
holds no group. A group whose replay raises is reported (kind ``unsupported``) and the
other groups go on: no failure loses another group's result.

No pyspark here: :mod:`.pipeline` wraps :func:`replay_rows` in ``mapInArrow``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from kgspec.conformance.checker import TraceChecker
from kgspec.conformance.events import Event
from kgspec.conformance.findings import Finding, GroupSummary, Report, jsonable
from kgspec.model.mutants import Mutants

from .blocks import BlockStart
from .parse import event_from_payload

OUTPUT_SCHEMA: Final = ("rec string, path string, grp string, gtype string, okey double, line long, sub int, "
                        "seq int, events long, verdict string, kind string, field string, expected string, "
                        "observed string, message string")
OutRow = tuple[str, str, str | None, str | None, float, int, int, int, int | None, str | None, str | None,
               str | None, str | None, str | None, str | None]
Order = tuple[float, int, int]


@dataclass(slots=True)
class FileSettings:
    """What every group of one file is checked with (the header resolved on the driver)."""

    profile: str
    configs: dict[str, Any]
    cluster: list[tuple[Order, Event]] = field(default_factory=list)  # sorted by order


@dataclass(slots=True)
class ReplayContext:
    paths: list[str]  # by file index
    files: dict[str, FileSettings]  # by path
    starts: dict[tuple[int, int], BlockStart]  # (file index, block start) -> its first line and inherited time
    clients: bool = False
    mutants: tuple[str, ...] = ()


def _dump(value: Any) -> str:
    return json.dumps(value, default=jsonable, separators=(",", ":"))


def finding_row(f: Finding, gtype: str | None, okey: float, sub: int, seq: int) -> OutRow:
    return ("F", f.path, f.group_id, gtype, okey, f.line, sub, seq, None, None, f.kind, f.field,
            _dump(f.expected), _dump(f.observed), f.message)


def finding_from_row(path: str, grp: str | None, line: int, kind: str, fld: str | None,
                     expected: str | None, observed: str | None, message: str) -> Finding:
    return Finding(path, line, grp, kind, message, fld,
                   json.loads(expected) if expected is not None else None,
                   json.loads(observed) if observed is not None else None)


def replay_group(path: str, grp: str | None, gtype: str | None, events: list[tuple[Order, Event]],
                 ctx: ReplayContext) -> Iterator[OutRow]:
    """Check one group (``grp`` None: the file's events that name no group)."""
    settings = ctx.files[path]
    report = Report()
    checker = TraceChecker(path, report, profile=settings.profile, configs=settings.configs,
                           clients=ctx.clients, mutants=Mutants(ctx.mutants))
    first: Order = events[0][0]
    fed: Order = first
    try:
        if grp is not None:
            cluster = settings.cluster
            i = 0
            for order, event in events:
                while i < len(cluster) and cluster[i][0] < order:
                    fed = cluster[i][0]
                    checker.feed(cluster[i][1])
                    i += 1
                fed = order
                checker.feed(event)
            for order, event in cluster[i:]:
                fed = order
                checker.feed(event)
        else:
            for order, event in events:
                fed = order
                checker.feed(event)
        checker.finish()
    except Exception as exc:  # the model or checker failed on this group: report it, keep the others
        summary = next((g for g in report.groups if g.group_id == grp), None) or GroupSummary(grp or "", "consumer")
        if grp is not None and summary not in report.groups:
            summary.events = sum(1 for _ in events)
            report.groups.append(summary)
        summary.incomplete = True
        report.findings.append(Finding(path, fed[1], grp, "unsupported",
                                       f"the checker failed on this group: {type(exc).__name__}: {exc}"))
    seq = 0
    for f in report.findings:
        if f.group_id == grp:
            yield finding_row(f, gtype, fed[0], 0, seq)
            seq += 1
    for g in report.groups:
        if g.group_id == grp:
            yield ("G", path, grp, gtype, first[0], first[1], first[2], 0, g.events, g.verdict,
                   g.type, None, None, None, None)


def replay_rows(rows: Iterable[tuple[int, str | None, str | None, float, int, int, int, bytes]],
                ctx: ReplayContext) -> Iterator[OutRow]:
    """Rows ``(file index, group, type, okey, block, index in block, sub, event)``, each (file,
    group)'s together and in (okey, block, index, sub) order: the order of the file."""
    key: tuple[int, str | None] | None = None
    where: tuple[int, int] | None = None
    start = BlockStart(0, 0.0)
    gtype: str | None = None
    events: list[tuple[Order, Event]] = []
    for fi, grp, rtype, okey, block, index, sub, payload in rows:
        if (fi, grp) != key:
            if key is not None:
                yield from replay_group(ctx.paths[key[0]], key[1], gtype, events, ctx)
            key, gtype, events = (fi, grp), None, []
        if (fi, block) != where:
            where = (fi, block)
            start = ctx.starts[where]
        if gtype is None:
            gtype = rtype
        line = start.lines_before + index + 1
        events.append(((okey, line, sub), event_from_payload(payload, line, start.start_ts)))
    if key is not None:
        yield from replay_group(ctx.paths[key[0]], key[1], gtype, events, ctx)
