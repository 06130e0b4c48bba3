"""Differential check of whole streams sessions: the model records them, Kafka's coordinator replays them.

A developer script (never a test dependency; see /work/shared/oracle/README.md). Seeded random sessions:
2-7 well-behaved streams clients with UUID member ids on 1-3 processes (so members of one process compete
for tasks), a stateful or stateless topology, 0-2 standby replicas, an assignment interval of 0 or 1000 ms,
joins, heartbeats and leaves; on ``kafka-trunk`` also reported task offsets and a StreamsGroupDescribe after
every call (trunk's harness compares it, so target assignments are compared too). Each session is recorded
by the model (``TraceRecorder``) and replayed with ``oracle.sh check``; a mismatch prints its first lines.

    ORACLE_DIR=/tmp/oracle-4.3 python scripts/oracle_streams_sessions.py --profile kafka-4.3 --sessions 60
    ORACLE_DIR=/tmp/oracle-trunk python scripts/oracle_streams_sessions.py --profile kafka-trunk --sessions 60

Run from the checkout root (it uses ``tests/streams/goldens.py``'s client).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kgspec.conformance.recorder import TraceRecorder

from tests.streams.goldens import STATEFUL, STATELESS, Client

ORACLE = Path(os.environ.get("ORACLE_HOME", "/work/shared/oracle")) / "oracle.sh"


def session(seed: int, profile: str) -> TraceRecorder:
    rng = random.Random(seed)
    k = rng.randint(2, 6)
    configs = {"group.streams.initial.rebalance.delay.ms": 0,
               "group.streams.num.standby.replicas": rng.choice([0, 1, 2]),
               "group.streams.assignment.interval.ms": rng.choice([0, 0, 1000])}
    rec = TraceRecorder(profile, configs)
    stateful = rng.random() < 0.7
    rec.topic(0, "input", k)
    if stateful:
        rec.topic(0, "app-0-changelog", k)
        rec.topic(0, "app-rep", k)
    topology = STATEFUL if stateful else STATELESS
    processes = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(rng.randint(1, 3))]
    clients = [Client(rec, str(uuid.UUID(int=rng.getrandbits(128))), rng.choice(processes))
               for _ in range(rng.randint(2, 7))]
    joined: list[Client] = []
    left: set[str] = set()
    trunk = profile == "kafka-trunk"
    t = 1000
    for _ in range(rng.randint(10, 40)):
        t += rng.choice([100, 100, 600, 1100])
        free = [c for c in clients if c not in joined and c.member not in left]
        roll = rng.random()
        if free and (roll < 0.3 or not joined):
            c = rng.choice(free)
            c.join(t, topology)
            joined.append(c)
        elif roll < 0.35 and len(joined) > 1:
            c = rng.choice(joined)
            c.leave(t)
            joined.remove(c)
            left.add(c.member)
        else:
            extra: dict[str, Any] = {}
            if trunk and rng.random() < 0.4:
                subs = ["0", "1"] if stateful else ["0"]
                extra["taskOffsets"] = [{"subtopologyId": s, "partition": p, "offset": rng.choice([0, 5, 50])}
                                        for s in subs for p in range(k) if rng.random() < 0.3]
                extra["taskEndOffsets"] = []
            rng.choice(joined).beat(t, **extra)
        if trunk:
            rec.call(t + 1, "admin", {"groupIds": ["g"], "includeAuthorizedOperations": False}, api_key=89, version=0)
    return rec


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", choices=["kafka-4.3", "kafka-trunk"], default="kafka-4.3")
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    args = parser.parse_args(argv)
    if not os.environ.get("ORACLE_DIR"):
        parser.error("set ORACLE_DIR to an oracle build of the profile's release (see /work/shared/oracle/README.md)")
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seed, args.seed + args.sessions):
            path = session(seed, args.profile).write(Path(tmp) / f"{seed}.jsonl")
            out = subprocess.run([str(ORACLE), "check", str(path)], capture_output=True, text=True).stdout
            mismatches = [line[:240] for line in out.splitlines() if "MISMATCH" in line]
            if mismatches or "SUMMARY" not in out:
                bad += 1
                print(f"seed {seed}: {mismatches[:2] or out[-300:]}")
    print(f"{args.profile}: {args.sessions - bad}/{args.sessions} sessions answered alike", file=sys.stderr)
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
