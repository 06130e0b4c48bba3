"""kgspec.spec: lifecycles declared once, compiled to tables, rendered as diagrams.

- ``declarations``: the format (``Declaration``, ``Transition``) and ``build_machine``.
- ``classic``, ``groups``, ``members``, ``client``, ``topology``: the declared machines.
- ``registry.MACHINES``: name -> declaration.
- ``tables``: compiled ``(state, trigger) -> dest`` tables (``TABLES``, ``InvalidTransition``).
- ``diagrams``: Mermaid / DOT / Markdown renderers.
"""

from kgspec.spec.declarations import Declaration, Transition, build_machine
from kgspec.spec.groups import derive_consumer_group_state, derive_streams_group_state
from kgspec.spec.registry import MACHINES

__all__ = [
    "MACHINES",
    "Declaration",
    "Transition",
    "build_machine",
    "derive_consumer_group_state",
    "derive_streams_group_state",
]
