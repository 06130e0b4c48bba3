"""The group-config APIs, with their versions (``model/api.py``).

Facts: ``clients/src/main/resources/common/message/DescribeConfigsRequest.json`` ``validVersions``
"1-4" and ``IncrementalAlterConfigsRequest.json`` "0-1", the same on 4.1, 4.2, 4.3 and trunk.
Only GROUP resources (``ConfigResource.Type.GROUP``, id 32) are modelled (docs/group-configs.md).
"""

from __future__ import annotations

from kgspec.model.api import Api

DESCRIBE_CONFIGS, INCREMENTAL_ALTER_CONFIGS = 32, 44
GROUP_RESOURCE = 32  # ConfigResource.Type.GROUP

APIS = (
    Api(DESCRIBE_CONFIGS, "DESCRIBE_CONFIGS", "DescribeConfigs", "group-configs", (1, 4)),
    Api(INCREMENTAL_ALTER_CONFIGS, "INCREMENTAL_ALTER_CONFIGS", "IncrementalAlterConfigs", "group-configs", (0, 1)),
)
