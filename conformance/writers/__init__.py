"""Writers: one run (native contract events) as each format ``kgspec check`` reads.

Each writer takes the run's native events (``shared/contracts/trace-format.md`` §1, in
file order) and returns, for every line it wrote, the index of the native event the line
came from (``None`` for lines that carry no event: file and batch headers). Tests use
that map to compare findings across formats event by event. ``docs/checking.md`` says
what each format can and cannot express.
"""

from __future__ import annotations

from .console import write_console
from .dump_log import write_dump_log
from .request_log import write_request_log

__all__ = ["write_console", "write_dump_log", "write_request_log"]
