"""Hypothesis settings profiles for the fuzzer, independent of pytest's conftest.

``ci`` (the default): fast, derandomized, no example database — what the default test
run and ``kgspec fuzz`` use. ``nightly``: long. ``dev``: quick local iteration with the
example database on. Select with ``HYPOTHESIS_PROFILE`` or ``--hypothesis-profile``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILES = ("ci", "nightly", "dev")
DEFAULT = "ci"
_QUIET = list(HealthCheck)  # the simulator is deliberately slow per example; data is never filtered


def register() -> None:
    settings.register_profile("ci", max_examples=30, stateful_step_count=10, deadline=None,
                              derandomize=True, database=None, print_blob=False,
                              suppress_health_check=_QUIET)
    settings.register_profile("nightly", max_examples=2000, stateful_step_count=40, deadline=None,
                              derandomize=False, database=None, suppress_health_check=_QUIET)
    settings.register_profile("dev", max_examples=15, stateful_step_count=10, deadline=None,
                              derandomize=False, suppress_health_check=_QUIET)


def selected(name: str | None = None) -> str:
    chosen = name or os.environ.get("HYPOTHESIS_PROFILE") or DEFAULT
    if chosen not in PROFILES:
        raise ValueError(f"unknown Hypothesis profile {chosen!r} (known: {', '.join(PROFILES)})")
    return chosen


def load(name: str | None = None) -> settings:
    """The settings of profile ``name`` (default: ``HYPOTHESIS_PROFILE``, else ``ci``)."""
    register()
    return settings.get_profile(selected(name))
