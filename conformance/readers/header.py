"""The trace header: format version, behaviour profile and config overrides."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from kgspec.model.config import value_problem

from .errors import TraceFormatError

TRACE_FORMAT: Final = "kgspec-trace/1"
# The contract: a trace without a header (Kafka's own logs) is checked against this profile.
DEFAULT_PROFILE: Final = "kafka-4.3"


class HeaderError(ValueError):
    """A header that is present but invalid; the reader turns it into a Malformed item."""

    def __init__(self, message: str, field_name: str) -> None:
        super().__init__(message)
        self.field_name = field_name


@dataclass(frozen=True, slots=True)
class TraceHeader:
    format: str = TRACE_FORMAT
    profile: str = DEFAULT_PROFILE
    # Kept as written, unknown names included: the checker decides what it understands.
    configs: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, header: object) -> TraceHeader:
        """Validate the ``header`` object of a header event.

        Raises ``TraceFormatError`` for an unsupported ``format`` (exit 2 by the contract)
        and ``HeaderError`` for anything else that is wrong.
        """
        if not isinstance(header, dict):
            raise HeaderError("`header` must be an object", "header")
        fmt = header.get("format")
        if fmt is None:
            raise HeaderError("missing `header.format`", "header.format")
        if fmt != TRACE_FORMAT:
            raise TraceFormatError(f"unsupported header.format {fmt!r} (this kgspec reads {TRACE_FORMAT!r})")
        profile = header.get("profile", DEFAULT_PROFILE)
        if not isinstance(profile, str) or not profile:
            raise HeaderError("`header.profile` must be a non-empty string", "header.profile")
        configs = header.get("configs", {})
        if not isinstance(configs, dict):
            raise HeaderError("`header.configs` must be an object", "header.configs")
        for name, value in configs.items():
            problem = value_problem(name, value)
            if problem is not None:
                raise HeaderError(f"`header.configs.{name}` {problem}", f"header.configs.{name}")
        return cls(format=fmt, profile=profile, configs=dict(configs))


