"""Write the guide's example incident: a day's broker request log with one injected departure.

Three consumer groups (``orders-app``, ``payments-app``, ``audit-app``) on the topics
``orders``, ``payments`` and ``audit`` are simulated against the model (a member joins late, so
partitions move), written as Kafka's request log (``kafka.request.logger`` lines), and one
ConsumerGroupHeartbeat response of ``payments-app`` is changed: while the member is still
revoking partitions, the coordinator answers with a bumped member epoch. ``kgspec check``
must find exactly that line.

    .venv/bin/python scripts/make_incident.py docs/guide/examples/incident.log
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path
from typing import Any

from kgspec.conformance.writers import write_request_log
from kgspec.model.mutants import Mutants

from kgspec.sim.network import NetworkConfig
from kgspec.sim.simulator import SimConfig, Simulator

GROUPS = {"orders-app": ("orders", 16), "payments-app": ("payments", 8), "audit-app": ("audit", 4)}
INJECTED_GROUP = "payments-app"
_LINE = re.compile(r"(.*?Completed request:)(\{.*\})( \(kafka\.request\.logger\))$")


def simulate() -> list[dict[str, Any]]:
    sim = Simulator(18, SimConfig(record_events=True, check=False, network=NetworkConfig(0.0, 0.0, 1, 20)),
                    Mutants(()))
    for topic, partitions in GROUPS.values():
        sim.set_topic(topic, partitions)
    for group, (topic, _) in GROUPS.items():
        for _ in range(2):
            sim.add_client(group, (topic,))
    sim.run_for(20000)
    for group, (topic, _) in GROUPS.items():
        sim.add_client(group, (topic,))  # a late joiner: partitions are revoked and moved
    sim.run_for(40000)
    return sim.finish()


def inject(lines: list[str]) -> int:
    """Bump the member epoch of the first heartbeat answer of ``payments-app`` that revokes
    partitions (its assignment shrinks); returns the line's 1-based number."""
    owned: dict[str, set[int]] = {}
    for index, line in enumerate(lines):
        match = _LINE.match(line)
        if match is None or '"CONSUMER_GROUP_HEARTBEAT"' not in line:
            continue
        body = json.loads(match[2])
        if body["request"].get("groupId") != INJECTED_GROUP:
            continue
        response = body["response"]
        assignment = response.get("assignment")
        member = response.get("memberId")
        if response.get("errorCode") or assignment is None or not member:
            continue
        now = {p for tp in assignment["topicPartitions"] for p in tp["partitions"]}
        before = owned.get(member)
        owned[member] = now
        if before and now < before:
            response["memberEpoch"] += 1
            lines[index] = match[1] + json.dumps(body, separators=(",", ":")) + match[3]
            return index + 1
    raise SystemExit("no revoking heartbeat to change: the simulation no longer moves partitions")


def main(out: str) -> None:
    text = io.StringIO()
    write_request_log(simulate(), text)
    lines = text.getvalue().splitlines()
    line = inject(lines)
    Path(out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} lines to {out}; departure injected at line {line}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/guide/examples/incident.log")
