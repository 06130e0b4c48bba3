"""The one rule behind every ownership check: an item has at most one holder.

Plain Python, no imports from the rest of the model: the assignor guarantees
(``model/assignors/guarantees.py``) check targets with it, and ``invariants/exclusivity.py``
builds every ownership invariant on it (``invariants/catalogue.py`` names
:meth:`Exclusive.claim` as their core).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Generic, TypeVar

H = TypeVar("H", bound=Hashable)
I = TypeVar("I", bound=Hashable)  # noqa: E741 - an item


class Exclusive(Generic[H, I]):
    """Items claimed one holder at a time: :meth:`claim` returns the item's first holder when
    another holder claims it (a conflict), else None."""

    __slots__ = ("first",)

    def __init__(self) -> None:
        self.first: dict[I, H] = {}

    def claim(self, holder: H, item: I) -> H | None:
        first = self.first.setdefault(item, holder)
        return None if first == holder else first


def shared(pairs: Iterable[tuple[H, I]]) -> dict[I, list[H]]:
    """The items of ``pairs`` (holder, item) held by two or more distinct holders: item -> its
    holders, first holder first, in the order the conflicts appear."""
    rule: Exclusive[H, I] = Exclusive()
    out: dict[I, list[H]] = {}
    for holder, item in pairs:
        first = rule.claim(holder, item)
        if first is None:
            continue
        holders = out.get(item)
        if holders is None:
            out[item] = [first, holder]
        elif holder not in holders:
            holders.append(holder)
    return out
