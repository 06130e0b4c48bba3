"""``kgspec record``: record the calls between clients and a broker as Kafka's request log.

A decoding proxy (``conformance/peers/proxy.py``) listens on ``--listen`` and forwards every
connection to ``--upstream``; each request and its response, decoded, is written to ``--out``
as the line Kafka's ``kafka.request.logger`` would write for it at DEBUG (``[time] DEBUG
Completed request:{...} (kafka.request.logger)``, in UTC, stamped when the response came back,
with ``totalTimeMs``), one line as each response passes, flushed, so ``kgspec check`` reads the
file as it reads a broker's own log, while recording goes on or after. Clients must reach the
broker through the proxy: point their bootstrap servers at ``--listen`` (a broker that
advertises its own address sends them around the proxy after the first metadata answer; give
the broker an advertised listener that is the proxy's, or record a single-broker test cluster).
Recording stops after ``--duration`` seconds, or at Ctrl-C.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, TextIO

from kgspec.commands.output import one_line_errors


def register(sub: Any) -> None:
    p = sub.add_parser("record", help="record client-broker calls through a decoding proxy, as a request log",
                       description="Listen on HOST:PORT, forward every connection to the upstream broker, and "
                                   "write each call, decoded, as a kafka.request.logger line to FILE (readable by "
                                   "kgspec check). Needs the peers extra (kio). Exit 0 when recording ended (after "
                                   "--duration or Ctrl-C), 2 on a usage error.")
    p.add_argument("--listen", required=True, metavar="HOST:PORT", help="where clients connect (port 0: any free one)")
    p.add_argument("--upstream", required=True, metavar="HOST:PORT", help="the broker to forward to")
    p.add_argument("--out", required=True, type=Path, metavar="FILE", help="the request log to write")
    p.add_argument("--duration", type=float, metavar="SECONDS", help="stop after SECONDS (default: at Ctrl-C)")
    p.set_defaults(run=run)
    one_line_errors(p)


def parse_address(value: str, option: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"{option} needs HOST:PORT, got {value!r}")
    return host.strip("[]"), int(port)


def log_line(call: Any) -> str:
    """One call as Kafka's request logger writes it (RequestChannel: ``Completed request:{json}``)."""
    req = call.request
    body = {"isForwarded": False,
            "requestHeader": {"requestApiKey": req.api_key, "requestApiVersion": req.api_version,
                              "correlationId": req.correlation_id, "clientId": req.client_id,
                              "requestApiKeyName": req.api_name},
            "request": req.body, "response": call.response, "connection": call.connection,
            "totalTimeMs": round(call.total_ms, 3)}
    done = dt.datetime.fromtimestamp((call.ts_ms + call.total_ms) / 1000, dt.UTC)
    stamp = done.strftime("%Y-%m-%d %H:%M:%S,") + f"{done.microsecond // 1000:03d}"
    return f"[{stamp}] DEBUG Completed request:{json.dumps(body, separators=(',', ':'))} (kafka.request.logger)\n"


class LogSink:
    """Writes each call as it passes, from the proxy's threads (one line at a time)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.lock = threading.Lock()
        self.calls = 0

    def __call__(self, call: Any) -> None:
        if call.request.body is None or call.response is None:
            return  # not decodable: Kafka's log would have it, kgspec could not read it
        line = log_line(call)
        with self.lock:
            self.out.write(line)
            self.out.flush()
            self.calls += 1


def run(args: argparse.Namespace) -> int:
    try:
        listen = parse_address(args.listen, "--listen")
        upstream = parse_address(args.upstream, "--upstream")
        if args.duration is not None and args.duration <= 0:
            raise ValueError("--duration must be positive")
        from kgspec.conformance.peers.proxy import DecodingProxy
    except ModuleNotFoundError as exc:
        print(f"kgspec record: {exc.name} is not installed; install kgspec[peers]", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"kgspec record: {exc}", file=sys.stderr)
        return 2
    try:
        out = args.out.open("a", encoding="utf-8")
    except OSError as exc:
        print(f"kgspec record: --out {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    with out:
        sink = LogSink(out)
        proxy = DecodingProxy(sink, clock=lambda: time.time() * 1000.0)  # the log's times are wall-clock
        try:
            port = proxy.listen(upstream, listen[0], listen[1])
        except OSError as exc:
            print(f"kgspec record: --listen {args.listen}: {exc.strerror or exc}", file=sys.stderr)
            proxy.close()
            return 2
        print(f"recording {listen[0]}:{port} -> {upstream[0]}:{upstream[1]} into {args.out}"
              f"{'' if args.duration else ' (Ctrl-C to stop)'}", file=sys.stderr, flush=True)
        stop = threading.Event()
        previous = signal.signal(signal.SIGTERM, lambda *_: stop.set()) \
            if threading.current_thread() is threading.main_thread() else None
        try:
            stop.wait(args.duration)
        except KeyboardInterrupt:
            pass
        finally:
            proxy.close()
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)
    print(f"recorded {sink.calls} call(s) into {args.out}", file=sys.stderr)
    return 0
