#!/usr/bin/env python3
"""Record contract traces from librdkafka's KIP-848 consumer against librdkafka's mock cluster.

Each scenario gets a fresh mock cluster (confluent-kafka's bundled librdkafka, driven
through ctypes) with a decoding TCP proxy (kio) in front of every broker; 2-3
confluent-kafka consumers with group.protocol=consumer run through the scenario, and
every ConsumerGroupHeartbeat the proxy saw is written as a kgspec-trace/1 trace (header
with the mock's settings as Kafka configs, the mock's topics with their ids, calls in the
shape of Kafka's request log). Needs the `peers` extra (confluent-kafka, kio).

Check the result against Kafka with the mock's known departures allowed:
  kgspec check --allow conformance/allowlists/librdkafka-mock.json --clients OUT/*.jsonl
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

from kgspec.conformance.peers.librdkafka import SCENARIOS, Recording, Settings, trace_events

from kgspec.sim.trace import write_trace


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="tests/data/librdkafka", help="output directory (default: %(default)s)")
    p.add_argument("--scenario", action="append", choices=sorted(SCENARIOS),
                   help="scenario to record (repeatable; default: all)")
    p.add_argument("--heartbeat-interval-ms", type=int, default=500, help="mock heartbeat interval (default 500)")
    p.add_argument("--session-timeout-ms", type=int, default=3000, help="mock session timeout (default 3000)")
    p.add_argument("--partitions", type=int, default=4, help="partitions of topic t (default 4)")
    p.add_argument("--brokers", type=int, default=1, help="mock brokers, each behind its own proxy (default 1)")
    p.add_argument("--all-apis", action="store_true",
                   help="also write a <scenario>.wire.jsonl with every decoded call (Metadata, Fetch, ...)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress output")
    args = p.parse_args(argv)
    try:
        import confluent_kafka
        import kio  # noqa: F401
    except ImportError as exc:
        print(f"record_librdkafka: needs the peers extra (pip install 'kgspec[peers]'): {exc}", file=sys.stderr)
        return 2

    def log(msg: str) -> None:
        if not args.quiet:
            print(msg, flush=True)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    settings = Settings(heartbeat_interval_ms=args.heartbeat_interval_ms, session_timeout_ms=args.session_timeout_ms,
                        partitions=args.partitions, brokers=args.brokers)
    log(f"confluent-kafka {confluent_kafka.version()[0]}, librdkafka {confluent_kafka.libversion()[0]}")
    for name in args.scenario or list(SCENARIOS):
        log(f"== {name}")
        started = time.monotonic()
        recording = Recording(settings, log=lambda m: log("   " + m))
        try:
            SCENARIOS[name](recording)
        finally:
            recording.close()
        events = trace_events(recording.calls, settings, injections=recording.injections,
                              expiries=recording.expiries)
        path = out / f"{name}.jsonl"
        write_trace(events, path)
        apis = Counter(c.request.api_name for c in recording.calls)
        undecoded = sum(1 for c in recording.calls if c.request.body is None or c.response is None)
        log(f"   wrote {path}: {len(events)} lines "
            f"in {time.monotonic() - started:.1f} s; proxy saw {sum(apis.values())} calls "
            f"({', '.join(f'{k} {v}' for k, v in apis.most_common())}); undecoded: {undecoded}")
        if args.all_apis:
            wire = trace_events(recording.calls, settings, apis=frozenset(c.request.api_key for c in recording.calls),
                                injections=recording.injections)
            write_trace(wire, out / f"{name}.wire.jsonl")
    return 0


if __name__ == "__main__":
    sys.exit(main())
