"""Server assignors through the coordinator: range exactly, uniform by its guarantees."""

from __future__ import annotations

from tests.consumer.helpers import Harness, assignment


def settle(h: Harness, members: list[str], rounds: int = 6) -> None:
    for _ in range(rounds):
        for m in members:
            h.heartbeat(m)
            h.ack(m)


def test_range_golden_through_the_model() -> None:
    # RangeAssignorTest golden: 3 partitions x 2 topics; A {0,1}, B {2}; adding C -> A {0}, B {1}, C {2}.
    h = Harness({"foo": 3, "bar": 3})
    h.now = 10_000
    h.join("A", ["foo", "bar"], assignor="range")
    h.sleep(1000)
    h.join("B", ["foo", "bar"], assignor="range")
    settle(h, ["A", "B"])
    assert h.target("A") == {"foo": [0, 1], "bar": [0, 1]}
    assert h.target("B") == {"foo": [2], "bar": [2]}
    h.sleep(1000)
    h.join("C", ["foo", "bar"], assignor="range")
    settle(h, ["A", "B", "C"])
    assert h.target("A") == {"foo": [0], "bar": [0]}
    assert h.target("B") == {"foo": [1], "bar": [1]}
    assert h.target("C") == {"foo": [2], "bar": [2]}
    for m in "ABC":
        assert {t: sorted(p) for t, p in h.assigned(m).items()} == h.target(m)
    assert h.group.state == "STABLE"
    assert h.group.group_epoch == h.group.assignment_epoch == 4


def test_uniform_valid_and_balanced_through_the_model() -> None:
    h = Harness({"foo": 7, "bar": 5, "baz": 3})
    h.now = 10_000
    names = ["m1", "m2", "m3", "m4"]
    for m in names:
        h.join(m, ["foo", "bar", "baz"])
        h.sleep(1000)
    settle(h, names, rounds=8)
    owners: dict[tuple[str, int], str] = {}
    for m in names:
        for topic, parts in h.target(m).items():
            for p in parts:
                assert (topic, p) not in owners
                owners[(topic, p)] = m
    assert len(owners) == 15  # every partition exactly once
    sizes = [sum(len(p) for p in h.target(m).values()) for m in names]
    assert max(sizes) - min(sizes) <= 1
    assert h.group.state == "STABLE"
    for m in names:
        assert {t: sorted(p) for t, p in h.assigned(m).items()} == h.target(m)


def test_uniform_is_sticky_when_a_member_leaves() -> None:
    h = Harness({"foo": 6})
    h.now = 10_000
    for m in ("a", "b", "c"):
        h.join(m, ["foo"])
        h.sleep(1000)
    settle(h, ["a", "b", "c"])
    before = {m: set(h.target(m).get("foo", [])) for m in ("a", "b")}
    h.leave("c")
    h.sleep(1000)
    settle(h, ["a", "b"])
    after = {m: set(h.target(m).get("foo", [])) for m in ("a", "b")}
    assert before["a"] <= after["a"]
    assert before["b"] <= after["b"]
    assert len(after["a"]) == len(after["b"]) == 3


def test_first_member_gets_everything_with_range() -> None:
    h = Harness({"foo": 6, "bar": 3})
    r = h.join("m", ["foo", "bar"], assignor="range")
    assert assignment(r) == {"foo": [0, 1, 2, 3, 4, 5], "bar": [0, 1, 2]}
