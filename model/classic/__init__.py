"""Classic groups (JoinGroup / SyncGroup / Heartbeat / LeaveGroup) as Kafka 4.3's new group
coordinator implements them (``GroupMetadataManager.classicGroup*``, ``classic/ClassicGroup``).
See ``docs/classic.md``."""
