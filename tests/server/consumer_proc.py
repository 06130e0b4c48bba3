"""A librdkafka consumer in its own process, for a real crash (SIGKILL: no leave, no more
heartbeats). Prints ``assigned P,Q,...`` after every rebalance. Arguments: bootstrap client-id
group topic protocol."""

from __future__ import annotations

import sys
from typing import Any

from confluent_kafka import Consumer


def main() -> None:
    bootstrap, client_id, group, topic, protocol = sys.argv[1:6]
    owned: set[int] = set()
    conf: dict[str, Any] = {"bootstrap.servers": bootstrap, "group.id": group, "client.id": client_id,
                            "group.protocol": protocol, "auto.offset.reset": "earliest", "log_level": 2}
    if protocol == "classic":
        conf.update({"session.timeout.ms": 6000, "heartbeat.interval.ms": 300})
    consumer = Consumer(conf)

    def assign(_: Any, partitions: list[Any]) -> None:
        owned.update(p.partition for p in partitions)
        print("assigned " + ",".join(map(str, sorted(owned))), flush=True)

    def revoke(_: Any, partitions: list[Any]) -> None:
        owned.difference_update(p.partition for p in partitions)
        print("assigned " + ",".join(map(str, sorted(owned))), flush=True)

    consumer.subscribe([topic], on_assign=assign, on_revoke=revoke, on_lost=revoke)
    while True:
        consumer.poll(0.1)


if __name__ == "__main__":
    main()
