"""The ``connection`` field read once for both its parts: the broker that answered and the client host.

Kafka's connection id is ``<broker host:port>-<client host:port>-<n>`` (a wire tap writes it
without ``-<n>``); host names may hold dashes and IPv6 addresses colons. The broker part (coordinator
moves) and the client host (what the coordinator records) must split the field at the same place.
"""

from __future__ import annotations

import pytest
from kgspec.conformance.connection import broker_of, client_host
from kgspec.conformance.writers.request_log import broker_of as written_broker_of

CASES = [
    # connection, broker, client host
    ("127.0.0.1:9092-127.0.0.1:55442-0", "127.0.0.1:9092", "/127.0.0.1"),
    ("10.0.0.1:9092-10.0.0.9:5555", "10.0.0.1:9092", "/10.0.0.9"),  # a wire tap's, without the index
    ("broker-1.example:9092-10.0.0.9:5555-3", "broker-1.example:9092", "/10.0.0.9"),
    ("10.0.0.1:9092-client-a.example:5555-3", "10.0.0.1:9092", "/client-a.example"),
    ("b-1:9092-c-2:5555-12", "b-1:9092", "/c-2"),
    ("0:0:0:0:0:0:0:1:9092-0:0:0:0:0:0:0:1:5555-0", "0:0:0:0:0:0:0:1:9092", "/0:0:0:0:0:0:0:1"),
    ("[::1]:9092-[::1]:5555-0", "[::1]:9092", "/::1"),
    ("10.0.0.1:9092-host-12", "10.0.0.1:9092", "/host"),  # a client without a port
    # not Kafka's shape: no broker; the client host is the part after the first dash, as before
    ("a-b-c", None, "/b"),
    ("a-b:1", None, "/b"),
    ("nodash", None, "/127.0.0.1"),
    ("", None, "/127.0.0.1"),
    (None, None, "/127.0.0.1"),
]


@pytest.mark.parametrize(("connection", "broker", "host"), CASES)
def test_both_parts_of_a_connection(connection: str | None, broker: str | None, host: str) -> None:
    assert broker_of(connection) == broker
    assert client_host(connection) == host


@pytest.mark.parametrize(("connection", "broker", "host"), [c for c in CASES if c[0]])
def test_the_writer_reads_the_broker_as_the_checker_does(connection: str, broker: str | None, host: str) -> None:
    line = f'{{"requestHeader":{{}},"connection":"{connection}","totalTimeMs":1}}'
    assert written_broker_of(line) == broker
    assert written_broker_of('{"requestHeader":{}}') is None
