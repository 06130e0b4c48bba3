"""The Python API: a served coordinator for a test suite, in-process or as a subprocess.

::

    import kgspec

    with kgspec.serve(profile="kafka-4.1", topics={"t": 6}) as broker:
        consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "g", ...})
        ...
        broker.add_fault({"match": {"api": "ConsumerGroupHeartbeat", "clientId": "c2"}, "action": "drop"})
    assert not broker.findings   # the live findings (invariants, and client rules with clients=True)

In-process, the server runs on its own event loop in a background thread; the handle's
controls (``add_fault``, ``failover``, ``advance_clock``, ``create_topic``) run on that loop.
As a subprocess (``subprocess=True``) it is ``kgspec serve`` itself, stopped with SIGTERM; its
findings are then those of checking its trace when it stops.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import signal
import subprocess as sp
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

from kgspec.conformance.checker import check_items
from kgspec.conformance.findings import Finding, Report
from kgspec.conformance.readers.native import read_native
from kgspec.model.config import startup_problem
from kgspec.model.profiles import DEFAULT_PROFILE, get_profile

from .faults import FaultError, Rule, parse_rule
from .options import BROKER_CONFIGS, Options
from .server import Server, Summary

T = TypeVar("T")
START_TIMEOUT_S = 30.0


@dataclass
class ServedBroker:
    """A running ``kgspec serve``: its address, live findings and controls."""

    host: str
    port: int
    trace_path: Path | None
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    summary: Summary | None = None  # set when an in-process server stops (a subprocess prints its own)
    _server: Server | None = None
    _loop: asyncio.AbstractEventLoop | None = None

    @property
    def bootstrap(self) -> str:
        """``host:port``, for ``bootstrap.servers``."""
        return f"{self.host}:{self.port}"

    def _call(self, fn: Callable[[Server], T]) -> T:
        if self._server is None or self._loop is None:
            raise RuntimeError("run-time controls need an in-process server (subprocess=False)")
        server = self._server

        async def run() -> T:
            return fn(server)

        return asyncio.run_coroutine_threadsafe(run(), self._loop).result(timeout=30)

    def add_fault(self, rule: Rule | dict[str, Any]) -> Rule:
        """A fault rule from now on (the JSON shape of a ``--faults`` rule, or a Rule)."""
        parsed = rule if isinstance(rule, Rule) else parse_rule(rule)
        return self._call(lambda s: s.broker.faults.add(parsed))

    def clear_faults(self) -> None:
        self._call(lambda s: s.broker.faults.clear())

    def failover(self) -> None:
        """The coordinator fails over now (reloads its groups from their records)."""
        def fail_over(s: Server) -> None:
            s.broker.failover()
            s.deliver()
        self._call(fail_over)

    def advance_clock(self, ms: int) -> None:
        """The server's clock jumps ``ms`` forward; timers due by then fire."""
        def jump(s: Server) -> None:
            s.clock.skip(ms)
            s.broker.advance()
            s.deliver()
        self._call(jump)

    def create_topic(self, name: str, partitions: int) -> None:
        self._call(lambda s: s.broker.create_topic(name, partitions))


@contextlib.contextmanager
def serve(*, profile: str = DEFAULT_PROFILE, topics: dict[str, int] | None = None,
          configs: dict[str, Any] | None = None, faults: list[Rule | dict[str, Any]] | None = None,
          clients: bool = False, trace_out: str | Path | None = None, host: str = "127.0.0.1", port: int = 0,
          subprocess: bool = False) -> Iterator[ServedBroker]:
    """A served coordinator for the ``with`` block (``port=0``: a free port). ``configs`` take the
    coordinator's configs and the broker's (``num.partitions``, ``auto.create.topics.enable``)."""
    all_configs = dict(configs or {})
    broker_configs = dict(BROKER_CONFIGS) | {k: all_configs.pop(k) for k in list(all_configs) if k in BROKER_CONFIGS}
    startup = startup_problem(all_configs, get_profile(profile).assignment_batching)
    if startup is not None:  # as `kgspec serve --config`: Kafka would not start with them
        raise ValueError(f"configs: {startup[0]}: Kafka refuses to start with it ({startup[1]})")
    rules = [r if isinstance(r, Rule) else parse_rule(r, f"faults[{i}]") for i, r in enumerate(faults or [])]
    options = Options(host=host, port=port, profile=profile, configs=all_configs, broker_configs=broker_configs,
                      topics=dict(topics or {}), clients=clients, faults=rules)
    if subprocess:
        with _subprocess(options, trace_out, faults or []) as broker:
            yield broker
        return
    with _in_process(options, trace_out) as broker:
        yield broker


