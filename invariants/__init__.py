"""kgspec.invariants."""
