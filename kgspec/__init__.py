"""kgspec: a formally-checked state-machine spec and executable model of Kafka group coordination.

The import package holds four subpackages, each a top-level folder of the repository:

- ``kgspec.spec``: the lifecycles declared once as ``transitions`` machines, compiled to tables;
- ``kgspec.model``: the sans-IO coordinator model (one step: state, event, now -> response, records);
- ``kgspec.invariants``: the protocol invariants, defined once and reused everywhere;
- ``kgspec.conformance``: trace readers and ``kgspec check``;

and, in its own folder, the CLI (``kgspec.cli``, ``kgspec.commands``) and the simulator
(``kgspec.sim``), which sits above the model and the invariants it checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from kgspec.server.api import ServedBroker

__version__ = "0.1.0"
__all__ = ["__version__", "serve"]


def serve(**options: Any) -> AbstractContextManager[ServedBroker]:
    """``with kgspec.serve(profile="kafka-4.1", topics={"t": 6}) as broker:`` a served coordinator
    real clients join (``kgspec.server.api.serve``; docs/serve.md). Imported when called: it needs
    the ``peers`` extra (kio)."""
    from kgspec.server.api import serve as serve_

    return serve_(**options)
