"""kgspec.sim: a deterministic simulator of consumer and streams groups, and its Hypothesis machines.

- ``network``: seeded loss, delay, duplication and cross-client reordering;
- ``client``: the lifecycle clients share, on the compiled ``consumer-client`` table, and the
  KIP-848 consumer; ``streams_client``: the KIP-1071 stream thread and the simulated topologies;
- ``simulator``: clients + network + coordinator + clock + metadata + failover,
  recording a contract trace and checking ``kgspec.invariants`` after every step;
- ``trace``: contract events and files;
- ``profiles``, ``machine``: Hypothesis settings profiles and the rule-based machine
  (importable, so the CLI can run it without pytest).
"""

from kgspec.sim.client import ClientOptions, MemberClient, SimClient
from kgspec.sim.network import Network, NetworkConfig
from kgspec.sim.simulator import SimConfig, Simulator
from kgspec.sim.streams_client import StreamsSimClient
from kgspec.sim.trace import write_trace

__all__ = ["ClientOptions", "MemberClient", "Network", "NetworkConfig", "SimClient", "SimConfig", "Simulator",
           "StreamsSimClient", "write_trace"]
