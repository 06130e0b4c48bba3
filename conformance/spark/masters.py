"""How many tasks a Spark session runs at once, from what its client can read.

A classic session asks its ``SparkContext``. A Spark Connect client has none; it can read the
server's configs, so it takes, in order: ``spark.default.parallelism``; a local master's slots
(``local``, ``local[N]``; not ``local[*]``: the server's CPUs are not the client's);
``spark.executor.instances`` × ``spark.executor.cores``. Otherwise it does not know.
"""

from __future__ import annotations

import os
import re
from typing import Any

_LOCAL_MASTER = re.compile(r"local(?:\[(\*|[1-9][0-9]*)(?:,[0-9]+)?\])?")


def local_cores(master: str) -> int | None:
    """The task slots of a local master (``local``, ``local[N]``, ``local[*]``, with or without
    ``,maxFailures``); None for any other master. ``*``: the CPUs this process may use."""
    match = _LOCAL_MASTER.fullmatch(master.strip())
    if match is None:
        return None
    slots = match.group(1)
    if slots is None:
        return 1
    if slots == "*":
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return int(slots)


def session_parallelism(spark: Any) -> int | None:
    """The session's task slots; None when its client cannot tell (see the module doc)."""
    try:
        return int(spark.sparkContext.defaultParallelism)
    except Exception:  # Spark Connect: no sparkContext
        return connect_parallelism(spark.conf)


def connect_parallelism(conf: Any) -> int | None:
    def read(key: str) -> str | None:
        try:
            value = conf.get(key, None)
        except Exception:  # a config the server will not show
            return None
        return value if isinstance(value, str) else None

    def count(key: str) -> int | None:
        value = (read(key) or "").strip()
        return int(value) if value.isdigit() and int(value) > 0 else None

    explicit = count("spark.default.parallelism")
    if explicit is not None:
        return explicit
    master = read("spark.master")
    if master is not None and "[*" not in master:
        slots = local_cores(master)
        if slots is not None:
            return slots
    instances, cores = count("spark.executor.instances"), count("spark.executor.cores")
    return instances * cores if instances is not None and cores is not None else None
