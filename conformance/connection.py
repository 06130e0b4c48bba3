"""What a call's ``connection`` field says: the broker that answered it and the client host.

The field is Kafka's connection id (``Selector``/``SocketServer``), as its request log prints it:
``<broker host:port>-<client host:port>-<n>``, or without ``-<n>`` as a wire tap writes it. Host
names may hold dashes and IPv6 addresses colons, so the broker part ends at its first ``:port-``.
One parser for both readings (``moves.py`` follows the broker, the checks record the client host).

Its own module so the checker (``checker.py``) and its protocol parts (``classic.py``,
``connect.py``, ...) all import it at module level: they import each other only for types.
"""

from __future__ import annotations

import functools
import re
from typing import Final

_BROKER: Final = re.compile(r"(.*?:\d+)-")
_INDEX: Final = re.compile(r"-\d+$")  # the connection's index, after the client's port
_NO_HOST: Final = "/127.0.0.1"


@functools.lru_cache(maxsize=4096)  # a log has few connections, each seen many times
def broker_of(connection: str | None) -> str | None:
    """The broker address of a call's ``connection`` field (None when absent or not Kafka's shape)."""
    if not connection:
        return None
    match = _BROKER.match(connection)
    return match.group(1) if match is not None else None


@functools.lru_cache(maxsize=4096)
def client_host(connection: str | None) -> str:
    """``<broker host:port>-<client host:port>-<n>`` -> ``/<client host>`` as Kafka records it."""
    if not connection:
        return _NO_HOST
    match = _BROKER.match(connection)
    if match is not None:
        client = _INDEX.sub("", connection[match.end():])
    else:  # not Kafka's shape: the part after the first dash, if any
        parts = connection.split("-")
        if len(parts) < 2:
            return _NO_HOST
        client = parts[1]
    return "/" + client.rsplit(":", 1)[0].strip("[]")
