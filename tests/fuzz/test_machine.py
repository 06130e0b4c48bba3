"""The rule-based machine as a pytest TestCase, under the profile HYPOTHESIS_PROFILE selects.

A failing run is written as a contract trace (``KGSPEC_FUZZ_TRACE``, default
``fuzz-failure.jsonl``) — the shrunk program, since Hypothesis runs it last.
"""

from __future__ import annotations

import os

from kgspec.model.sim import profiles
from kgspec.model.sim.machine import machine_for

Machine = machine_for()
Machine.trace_path = os.environ.get("KGSPEC_FUZZ_TRACE", "fuzz-failure.jsonl")
Machine.TestCase.settings = profiles.load()

TestConsumerGroups = Machine.TestCase
