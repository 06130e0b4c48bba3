"""A decoding TCP proxy in front of Kafka brokers: every request/response pair, decoded.

One listening socket per broker. Each client connection gets its own upstream connection
and two pump threads: requests are decoded (:mod:`.wire`), time-stamped when they are
forwarded to the broker (that is when the coordinator sees them) and remembered by
correlation id; each response is matched to its request and the pair handed to the sink.
Requests of a client id on hold are not forwarded until it is released, which lets a
scenario make a client go silent without stopping it (session-timeout fencing).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .wire import RequestFrame, WireError, decode_request, decode_response, peek_correlation_id


@dataclass(frozen=True, slots=True)
class Call:
    """One request/response pair as the proxy saw it."""

    ts_ms: float  # when the request was forwarded to the broker (ms since the proxy started)
    total_ms: float  # until the response came back
    connection: str  # Kafka's request-log form: <broker host:port>-<client host:port>-<n>
    request: RequestFrame
    response: dict[str, Any] | None  # None: the response could not be decoded
    response_error: str | None = None


Sink = Callable[[Call], None]


def _read_frame(sock: socket.socket) -> bytes | None:
    head = _read_exact(sock, 4)
    if head is None:
        return None
    size = int.from_bytes(head, "big", signed=True)
    if size < 0:
        return None
    return _read_exact(sock, size)


def _read_exact(sock: socket.socket, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        try:
            chunk = sock.recv(n - len(buf))
        except OSError:
            return None
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


class DecodingProxy:
    """Proxies ``listen host:port`` -> ``upstream`` per broker and reports every call to ``sink``."""

    def __init__(self, sink: Sink, clock: Callable[[], float] | None = None) -> None:
        self.sink = sink
        self._t0 = time.monotonic()
        self._clock = clock or (lambda: (time.monotonic() - self._t0) * 1000.0)
        self._lock = threading.Lock()  # forwarding order is the order of time stamps
        self._held: set[str] = set()
        self._released = threading.Condition()
        self._listeners: list[socket.socket] = []
        self._sockets: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._connections = 0
        self._closed = False

    def now_ms(self) -> float:
        return self._clock()

    def listen(self, upstream: tuple[str, int], host: str = "127.0.0.1", port: int = 0) -> int:
        """Start proxying a local port (``port``, or any free one) to ``upstream``; returns the port."""
        server = socket.create_server((host, port))
        self._listeners.append(server)
        port = int(server.getsockname()[1])
        self._spawn(self._accept_loop, server, upstream, f"{host}:{port}")
        return port

    def hold(self, client_id: str) -> None:
        """Stop forwarding this client's requests (they queue) until :meth:`release`."""
        with self._released:
            self._held.add(client_id)

    def release(self, client_id: str) -> None:
        with self._released:
            self._held.discard(client_id)
            self._released.notify_all()

    def close(self) -> None:
        self._closed = True
        with self._released:
            self._held.clear()
            self._released.notify_all()
        for s in self._listeners + self._sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()
        for t in self._threads:
            t.join(timeout=2)

    # --- internals -----------------------------------------------------------------------

    def _wait_unheld(self, client_id: str) -> None:
        with self._released:
            self._released.wait_for(lambda: client_id not in self._held)

    def _spawn(self, target: Callable[..., None], *args: Any) -> None:
        t = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(t)
        t.start()

    def _accept_loop(self, server: socket.socket, upstream: tuple[str, int], local: str) -> None:
        while not self._closed:
            try:
                client, addr = server.accept()
            except OSError:
                return
            try:
                broker = socket.create_connection(upstream)
            except OSError:
                client.close()
                continue
            for s in (client, broker):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self._sockets.append(s)
            with self._lock:
                n = self._connections
                self._connections += 1
            connection = f"{local}-{addr[0]}:{addr[1]}-{n}"
            pending: dict[int, tuple[float, RequestFrame]] = {}
            self._spawn(self._requests, client, broker, pending, connection)
            self._spawn(self._responses, broker, client, pending, connection)

    def _requests(self, client: socket.socket, broker: socket.socket,
                  pending: dict[int, tuple[float, RequestFrame]], connection: str) -> None:
        while (frame := _read_frame(client)) is not None:
            try:
                request = decode_request(frame)
            except WireError:
                request = None
            if request is not None and request.client_id is not None:
                self._wait_unheld(request.client_id)
            with self._lock:
                ts = self.now_ms()
                if request is not None:
                    pending[request.correlation_id] = (ts, request)
                try:
                    broker.sendall(len(frame).to_bytes(4, "big") + frame)
                except OSError:
                    break
        _shutdown(broker)

    def _responses(self, broker: socket.socket, client: socket.socket,
                   pending: dict[int, tuple[float, RequestFrame]], connection: str) -> None:
        while (frame := _read_frame(broker)) is not None:
            now = self.now_ms()
            try:
                entry = pending.pop(peek_correlation_id(frame), None)
            except WireError:
                entry = None
            if entry is not None:
                ts, request = entry
                try:
                    body: dict[str, Any] | None = decode_response(frame, request.api_key, request.api_version)
                    error = None
                except WireError as exc:
                    body, error = None, str(exc)
                self.sink(Call(ts, now - ts, connection, request, body, error))
            try:
                client.sendall(len(frame).to_bytes(4, "big") + frame)
            except OSError:
                break
        _shutdown(client)


def _shutdown(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
