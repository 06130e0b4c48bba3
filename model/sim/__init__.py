"""kgspec.model.sim: a deterministic simulator of consumer groups, and its Hypothesis machine.

- ``network``: seeded loss, delay, duplication and cross-client reordering;
- ``client``: the KIP-848 client on the compiled ``consumer-client`` table;
- ``simulator``: clients + network + coordinator + clock + metadata + failover,
  recording a contract trace and checking ``kgspec.invariants`` after every step;
- ``trace``: contract events and files;
- ``profiles``, ``machine``: Hypothesis settings profiles and the rule-based machine
  (importable, so the CLI can run it without pytest).
"""

from kgspec.model.sim.client import ClientOptions, SimClient
from kgspec.model.sim.network import Network, NetworkConfig
from kgspec.model.sim.simulator import SimConfig, Simulator
from kgspec.model.sim.trace import write_trace

__all__ = ["ClientOptions", "Network", "NetworkConfig", "SimClient", "SimConfig", "Simulator", "write_trace"]
