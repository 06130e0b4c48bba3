"""The one error a reader raises instead of yielding an item."""

from __future__ import annotations


class TraceFormatError(Exception):
    """The input cannot be read as a trace at all (the CLI exits with status 2).

    Raised for a missing file, a directory, binary data, an undetectable format, or an
    unsupported ``header.format``. Anything smaller is a ``Malformed`` item instead.
    """
