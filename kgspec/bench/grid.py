"""The benchmark points: Kafka's JMH parameter matrices, and named grids over them.

Sources (Kafka 4.3, ``jmh-benchmarks/src/main/java/org/apache/kafka/jmh/assignor/``):

* ``ServerSideAssignorBenchmark``: memberCount {100, 500, 1000, 5000, 10000},
  partitionsToMemberRatio {5, 10, 50}, topicCount {10, 100, 1000}, isRackAware {true, false}
  (member i in ``rack{i % 3}``), subscriptionType {HOMOGENEOUS, HETEROGENEOUS} (5 buckets of
  members each subscribing to one slice of the topics), assignorType {RANGE, UNIFORM},
  assignmentType {FULL, INCREMENTAL} (M-1 members assigned and fed back, plus ``newMember``).
  Partitions per topic = members x ratio / topics.
* ``TargetAssignmentBuilderBenchmark``: the same member/ratio/topic/subscription grid, UNIFORM,
  always M-1 members with a target plus one new member; times assignor + diff + records.
* ``StreamsStickyAssignorBenchmark``: memberCount {100, 1000}, partitionCount {10, 100} per
  subtopology, subtopologyCount {10, 100}, standbyReplicas {0, 1}, membersPerProcess {1, 50},
  assignmentType {FULL, INCREMENTAL}; one source topic per subtopology, every second one stateful.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, fields, replace
from typing import Any, Literal

Kind = Literal["consumer", "target", "streams"]
KINDS: tuple[Kind, ...] = ("consumer", "target", "streams")


@dataclass(frozen=True, slots=True)
class Point:
    """One benchmark setting. ``kind``: a consumer assignor call (ServerSideAssignorBenchmark),
    a whole target-assignment build (TargetAssignmentBuilderBenchmark) or a streams task
    assignor call (StreamsStickyAssignorBenchmark); fields a kind does not use keep defaults."""

    kind: Kind = "consumer"
    members: int = 1000
    incremental: bool = False
    # consumer and target
    ratio: int = 10  # partitions per member
    topics: int = 100
    heterogeneous: bool = False
    racks: bool = False
    # streams
    partitions: int = 100  # per subtopology
    subtopologies: int = 10
    standby: int = 1
    members_per_process: int = 1

    @property
    def partitions_per_topic(self) -> int:
        return self.members * self.ratio // self.topics

    @property
    def label(self) -> str:
        mode = "incr" if self.incremental else "full"
        if self.kind == "streams":
            return (f"streams {self.members}m {self.subtopologies}x{self.partitions} sb{self.standby} "
                    f"mpp{self.members_per_process} {mode}")
        sub = "hetero" if self.heterogeneous else "homo"
        rack = " rack" if self.racks else ""
        return f"{self.kind} {self.members}m r{self.ratio} t{self.topics} {sub}{rack} {mode}"

    def to_json(self) -> dict[str, Any]:
        keys = ("kind", "members", "incremental") + (
            ("partitions", "subtopologies", "standby", "members_per_process") if self.kind == "streams"
            else ("ratio", "topics", "heterogeneous", "racks"))
        return {_camel(k): getattr(self, k) for k in keys}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


# --point keys: short names users type -> Point field, and value parsers.
_KEYS = {
    "members": "members", "m": "members", "ratio": "ratio", "r": "ratio", "topics": "topics", "t": "topics",
    "partitions": "partitions", "p": "partitions", "subtopologies": "subtopologies", "s": "subtopologies",
    "standby": "standby", "mpp": "members_per_process", "members-per-process": "members_per_process",
}
_FLAGS = {"homo": ("heterogeneous", False), "homogeneous": ("heterogeneous", False),
          "hetero": ("heterogeneous", True), "heterogeneous": ("heterogeneous", True),
          "full": ("incremental", False), "incr": ("incremental", True), "incremental": ("incremental", True),
          "rack": ("racks", True), "racks": ("racks", True), "norack": ("racks", False)}


def parse_point(text: str) -> Point:
    """``KIND[:item,...]``; an item is ``key=value`` (members/m, ratio/r, topics/t, partitions/p,
    subtopologies/s, standby, mpp) or a flag (homo, hetero, full, incr, rack, norack).
    Example: ``consumer:m=1000,r=10,t=100,hetero,incr``. ValueError naming the item at fault."""
    kind, _, rest = text.strip().partition(":")
    if kind not in KINDS:
        raise ValueError(f"--point {text}: the kind must be one of {', '.join(KINDS)}, not {kind!r}")
    point = Point(kind=kind, incremental=kind == "target")
    values: dict[str, Any] = {}
    for item in filter(None, (i.strip() for i in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq:
            if item not in _FLAGS:
                raise ValueError(f"--point {text}: unknown flag {item!r}; flags: {', '.join(_FLAGS)}")
            flag_field, flag = _FLAGS[item]
            values[flag_field] = flag
            continue
        field_name = _KEYS.get(key)
        if field_name is None:
            raise ValueError(f"--point {text}: unknown key {key!r}; keys: {', '.join(_KEYS)}")
        try:
            number = int(value)
        except ValueError:
            raise ValueError(f"--point {text}: {key} must be an integer, not {value!r}") from None
        if number < (0 if field_name == "standby" else 1):
            raise ValueError(f"--point {text}: {key} must be at least {0 if field_name == 'standby' else 1}")
        values[field_name] = number
    point = replace(point, **values)
    problem = point_problem(point)
    if problem:
        raise ValueError(f"--point {text}: {problem}")
    return point


def point_problem(point: Point) -> str | None:
    if point.kind == "target" and not point.incremental:
        return "a target build is always incremental (M-1 members with a target plus one new)"
    if point.kind != "streams" and point.partitions_per_topic < 1:
        return f"members x ratio / topics = {point.members * point.ratio / point.topics:g} partitions per topic"
    if point.kind != "streams" and point.heterogeneous and point.topics < min(5, point.members):
        return "heterogeneous needs at least 5 topics (Kafka's createHeterogeneousBucketedMembers)"
    if point.incremental and point.members < 2:
        return "incremental needs at least 2 members"
    return None


def _consumer_matrix(kind: Kind, members: tuple[int, ...], ratios: tuple[int, ...], topics: tuple[int, ...],
                     racks: tuple[bool, ...], modes: tuple[bool, ...]) -> list[Point]:
    points = [Point(kind, m, inc, r, t, het, rack)
              for m, r, t, rack, het, inc in itertools.product(members, ratios, topics, racks, (False, True), modes)]
    return [p for p in points if point_problem(p) is None]


def _streams_matrix(members: tuple[int, ...], partitions: tuple[int, ...], subs: tuple[int, ...],
                    standby: tuple[int, ...], mpp: tuple[int, ...]) -> list[Point]:
    return [Point("streams", m, inc, partitions=p, subtopologies=s, standby=sb, members_per_process=pp)
            for m, p, s, sb, pp, inc in itertools.product(members, partitions, subs, standby, mpp, (False, True))]


JMH_MEMBERS = (100, 500, 1000, 5000, 10000)
JMH_RATIOS = (5, 10, 50)
JMH_TOPICS = (10, 100, 1000)


def grids() -> dict[str, list[Point]]:
    """Named grids. ``jmh-small``: the points Kafka's Java figures exist for
    (/work/shared/reference/assignor-perf.md §2; JAVA_MS). ``jmh-server``, ``jmh-target``,
    ``jmh-streams``: Kafka's full matrices; ``jmh``: all three (long: hours in CPython)."""
    server = _consumer_matrix("consumer", JMH_MEMBERS, JMH_RATIOS, JMH_TOPICS, (True, False), (False, True))
    target = _consumer_matrix("target", JMH_MEMBERS, JMH_RATIOS, JMH_TOPICS, (False,), (True,))
    streams = _streams_matrix((100, 1000), (10, 100), (10, 100), (0, 1), (1, 50))
    small = [*_consumer_matrix("consumer", (1000,), (10,), (100,), (False,), (False, True)),
             Point("target", 1000, True),
             Point("target", 1000, True, heterogeneous=True),
             *_streams_matrix((100,), (100,), (10,), (1,), (1,))]
    tiny = [*_consumer_matrix("consumer", (100,), (10,), (10,), (False,), (False, True)),
            *_streams_matrix((10,), (10,), (10,), (1,), (1,))]
    return {"tiny": tiny, "jmh-small": small, "jmh-server": server, "jmh-target": target,
            "jmh-streams": streams, "jmh": [*server, *target, *streams]}


