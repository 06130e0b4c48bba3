"""Online migration between classic groups and KIP-848 consumer groups (Kafka 4.3): the upgrade
on a ConsumerGroupHeartbeat, classic-protocol members in consumer groups, the downgrade, and the
``group.consumer.migration.policy``. See ``docs/migration.md``."""
