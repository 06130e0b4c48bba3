"""Java collection orders (model/javaorder.py, model/migration/order.py) against values printed
by a JVM (OpenJDK 17: ``HashMap.keySet()``, ``new HashSet<>(list)``, ``PriorityQueue.poll()``;
Kafka's ``Uuid.hashCode`` emulated by a key class with the same formula)."""

from __future__ import annotations

from kgspec.model.javaorder import (
    JavaPriorityQueue,
    hashset_copy_capacity,
    int_hashset_order,
    java_compute_if_absent_order,
    java_hashmap_order,
    timeline_order,
    to_signed32,
    uuid_hashmap_order,
)

MEMBERS = [f"member-{i}" for i in range(20)]


def test_hashmap_order_of_twenty_keys_after_a_resize() -> None:
    assert java_hashmap_order(MEMBERS) == [
        "member-19", "member-18", "member-17", "member-16", "member-5", "member-15", "member-6", "member-14",
        "member-3", "member-13", "member-4", "member-12", "member-9", "member-11", "member-10", "member-7",
        "member-8", "member-1", "member-2", "member-0"]


def test_hashmap_order_with_an_initial_capacity() -> None:
    keys = ["a-1", "b-2", "c-3", "d-4", "e-5"]
    assert java_hashmap_order(keys) == keys  # new HashMap<>(): 16 buckets
    assert java_hashmap_order(keys, 3) == ["c-3", "d-4", "a-1", "e-5", "b-2"]  # new HashMap<>(3): 4, then 8


def test_compute_if_absent_links_new_keys_at_the_head_and_resizes_late() -> None:
    # Trunk's StickyTaskAssignor fills processIdToState = new HashMap<>(members) this way.
    assert java_compute_if_absent_order(["process2", "process0"], 2) == ["process0", "process2"]
    assert java_hashmap_order(["process2", "process0"], 2) == ["process2", "process0"]  # put resized to 4
    assert java_compute_if_absent_order(MEMBERS)[4:8] == ["member-15", "member-5", "member-14", "member-6"]
    assert java_compute_if_absent_order(["a-1", "b-2", "c-3", "d-4", "e-5"], 3) == ["c-3", "d-4", "e-5", "a-1", "b-2"]
    # The call for a key already present still performs the pending resize (4 keys > threshold 3).
    assert java_compute_if_absent_order(["a-1", "b-2", "c-3", "d-4"], 4) == ["c-3", "a-1", "d-4", "b-2"]
    assert java_compute_if_absent_order(["a-1", "b-2", "c-3", "d-4", "a-1"], 4) == ["c-3", "d-4", "a-1", "b-2"]


def test_timeline_hashmap_order() -> None:
    # TimelineHashMap.keySet() printed by a JVM (Kafka trunk's server-common): Fibonacci-hashed slots,
    # colliding keys last-inserted first (CurrentIterator takes a slot's array from the end).
    assert timeline_order(list("abcdefghijkl")) == ["f", "k", "c", "h", "e", "j", "b", "g", "l", "d", "i", "a"]
    ids = ["98466a92-1f7e-a79c-11e7-60a5a6d5b30a", "e6c648e7-deed-a8b2-3927-f7d64375d034",
           "c70b53bf-64d0-b50f-658c-6762df7142dc", "5c54e05b-42a9-ba21-cecf-4f4e5ba80780"]
    assert timeline_order(ids) == [ids[2], ids[1], ids[3], ids[0]]
    # put(224a..) again at size 5 grew the table to 8 slots; m6 and m7 came and went.
    kept = ["00ee0092-b99e-0db7-412d-babb940ea61a", "c36a9864-fc74-1d8c-3398-63efcf019ed9",
            "d1bc7a14-3651-174b-b536-74fffc570dd0", "224adc1f-8477-4c41-ec56-43f2a92daea2",
            "9d13b2fb-8b84-e541-7b66-5c24a9bdb4ee"]
    assert timeline_order(kept, 6) == [kept[4], kept[1], kept[3], kept[0], kept[2]]
    assert timeline_order(kept, 5) != timeline_order(kept, 6)


def test_hashset_of_partitions() -> None:
    assert int_hashset_order([0, 1, 2, 15, 16, 17, 31, 32, 33, 100, 1000, 65536, 65537]) == [
        0, 32, 65537, 1, 33, 65536, 2, 100, 1000, 15, 16, 17, 31]
    assert int_hashset_order([i * 7 for i in range(40)]) == [
        0, 259, 196, 133, 70, 7, 266, 203, 140, 77, 14, 273, 210, 147, 84, 21, 217, 154, 91, 28, 224, 161, 98, 35,
        231, 168, 105, 42, 238, 175, 112, 49, 245, 182, 119, 56, 252, 189, 126, 63]


def test_int_conversion_and_hashset_copy_capacity() -> None:
    assert [to_signed32(x) for x in (0, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, (1 << 32) | 5)] == [
        0, 2147483647, -2147483648, -1, 5]
    # new HashSet<>(c): new HashMap<>(max((int) (c.size() / .75f) + 1, 16)), tableSizeFor rounds up
    assert [hashset_copy_capacity(n) for n in (0, 11, 12, 23, 24, 48)] == [16, 16, 32, 32, 64, 128]


def test_hashmap_of_topic_ids() -> None:
    ids = ["OLTmUuRNp_I3DZ4mDicTZQ", "UKSjptB_XAwzL4sSJAg_0g", "K5AviRHoGBj4yZ1dXZgxlQ", "dQTZDpRd4uj1TueBzHX2Ng",
           "2FCZCVqjABZaZwNvm1QNaw", "jwviESQXnD3Z9zgXzm4RjQ", "JkqtbLbdIQ-vlKzTz5LBkA", "I3yxH10QjPJZMCY5OLNwoQ",
           "tXafoPFIP5WpDZ3y8TDWDw", "zwS9k_UK5pUU2oxlnOKxDA", "zNrr-ZDRmDiw1-wLPpeBjg", "y5bE262-FyKW1SNKQrJMaw"]
    assert uuid_hashmap_order(ids) == [
        "OLTmUuRNp_I3DZ4mDicTZQ", "K5AviRHoGBj4yZ1dXZgxlQ", "JkqtbLbdIQ-vlKzTz5LBkA", "dQTZDpRd4uj1TueBzHX2Ng",
        "jwviESQXnD3Z9zgXzm4RjQ", "UKSjptB_XAwzL4sSJAg_0g", "y5bE262-FyKW1SNKQrJMaw", "zwS9k_UK5pUU2oxlnOKxDA",
        "I3yxH10QjPJZMCY5OLNwoQ", "2FCZCVqjABZaZwNvm1QNaw", "tXafoPFIP5WpDZ3y8TDWDw", "zNrr-ZDRmDiw1-wLPpeBjg"]
    assert uuid_hashmap_order(["t2", ids[0], "t1"]) == [ids[0], "t1", "t2"]  # not Uuids: last, sorted


def test_priority_queue_breaks_ties_by_heap_position() -> None:
    def by_priority(x: tuple[int, int], y: tuple[int, int]) -> int:
        return (x[0] > y[0]) - (x[0] < y[0])

    q = JavaPriorityQueue(by_priority, [(2, 0), (1, 1), (2, 2), (1, 3), (0, 4), (1, 5), (2, 6), (0, 7)])
    assert q.poll() == (0, 4)
    q.add((1, 8))
    q.add((0, 9))
    polled = []
    while len(q):
        item = q.poll()
        assert item is not None
        polled.append(item[1])
    assert polled == [7, 9, 8, 1, 3, 5, 0, 6, 2]
    assert q.poll() is None
