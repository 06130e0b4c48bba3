"""``kgspec serve``: the model as a Kafka group coordinator that real clients join (docs/serve.md)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from kgspec.commands.check import parse_configs, parse_pairs
from kgspec.commands.output import error, one_line_errors
from kgspec.model.profiles import DEFAULT_PROFILE, PROFILES
from kgspec.server.options import BROKER_CONFIGS, Options

if TYPE_CHECKING:
    from kgspec.server.server import Server


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="serve the model as a Kafka group coordinator for real clients",
        description="Listen for Kafka clients and answer them as one broker that is its own group "
                    "coordinator: every group call (classic, KIP-848 consumer and streams groups, offsets, "
                    "describes, listings) is answered by the model; Metadata, Produce, Fetch and ListOffsets "
                    "run over in-memory logs. Prints 'kgspec serve: listening on HOST:PORT' when ready; on "
                    "SIGINT or SIGTERM ends the trace, prints a summary and exits 0 (1 if a live check found "
                    "anything, 2 on a usage error); SIGUSR1 prints a status line to standard error, SIGHUP "
                    "reloads the --faults file. "
                    "See docs/serve.md.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=9092, help="port to listen on (default 9092; 0 picks a free one)")
    p.add_argument("--profile", choices=sorted(PROFILES), default=DEFAULT_PROFILE,
                   help=f"the Kafka release whose coordinator the model plays (default {DEFAULT_PROFILE})")
    p.add_argument("--config", action="append", default=[], metavar="NAME=VALUE",
                   help="a coordinator config by its Kafka name (group.consumer.heartbeat.interval.ms=500, ...) "
                        f"or a broker config ({', '.join(sorted(BROKER_CONFIGS))}); repeatable")
    p.add_argument("--topic", action="append", default=[], metavar="NAME:PARTITIONS",
                   help="create a topic at start (repeatable); clients may also create topics "
                        "(CreateTopics, or Metadata when auto.create.topics.enable)")
    p.add_argument("--trace-out", metavar="FILE",
                   help="write the contract's native trace of everything the coordinator served "
                        "(check it with `kgspec check --clients FILE`)")
    p.add_argument("--clients", action="store_true", help="also judge clients live against the client-side rules")
    p.add_argument("--faults", metavar="FILE", help="fault rules (JSON, docs/serve.md): drop, delay, error, "
                   "close, clock, failover for matching calls; SIGHUP reloads the file")
    p.set_defaults(run=run)
    one_line_errors(p)


def parse_topics(values: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for value in values:
        name, sep, count = value.rpartition(":")
        if not sep or not name or not count.isdigit() or int(count) < 1:
            raise ValueError(f"--topic needs NAME:PARTITIONS with PARTITIONS >= 1, got {value!r}")
        out[name] = int(count)
    return out


def options_from(args: argparse.Namespace) -> Options:
    """The server's options from the command line; ValueError names the option at fault (a
    FaultError, a ValueError too, the rules file and its field)."""
    from kgspec.server.faults import load_rules  # needs kio (the peers extra)

    pairs = parse_pairs(args.config, "--config")
    broker = dict(BROKER_CONFIGS)
    for name in list(pairs):
        if name in BROKER_CONFIGS:
            raw = pairs.pop(name)
            if name == "num.partitions":
                if not raw.isdigit() or int(raw) < 1:
                    raise ValueError(f"--config num.partitions must be an integer >= 1, got {raw!r}")
                broker[name] = int(raw)
            else:
                if raw not in ("true", "false"):
                    raise ValueError(f"--config {name} must be true or false, got {raw!r}")
                broker[name] = raw == "true"
    configs = parse_configs([f"{k}={v}" for k, v in pairs.items()], args.profile)
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be 0..65535, got {args.port}")
    return Options(host=args.host, port=args.port, profile=args.profile, configs=configs, broker_configs=broker,
                   topics=parse_topics(args.topic), clients=args.clients,
                   faults=load_rules(args.faults) if args.faults else [])


def run(args: argparse.Namespace) -> int:
    try:
        import kio  # noqa: F401  (the wire codec: the peers extra)
    except ModuleNotFoundError:
        error("serve", "needs kio, the Kafka wire codec: pip install 'kgspec[peers]'")
        return 2
    try:
        options = options_from(args)
    except ValueError as exc:
        error("serve", str(exc))
        return 2
    out: IO[str] | None = None
    if args.trace_out:
        try:
            out = Path(args.trace_out).open("w", encoding="utf-8")  # noqa: SIM115 (closed below)
        except OSError as exc:
            error("serve", f"--trace-out {args.trace_out}: cannot write: {exc.strerror or exc}")
            return 2
    try:
        return asyncio.run(_serve(options, out, args.trace_out, args.faults))
    except OSError as exc:  # the port is taken, the address is not ours
        error("serve", f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
        return 2
    finally:
        if out is not None:
            out.close()


async def _serve(options: Options, out: IO[str] | None, trace_name: str | None, faults: str | None) -> int:
    from kgspec.server.server import Server

    server: Server = Server(options, trace_out=out)

    def reload_faults() -> None:
        """SIGHUP: the rules file again, its rules replacing the running ones (kept if it does not validate)."""
        from kgspec.server.faults import load_rules

        if faults is None:
            print("kgspec serve: SIGHUP: no --faults file to reload", file=sys.stderr, flush=True)
            return
        try:
            rules = load_rules(faults)
        except ValueError as exc:
            print(f"kgspec serve: SIGHUP: {exc}; the running rules are kept", file=sys.stderr, flush=True)
            return
        server.broker.faults.replace(rules)
        print(f"kgspec serve: SIGHUP: {len(rules)} fault rule(s) loaded from {faults}", file=sys.stderr, flush=True)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):  # before the ready line: a signal right after it is ours
        loop.add_signal_handler(sig, stop.set)
    loop.add_signal_handler(signal.SIGUSR1, lambda: print(server.status_line(), file=sys.stderr, flush=True))
    loop.add_signal_handler(signal.SIGHUP, reload_faults)
    host, port = await server.start()
    print(f"kgspec serve: listening on {host}:{port}", flush=True)
    try:
        await stop.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1, signal.SIGHUP):
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)
    summary = await server.stop()
    print(summary.line() + (f"; trace: {trace_name}" if trace_name else ""), flush=True)
    sys.stdout.flush()
    return 1 if summary.findings or server.internal_errors else 0
