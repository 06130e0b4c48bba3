"""kgspec.conformance."""
