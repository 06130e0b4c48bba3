"""Readers: every supported trace format to ``Event``/``Malformed``/``Skipped`` items.

All readers stream: they read bounded lines from a binary stream and keep memory
constant in the file's length (the request-log reader holds one re-ordering window).
``docs/formats.md`` describes each format.
"""

from __future__ import annotations

from .console import read_console
from .detect import FORMATS, detect_format, open_trace
from .dump_log import read_dump_log
from .errors import TraceFormatError
from .header import DEFAULT_PROFILE, TRACE_FORMAT, TraceHeader
from .lines import DEFAULT_MAX_LINE_BYTES
from .native import read_native
from .request_log import DEFAULT_REORDER_WINDOW_MS, GROUP_API_KEYS, read_request_log

__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "DEFAULT_PROFILE",
    "DEFAULT_REORDER_WINDOW_MS",
    "FORMATS",
    "GROUP_API_KEYS",
    "TRACE_FORMAT",
    "TraceFormatError",
    "TraceHeader",
    "detect_format",
    "open_trace",
    "read_console",
    "read_dump_log",
    "read_native",
    "read_request_log",
]
