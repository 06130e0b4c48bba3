"""Picks least- and most-loaded members for the heterogeneous uniform builder.

The same bookkeeping as Kafka's ``MemberAssignmentBalancer``: members sorted by
load (ties by member index) with two moving windows.

* The *low* window ``order[0:low_end]`` holds the members at the lowest level.
  Handing each of them one partition raises the level by one, and the window
  then widens over members that already sat at the new level.
* The *high* window ``order[high_start:high_end]`` mirrors it from the top, for
  taking partitions away. A member with nothing left to give is swapped out of it.

The topic is balanced once the two levels differ by at most one.
"""

from __future__ import annotations

from bisect import bisect_right


class LoadBalancer:
    __slots__ = (
        "high_end",
        "high_level",
        "high_next",
        "high_start",
        "low_end",
        "low_level",
        "low_next",
        "order",
        "sizes",
    )

    def __init__(self, sizes: list[int]) -> None:
        # Shared with the builder: assignments update it while we walk.
        self.sizes = sizes
        self.order: list[int] = []
        self.low_end = self.low_level = self.low_next = 0
        self.high_start = self.high_end = self.high_level = self.high_next = 0

    def reset(self, members: list[int]) -> int:
        """Start over for `members` (ascending indexes); return max load - min load."""
        if not members:
            raise ValueError("cannot balance an empty subscriber list")
        sizes = self.sizes
        # A stable sort on load keeps ascending member index among equals.
        order = sorted(members, key=sizes.__getitem__)
        self.order = order
        lowest = sizes[order[0]]
        highest = sizes[order[-1]]
        self.low_end = 0
        self.low_level = lowest - 1
        self.low_next = 0
        self.high_start = self.high_end = len(order)
        self.high_level = highest + 1
        self.high_next = len(order) - 1
        return highest - lowest

    def next_least_loaded(self) -> int:
        """The member to give the next partition to (assumes it will get one)."""
        if self.low_next >= self.low_end:
            self.low_level += 1
            order, sizes, level = self.order, self.sizes, self.low_level
            end = self.low_end
            while end < len(order) and sizes[order[end]] == level:
                end += 1
            self.low_end = end
            self.low_next = 0
        member = self.order[self.low_next]
        self.low_next += 1
        return member

    def least_loaded_batch(self, count: int) -> list[int]:
        """`count` successive next_least_loaded() picks, for handing out fresh partitions.

        The caller adds the partitions to `sizes` afterwards: widening the window only
        reads the loads of members outside it, which these picks never touch.
        """
        order = self.order
        # Loads in window order, read once: the picks' loads change only after the batch, and
        # the window widens over members it has not reached, so a C-level bisect finds its end.
        levels = list(map(self.sizes.__getitem__, order))
        end, level, position = self.low_end, self.low_level, self.low_next
        picks: list[int] = []
        while count > 0:
            if position >= end:
                level += 1
                end = bisect_right(levels, level, end)
                position = 0
            # Take the rest of the window in one slice.
            step = min(count, end - position)
            picks += order[position:position + step]
            position += step
            count -= step
        self.low_end, self.low_level, self.low_next = end, level, position
        return picks

    def next_most_loaded(self) -> int:
        """The member to take the next partition from, or -1 when none is left."""
        if self.high_next < self.high_start:
            order, sizes = self.order, self.sizes
            if self.high_end <= self.high_start and self.high_start > 0:
                # Every member of the window was excluded: restart from the next level
                # down so that the window is sure to grow.
                self.high_level = sizes[order[self.high_start - 1]]
            else:
                self.high_level -= 1
            start, level = self.high_start, self.high_level
            while start > 0 and sizes[order[start - 1]] == level:
                start -= 1
            self.high_start = start
            self.high_next = self.high_end - 1
        if self.high_next < 0:
            return -1
        member = self.order[self.high_next]
        self.high_next -= 1
        return member

    def exclude_most_loaded(self) -> None:
        """Drop the member last returned by next_most_loaded from the high window."""
        order = self.order
        slot = self.high_next + 1
        last = self.high_end - 1
        order[slot], order[last] = order[last], order[slot]
        self.high_end = last

    def is_balanced(self) -> bool:
        return self.high_level - self.low_level <= 1
