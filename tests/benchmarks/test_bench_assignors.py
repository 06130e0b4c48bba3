"""Kafka's ServerSideAssignorBenchmark points for the model's assignors.

Run with ``pytest tests/benchmarks --benchmark-only``. The shape follows
docs assignor-perf.md §2: 1000 members, 10,000 partitions over 100 topics;
HETEROGENEOUS splits members and topics into 5 slices, slice b of the members
subscribing to slice b of the topics; INCREMENTAL assigns M-1 members, feeds the
result back as their targets and adds one new member.
"""

from __future__ import annotations

import base64
import random

import pytest
from kgspec.model.assignors import get_assignor
from kgspec.model.assignors.api import GroupSpec, MemberSpec, SubscriptionType
from kgspec.model.assignors.describer import MappingTopicDescriber
from kgspec.model.assignors.guarantees import validate_assignment
from pytest_benchmark.fixture import BenchmarkFixture

MEMBERS = 1000
TOPICS = 100
PARTITIONS_PER_TOPIC = 100
BUCKETS = 5


def _topic_ids() -> list[str]:
    rng = random.Random(848)
    return [base64.urlsafe_b64encode(rng.randbytes(16)).decode().rstrip("=") for _ in range(TOPICS)]


def _subscriptions(kind: SubscriptionType, topic_ids: list[str]) -> list[frozenset[str]]:
    if kind is SubscriptionType.HOMOGENEOUS:
        return [frozenset(topic_ids)] * MEMBERS
    per_bucket_members = MEMBERS // BUCKETS
    per_bucket_topics = TOPICS // BUCKETS
    slices = [frozenset(topic_ids[b * per_bucket_topics:(b + 1) * per_bucket_topics])
              for b in range(BUCKETS)]
    return [slices[min(i // per_bucket_members, BUCKETS - 1)] for i in range(MEMBERS)]


def _spec(kind: SubscriptionType, subs: list[frozenset[str]],
          targets: dict[str, dict[str, frozenset[int]]] | None = None) -> GroupSpec:
    members = {}
    for i, topics in enumerate(subs):
        member_id = f"member-{i:04d}"
        assignment = (targets or {}).get(member_id, {})
        members[member_id] = MemberSpec(member_id, None, None, topics, assignment)
    return GroupSpec(members, kind)


def scenario(assignor: str, kind: SubscriptionType, incremental: bool) -> tuple[GroupSpec, MappingTopicDescriber]:
    topic_ids = _topic_ids()
    describer = MappingTopicDescriber(dict.fromkeys(topic_ids, PARTITIONS_PER_TOPIC))
    subs = _subscriptions(kind, topic_ids)
    if not incremental:
        return _spec(kind, subs), describer
    existing = get_assignor(assignor).assign(_spec(kind, subs[:-1]), describer)
    return _spec(kind, subs, existing), describer


CASES = [
    pytest.param(a, k, inc, id=f"{a}-{k.name.lower()}-{'incr' if inc else 'full'}")
    for a in ("uniform", "range")
    for k in (SubscriptionType.HOMOGENEOUS, SubscriptionType.HETEROGENEOUS)
    for inc in (False, True)
]


@pytest.mark.parametrize(("assignor", "kind", "incremental"), CASES)
def test_server_side_assignor(benchmark: BenchmarkFixture, assignor: str,
                              kind: SubscriptionType, incremental: bool) -> None:
    spec, describer = scenario(assignor, kind, incremental)
    benchmark.group = f"assignor-{kind.name.lower()}"
    result = benchmark(get_assignor(assignor).assign, spec, describer)
    assert validate_assignment(spec, describer, result) == []
