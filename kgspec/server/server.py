"""The asyncio server: sockets, frames, the clock and timers around one :class:`~.broker.Broker`.

Each connection is served as Kafka serves it: one request at a time, in order (Kafka mutes a
connection until the response to its current request is sent), so a parked JoinGroup holds its
connection and responses never overtake each other. Timers fire in real time: a task sleeps
until the coordinator's earliest deadline (the model tells it of a new one through
``Coordinator.watch_timers``) and advances the model to the server's clock. Everything runs on
the event loop's one thread; the model is never entered twice at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

from kgspec.conformance.findings import Finding
from kgspec.conformance.peers.wire import API_VERSIONS

from .broker import Broker, Clock, Conn, Outcome
from .codec import CodecError, Request, read_request, response_frame
from .options import Options

MAX_FRAME = 100 * 1024 * 1024
HEARTBEATS = frozenset({12, 68, 88})  # Heartbeat, ConsumerGroupHeartbeat, StreamsGroupHeartbeat


@dataclass(slots=True)
class Summary:
    seconds: float
    calls: int
    group_calls: int
    groups: int
    findings: list[Finding]
    faults: int

    def line(self) -> str:
        return (f"kgspec serve: served {self.calls} call(s) ({self.group_calls} to the coordinator) in "
                f"{self.seconds:.1f} s, {self.groups} group(s), {self.faults} fault(s) injected, "
                f"{len(self.findings)} live finding(s)")


class Server:
    def __init__(self, options: Options, *, trace_out: IO[str] | None = None,
                 err: Callable[[str], None] | None = None, clock: Clock | None = None) -> None:
        self.options = options
        self._err = err or (lambda line: print(line, file=sys.stderr, flush=True))
        self.clock = clock or Clock()
        self.findings: list[Finding] = []
        self.broker = Broker(options, self.clock, trace_out, self._finding, note=self._note)
        self.broker.coord.watch_timers(lambda _deadline: self._wake_timers())
        self._parked: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._data = asyncio.Event()
        self._timer_wake = asyncio.Event()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._numbers = itertools.count()
        self._started = time.monotonic()
        self.internal_errors = 0
        # How long each heartbeat took from its frame read to its response written (the last 100,000).
        self.heartbeat_ms: deque[float] = deque(maxlen=100_000)

    # --- life ----------------------------------------------------------------------------

    async def start(self) -> tuple[str, int]:
        self._server = await asyncio.start_server(self._client, self.options.host, self.options.port)
        port = self._server.sockets[0].getsockname()[1]
        self.broker.set_address(self.options.host, int(port))
        self._spawn(self._timers())
        return self.options.host, int(port)

    async def stop(self) -> Summary:
        """Stop listening, close every connection, fire what is due, end the trace."""
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for writer in list(self._writers):
            writer.close()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
        self.broker.shutdown()
        if self.broker.trace.broken is not None:
            self.internal_errors += 1
            self._err(f"kgspec serve: {self.broker.trace.broken}")
        stats = self.broker.stats
        groups = {g.group_id for g in self.broker.trace.report.groups} | set(self.broker.trace.checker.groups)
        return Summary(time.monotonic() - self._started, sum(stats.calls.values()), stats.group_calls,
                       len(groups), list(self.findings), stats.faults)

    def status_line(self) -> str:
        """Where the server is now (``kgspec serve`` prints it on SIGUSR1)."""
        stats = self.broker.stats
        line = (f"kgspec serve: status: served {sum(stats.calls.values())} call(s) ({stats.group_calls} to the "
                f"coordinator), {len(self.broker.trace.checker.groups)} group(s), {stats.faults} fault(s) injected, "
                f"{len(self.findings)} live finding(s)")
        if self.heartbeat_ms:
            times = sorted(self.heartbeat_ms)
            p50, p99 = times[len(times) // 2], times[min(len(times) - 1, len(times) * 99 // 100)]
            line += f"; heartbeats served in {p50:.2f} ms (p50), {p99:.2f} ms (p99)"
        return line

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _note(self, line: str) -> None:
        self.broker.stats.notes.append(line)
        self._err(f"kgspec serve: {line}")

    def _finding(self, finding: Finding, event: dict[str, Any]) -> None:
        self.findings.append(finding)
        call = ""
        header = event.get("requestHeader")
        if isinstance(header, dict):
            call = f" (call: {header.get('requestApiKeyName')} from {header.get('clientId')})"
        where = f"trace line {finding.line}" if finding.line > 0 else "end of trace"
        self._err(f"kgspec serve: live finding at {where}: group {finding.group_id}: {finding.kind}"
                  f"{f' ({finding.field})' if finding.field else ''}: {finding.message}{call}")

    # --- timers --------------------------------------------------------------------------

    def _wake_timers(self) -> None:
        self._timer_wake.set()

    async def _timers(self) -> None:
        while True:
            deadline = self.broker.next_deadline()
            wait = 1.0 if deadline is None else max(0.0, (deadline - self.clock.now()) / 1000)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._timer_wake.wait(), min(wait, 1.0))
            self._timer_wake.clear()
            try:
                self.broker.advance()
            except Exception:  # a bug in kgspec: say so, keep serving the data APIs
                self._internal("timers")
                return
            self.deliver()

    def deliver(self) -> None:
        """Hand the parked calls the model answered to their connections."""
        for call_id, response in self.broker.completed():
            future = self._parked.pop(call_id, None)
            if future is not None and not future.done():
                future.set_result(response)

    def _internal(self, where: str) -> None:
        self.internal_errors += 1
        self._err(f"kgspec serve: internal error in {where} (a bug in kgspec):\n{traceback.format_exc()}")

    # --- connections ---------------------------------------------------------------------

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:  # cancelled and awaited by stop()
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        self._writers.add(writer)
        peer = writer.get_extra_info("peername") or ("?", 0)
        host, port = self.broker.address
        conn = Conn(f"{host}:{port}-{peer[0]}:{peer[1]}-{next(self._numbers)}", f"/{peer[0]}")
        try:
            while True:
                head = await reader.readexactly(4)
                size = int.from_bytes(head, "big", signed=True)
                if not 0 < size <= MAX_FRAME:
                    return
                frame = await reader.readexactly(size)
                if not await self._one(conn, frame, writer):
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        except asyncio.CancelledError:  # the server stops: the connection ends with it
            return
        finally:
            self._writers.discard(writer)
            writer.close()

    async def _one(self, conn: Conn, frame: bytes, writer: asyncio.StreamWriter) -> bool:
        """Serve one request; False: close the connection."""
        try:
            req = read_request(frame)
        except CodecError as exc:
            self._err(f"kgspec serve: {conn.id}: {exc}; closing the connection")
            return False
        version = req.api_version
        if req.body is None:  # a version kio has no schema for: Kafka closes, but answers ApiVersions v0
            if req.api_key != API_VERSIONS:
                self._err(f"kgspec serve: {conn.id}: {req.api_name} v{version} is not served; closing the connection")
                return False
            version = 0
        started = time.perf_counter()
        try:
            outcome = self.broker.serve(conn, req)
            self.deliver()
            if req.api_key == 0:  # Produce: wake the fetches waiting for data
                self._data.set()
                self._data = asyncio.Event()
            response = await self._response(req, outcome)
        except asyncio.CancelledError:
            raise
        except Exception:
            self._internal(f"{req.api_name} v{req.api_version} from {req.client_id}")
            return False
        if outcome.close:
            return False
        if outcome.delay_ms:
            await asyncio.sleep(outcome.delay_ms / 1000)
        if outcome.drop or response is None:
            return True
        writer.write(response_frame(req.api_key, version, req.correlation_id, response))
        if req.api_key in HEARTBEATS and not outcome.delay_ms:
            self.heartbeat_ms.append((time.perf_counter() - started) * 1000)
        await writer.drain()
        return True

    async def _response(self, req: Request, outcome: Outcome) -> Any:
        if outcome.parked is not None:
            future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
            self._parked[outcome.parked] = future
            self.deliver()  # it may already have completed
            return await future
        if outcome.wait_ms:
            deadline = time.monotonic() + outcome.wait_ms / 1000
            body = req.json()
            while (left := deadline - time.monotonic()) > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._data.wait(), left)
                response = self.broker.data.fetch(body, final=False)
                if response is not None:
                    return response
            return self.broker.data.fetch(body, final=True)
        return outcome.response
