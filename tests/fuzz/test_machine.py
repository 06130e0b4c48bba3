"""The rule-based machines as pytest TestCases, under the profile HYPOTHESIS_PROFILE selects.

A failing run is written as a contract trace (``KGSPEC_FUZZ_TRACE``, default
``fuzz-failure.jsonl``; ``-streams`` added for the streams machine) — the shrunk program,
since Hypothesis runs it last.
"""

from __future__ import annotations

import os

from kgspec.sim import profiles
from kgspec.sim.machine import machine_for

_TRACE = os.environ.get("KGSPEC_FUZZ_TRACE", "fuzz-failure.jsonl")

Machine = machine_for()
Machine.trace_path = _TRACE
Machine.TestCase.settings = profiles.load()

StreamsMachine = machine_for(protocol="streams")
StreamsMachine.trace_path = _TRACE.replace(".jsonl", "-streams.jsonl")
StreamsMachine.TestCase.settings = profiles.load()

TestConsumerGroups = Machine.TestCase
TestStreamsGroups = StreamsMachine.TestCase
