"""The client host Kafka records for a call, from the connection id a trace event carries.

Its own module so the checker (``checker.py``) and its protocol parts (``classic.py``,
``connect.py``) all import it at module level: they import each other only for types.
"""

from __future__ import annotations


def client_host(connection: str | None) -> str:
    """``<broker host:port>-<client host:port>-<n>`` -> ``/<client host>`` as Kafka records it."""
    if not connection:
        return "/127.0.0.1"
    parts = connection.split("-")
    if len(parts) >= 2:
        host = parts[1].rsplit(":", 1)[0]
        return "/" + host.strip("[]")
    return "/127.0.0.1"
