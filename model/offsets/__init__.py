"""Committed offsets (OffsetCommit, OffsetFetch, offset records): Kafka's ``OffsetMetadataManager``."""