@contextlib.contextmanager
def _in_process(options: Options, trace_out: str | Path | None) -> Iterator[ServedBroker]:
    out: IO[str] | None = Path(trace_out).open("w", encoding="utf-8") if trace_out else None  # noqa: SIM115
    ready: concurrent.futures.Future[ServedBroker] = concurrent.futures.Future()
    stopped: concurrent.futures.Future[None] = concurrent.futures.Future()
    holder: dict[str, Any] = {}

    async def main() -> None:
        notes: list[str] = []
        server = Server(options, trace_out=out, err=notes.append)
        try:
            host, port = await server.start()
        except BaseException as exc:
            ready.set_exception(exc)
            return
        stop = asyncio.Event()
        holder["stop"] = stop
        broker = ServedBroker(host, port, Path(trace_out) if trace_out else None, server.findings, notes,
                              _server=server, _loop=asyncio.get_running_loop())
        ready.set_result(broker)
        await stop.wait()
        broker.summary = await server.stop()

    def thread() -> None:
        try:
            asyncio.run(main())
            stopped.set_result(None)
        except BaseException as exc:  # handed to the caller's thread
            stopped.set_exception(exc)

    t = threading.Thread(target=thread, name="kgspec-serve", daemon=True)
    t.start()
    try:
        broker = ready.result(timeout=START_TIMEOUT_S)
        try:
            yield broker
        finally:
            assert broker._loop is not None
            broker._loop.call_soon_threadsafe(holder["stop"].set)
            stopped.result(timeout=60)
            t.join(timeout=10)
    finally:
        if out is not None:
            out.close()


@contextlib.contextmanager
def _subprocess(options: Options, trace_out: str | Path | None,
                faults: list[Rule | dict[str, Any]]) -> Iterator[ServedBroker]:
    with tempfile.TemporaryDirectory(prefix="kgspec-serve-") as tmp:
        trace = Path(trace_out) if trace_out else Path(tmp) / "trace.jsonl"
        argv = [sys.executable, "-m", "kgspec", "serve", "--host", options.host, "--port", str(options.port),
                "--profile", options.profile, "--trace-out", str(trace)]
        for name, value in {**options.configs, **options.broker_configs}.items():
            argv += ["--config", f"{name}={str(value).lower() if isinstance(value, bool) else value}"]
        for name, partitions in options.topics.items():
            argv += ["--topic", f"{name}:{partitions}"]
        if options.clients:
            argv.append("--clients")
        if faults:
            if any(isinstance(r, Rule) for r in faults):
                raise FaultError("faults: a subprocess takes rules in their JSON shape (dicts), not Rule objects")
            rules_file = Path(tmp) / "faults.json"
            rules_file.write_text(_json({"rules": faults}), encoding="utf-8")
            argv += ["--faults", str(rules_file)]
        proc = sp.Popen(argv, stdout=sp.PIPE, stderr=sp.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        err: list[str] = []  # read as it comes: a full pipe would stop the server
        reader = threading.Thread(target=lambda: err.extend(x.rstrip("\n") for x in proc.stderr or ()), daemon=True)
        reader.start()
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            if not line.startswith("kgspec serve: listening on "):
                proc.wait(timeout=10)
                reader.join(timeout=10)
                raise RuntimeError(f"kgspec serve did not start: {line.strip()} {' '.join(err)}")
            host, _, port = line.rsplit(" ", 1)[1].strip().rpartition(":")
            broker = ServedBroker(host, int(port), trace, notes=err)
            yield broker
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            if proc.stdout is not None:
                proc.stdout.read()  # the summary; EOF when it has exited
            proc.wait(timeout=60)
            reader.join(timeout=10)
        report = Report()
        with trace.open("rb") as stream:
            check_items(str(trace), read_native(stream), report, clients=options.clients)
        broker.findings.extend(report.findings)


def _json(obj: Any) -> str:
    return json.dumps(obj)
