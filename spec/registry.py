"""Every declared lifecycle, by name (the names the CLI and diagrams use)."""

from __future__ import annotations

from types import MappingProxyType

from kgspec.spec.classic import CLASSIC_GROUP
from kgspec.spec.client import CONSUMER_CLIENT
from kgspec.spec.connect import CONNECT_ASSIGNMENT, CONNECT_GROUP, CONNECT_MEMBER
from kgspec.spec.declarations import Declaration
from kgspec.spec.groups import CONSUMER_GROUP, STREAMS_GROUP
from kgspec.spec.members import CONSUMER_MEMBER, STREAMS_MEMBER
from kgspec.spec.topology import STREAMS_TOPOLOGY

_ALL = (
    CLASSIC_GROUP,
    CONSUMER_GROUP,
    CONSUMER_MEMBER,
    CONSUMER_CLIENT,
    STREAMS_GROUP,
    STREAMS_MEMBER,
    STREAMS_TOPOLOGY,
    CONNECT_GROUP,
    CONNECT_MEMBER,
    CONNECT_ASSIGNMENT,
)

#: name -> declaration, read-only.
MACHINES: MappingProxyType[str, Declaration] = MappingProxyType({d.name: d for d in _ALL})
