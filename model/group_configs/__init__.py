"""Per-group configs (KIP-848 ``GroupConfig``): IncrementalAlterConfigs and DescribeConfigs for
GROUP resources, and the values the group protocols read (docs/group-configs.md)."""
