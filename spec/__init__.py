"""kgspec.spec."""