# Kafka's Java figures, median ms per call (assignor-perf.md §2: trunk 2026-08 classes on this
# machine, 3 JVMs): (point, assignor) -> ms.
JAVA_MS: dict[tuple[Point, str], float] = {
    (Point("consumer", 1000, False), "uniform"): 0.204,
    (Point("consumer", 1000, True), "uniform"): 0.073,
    (Point("consumer", 1000, False), "range"): 0.333,
    (Point("consumer", 1000, True), "range"): 0.347,
    (Point("consumer", 1000, False, heterogeneous=True), "uniform"): 1.278,
    (Point("consumer", 1000, True, heterogeneous=True), "uniform"): 0.961,
    (Point("consumer", 1000, False, heterogeneous=True), "range"): 0.587,
    (Point("consumer", 1000, True, heterogeneous=True), "range"): 0.722,
    (Point("streams", 100, False, partitions=100, subtopologies=10), "sticky"): 0.411,
    (Point("streams", 100, True, partitions=100, subtopologies=10), "sticky"): 0.261,
    (Point("streams", 1000, False, partitions=100, subtopologies=100), "sticky"): 5.12,
    (Point("streams", 1000, True, partitions=100, subtopologies=100), "sticky"): 4.93,
}

POINT_FIELDS = tuple(f.name for f in fields(Point))
