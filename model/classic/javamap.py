"""Iteration order of a long-lived Java ``HashMap<String, V>`` (inserts and removals).

``ClassicGroup.members`` is a ``HashMap``: the leader chosen when the leader leaves (the
first key), the member list the leader receives, the GroupMetadata record's member order
and the protocol vote's tie-break all follow its iteration order. Unlike
:func:`kgspec.model.javaorder.java_hashmap_order` (a fresh map), a live map keeps its
capacity after removals (Java never shrinks the table) and a re-inserted key goes to the
end of its bucket.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

from kgspec.model.javaorder import bucket_index, hashmap_capacity, java_string_hash

V = TypeVar("V")


class JavaHashMap(Generic[V]):
    """A dict whose iteration order is the Java ``HashMap``'s (no treeified buckets)."""

    __slots__ = ("_capacity", "_data", "_order")

    def __init__(self) -> None:
        self._data: dict[str, V] = {}  # insertion order = order within a bucket
        self._capacity = 16
        self._order: list[str] | None = []

    def __setitem__(self, key: str, value: V) -> None:
        if key not in self._data:
            self._order = None
            self._capacity = max(self._capacity, hashmap_capacity(len(self._data) + 1))
        self._data[key] = value

    def __getitem__(self, key: str) -> V:
        return self._data[key]

    def __delitem__(self, key: str) -> None:
        del self._data[key]
        self._order = None

    def pop(self, key: str) -> V | None:
        if key in self._data:
            self._order = None
            return self._data.pop(key)
        return None

    def get(self, key: str) -> V | None:
        return self._data.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def keys(self) -> list[str]:
        if self._order is None:
            cap = self._capacity
            self._order = sorted(self._data, key=lambda k: bucket_index(java_string_hash(k), cap))  # stable sort
        return list(self._order)

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def values(self) -> list[V]:
        return [self._data[k] for k in self.keys()]

    def items(self) -> list[tuple[str, V]]:
        return [(k, self._data[k]) for k in self.keys()]
