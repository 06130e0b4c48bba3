"""What a server is started with (kept free of kio, so the CLI can parse it without the extra)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from kgspec.model.profiles import DEFAULT_PROFILE

if TYPE_CHECKING:
    from .faults import Rule

# Broker configs `--config` accepts beside the coordinator's (model/config.py), with Kafka's defaults.
BROKER_CONFIGS: Final[dict[str, Any]] = {"num.partitions": 1, "auto.create.topics.enable": True}


@dataclass(slots=True)
class Options:
    host: str = "127.0.0.1"
    port: int = 9092
    profile: str = DEFAULT_PROFILE
    configs: dict[str, Any] = field(default_factory=dict)  # the coordinator's (the trace header's)
    broker_configs: dict[str, Any] = field(default_factory=lambda: dict(BROKER_CONFIGS))
    topics: dict[str, int] = field(default_factory=dict)
    clients: bool = False
    faults: list[Rule] = field(default_factory=list)
