"""librdkafka's mock cluster, driven through ctypes on the library confluent-kafka bundles.

confluent-kafka exposes the mock only through the hidden ``test.mock.num.brokers`` property,
which gives no handle for fault injection. The bundled shared library exports the whole
``rd_kafka_mock_*`` API (librdkafka's ``src/rdkafka_mock.h``), so this module creates a
private ``rd_kafka_t`` (a producer handle that is never used to produce), a mock cluster
on it, and exposes the calls the recorder needs: topics, the advertised address of each
broker (so clients go through a proxy), consumer-group timeouts and injected errors.
"""

from __future__ import annotations

import ctypes
import glob
import os
from collections.abc import Callable
from typing import Any

RD_KAFKA_PRODUCER = 0
# void log_cb(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
LOG_CB = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p)


def bundled_library() -> str:
    """Path of the librdkafka shared library inside the installed confluent-kafka wheel."""
    import confluent_kafka

    site = os.path.dirname(os.path.dirname(confluent_kafka.__file__))
    found = sorted(glob.glob(os.path.join(site, "confluent_kafka.libs", "librdkafka*.so*")))
    if not found:
        raise RuntimeError("confluent-kafka's bundled librdkafka was not found (a wheel install is needed)")
    return found[0]


def _bind(lib: ctypes.CDLL) -> None:
    p, i, c = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
    sigs: dict[str, tuple[list[Any], Any]] = {
        "rd_kafka_conf_new": ([], p),
        "rd_kafka_conf_set": ([p, c, c, c, ctypes.c_size_t], i),
        "rd_kafka_new": ([i, p, c, ctypes.c_size_t], p),
        "rd_kafka_destroy": ([p], None),
        "rd_kafka_mock_cluster_new": ([p, i], p),
        "rd_kafka_mock_cluster_destroy": ([p], None),
        "rd_kafka_mock_cluster_bootstraps": ([p], c),
        "rd_kafka_mock_topic_create": ([p, c, i, i], i),
        "rd_kafka_mock_broker_set_host_port": ([p, ctypes.c_int32, c, i], None),
        "rd_kafka_mock_set_group_consumer_session_timeout_ms": ([p, i], None),
        "rd_kafka_mock_set_group_consumer_heartbeat_interval_ms": ([p, i], None),
        "rd_kafka_mock_push_request_errors_array": ([p, ctypes.c_int16, ctypes.c_size_t, ctypes.POINTER(i)], None),
        "rd_kafka_err2str": ([i], c),
        "rd_kafka_conf_set_log_cb": ([p, LOG_CB], None),
    }
    for name, (args, res) in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = res


class MockCluster:
    """One librdkafka mock cluster with ``brokers`` brokers (ids 1..N)."""

    def __init__(self, brokers: int = 1, library: str | None = None,
                 on_log: Callable[[str], None] | None = None) -> None:
        self.lib = ctypes.CDLL(library or bundled_library())
        _bind(self.lib)
        self.brokers = brokers
        errstr = ctypes.create_string_buffer(512)
        conf = self.lib.rd_kafka_conf_new()
        # The handle only hosts the cluster. With ``on_log`` its mock debug lines (member
        # fenced, session timed out, ...) go there, from the mock's own thread.
        self._log_cb = None
        if on_log is not None:
            def forward(rk: Any, level: int, fac: bytes, buf: bytes) -> None:
                on_log(buf.decode("utf-8", "replace"))
            self._log_cb = LOG_CB(forward)
            self.lib.rd_kafka_conf_set(conf, b"debug", b"mock", errstr, len(errstr))
            self.lib.rd_kafka_conf_set_log_cb(conf, self._log_cb)
        else:
            self.lib.rd_kafka_conf_set(conf, b"log_level", b"3", errstr, len(errstr))
        self._rk = self.lib.rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, len(errstr))
        if not self._rk:
            raise RuntimeError(f"rd_kafka_new failed: {errstr.value.decode()}")
        self._mc = self.lib.rd_kafka_mock_cluster_new(self._rk, brokers)
        if not self._mc:
            self.lib.rd_kafka_destroy(self._rk)
            raise RuntimeError("rd_kafka_mock_cluster_new failed")

    @property
    def bootstraps(self) -> str:
        """``host:port,...`` of the mock brokers' own listeners."""
        return str(self.lib.rd_kafka_mock_cluster_bootstraps(self._mc).decode())

    def broker_addresses(self) -> dict[int, tuple[str, int]]:
        """Broker id -> listener address (the mock numbers brokers 1..N in bootstrap order)."""
        out: dict[int, tuple[str, int]] = {}
        for n, hostport in enumerate(self.bootstraps.split(","), start=1):
            host, port = hostport.rsplit(":", 1)
            out[n] = (host, int(port))
        return out

    def advertise(self, broker_id: int, host: str, port: int) -> None:
        """Make Metadata and FindCoordinator name ``host:port`` for this broker (a proxy)."""
        self.lib.rd_kafka_mock_broker_set_host_port(self._mc, broker_id, host.encode(), port)

    def create_topic(self, name: str, partitions: int, replication: int = 1) -> None:
        err = self.lib.rd_kafka_mock_topic_create(self._mc, name.encode(), partitions, replication)
        if err:
            raise RuntimeError(f"rd_kafka_mock_topic_create({name}): {self.error_name(err)}")

    def set_consumer_group_timeouts(self, *, session_ms: int, heartbeat_ms: int) -> None:
        self.lib.rd_kafka_mock_set_group_consumer_session_timeout_ms(self._mc, session_ms)
        self.lib.rd_kafka_mock_set_group_consumer_heartbeat_interval_ms(self._mc, heartbeat_ms)

    def push_request_errors(self, api_key: int, errors: list[int]) -> None:
        """The next ``len(errors)`` requests of ``api_key`` (any broker) fail with these codes."""
        arr = (ctypes.c_int * len(errors))(*errors)
        self.lib.rd_kafka_mock_push_request_errors_array(self._mc, api_key, len(errors), arr)

    def error_name(self, code: int) -> str:
        return str(self.lib.rd_kafka_err2str(code).decode())

    def close(self) -> None:
        if self._mc:
            self.lib.rd_kafka_mock_cluster_destroy(self._mc)
            self._mc = None
        if self._rk:
            self.lib.rd_kafka_destroy(self._rk)
            self._rk = None

    def __enter__(self) -> MockCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
