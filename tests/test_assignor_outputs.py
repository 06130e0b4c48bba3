"""The built-in assignors' outputs at Kafka's JMH points, pinned as digests.

Taken from the assignors as they were before the CPython rework (issue #20): a faster layout must
give the very same assignment (the golden and guarantee tests pin the small cases; these pin the
large ones, 100 to 1000 members, FULL and INCREMENTAL, homogeneous and heterogeneous).
"""

from __future__ import annotations

import hashlib
import json

import pytest
from kgspec.model.assignors import GroupAssignment, get_assignor

from kgspec.bench.grid import Point
from kgspec.bench.scenarios import consumer_input

DIGESTS = {
    "uniform consumer 1000m r10 t100 homo full": "81728a8817f1371c",
    "range consumer 1000m r10 t100 homo full": "3735919dd45edf88",
    "uniform consumer 1000m r10 t100 homo incr": "219c1d6115141007",
    "range consumer 1000m r10 t100 homo incr": "3735919dd45edf88",
    "uniform consumer 1000m r10 t100 hetero full": "bb9269c96460f90e",
    "range consumer 1000m r10 t100 hetero full": "ff0d31425470be93",
    "uniform consumer 1000m r10 t100 hetero incr": "0523de7764ea4cf0",
    "range consumer 1000m r10 t100 hetero incr": "ff0d31425470be93",
    "uniform consumer 100m r10 t10 homo full": "0c777d7efc63178c",
    "range consumer 100m r10 t10 homo full": "c142f7837998c0dc",
    "uniform consumer 100m r10 t10 homo incr": "1ee825342c297d6b",
    "range consumer 100m r10 t10 homo incr": "52ca0c5d95bb0779",
    "uniform consumer 100m r10 t10 hetero full": "b1898a6a1a61767f",
    "range consumer 100m r10 t10 hetero full": "c71edac538a76945",
    "uniform consumer 100m r10 t10 hetero incr": "5fa454c80baffc30",
    "range consumer 100m r10 t10 hetero incr": "c3f40ef7074da66f",
    "uniform consumer 500m r5 t1000 homo full": "589d4b12568496d4",
    "range consumer 500m r5 t1000 homo full": "b8c1b714943a050f",
    "uniform consumer 500m r5 t1000 homo incr": "0262aa529c73b359",
    "range consumer 500m r5 t1000 homo incr": "b8c1b714943a050f",
    "uniform consumer 500m r5 t1000 hetero full": "59f65744baa1d10b",
    "range consumer 500m r5 t1000 hetero full": "488e4441ffd14c43",
    "uniform consumer 500m r5 t1000 hetero incr": "aa05c2b61a4f6906",
    "range consumer 500m r5 t1000 hetero incr": "488e4441ffd14c43",
    "uniform consumer 100m r50 t10 homo full": "d52b0b80a7554c13",
    "range consumer 100m r50 t10 homo full": "0dd00dcf035f98cf",
    "uniform consumer 100m r50 t10 homo incr": "0e0ba6f967477c3c",
    "range consumer 100m r50 t10 homo incr": "dc7b9769c39b2788",
    "uniform consumer 100m r50 t10 hetero full": "efcb39d0a1f4d455",
    "range consumer 100m r50 t10 hetero full": "db704db0d8d49d00",
    "uniform consumer 100m r50 t10 hetero incr": "379fc5fd8c30502e",
    "range consumer 100m r50 t10 hetero incr": "b6f6b491286c9c79",
}
POINTS = {Point("consumer", m, inc, r, t, het).label: Point("consumer", m, inc, r, t, het)
          for (m, r, t) in ((1000, 10, 100), (100, 10, 10), (500, 5, 1000), (100, 50, 10))
          for het in (False, True) for inc in (False, True)}


def digest(result: GroupAssignment) -> str:
    canon = sorted((m, t, sorted(p)) for m, a in result.items() for t, p in a.items() if p)
    return hashlib.sha256(json.dumps(canon).encode()).hexdigest()[:16]


@pytest.mark.parametrize("case", sorted(DIGESTS))
def test_output_unchanged_at_jmh_point(case: str) -> None:
    name, label = case.split(" ", 1)
    assignor = get_assignor(name)
    data = consumer_input(POINTS[label], assignor)
    assert digest(assignor.assign(data.spec, data.topics)) == DIGESTS[case]
