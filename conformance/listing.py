"""``kgspec check`` for ListGroups (API 16): the listing judged group by group.

A broker lists the groups of the ``__consumer_offsets`` partitions it leads, a trace shows
some of them, and leadership moves; so only what the trace can vouch for is judged:

- each listed group the trace has already shown (a call or a record for it earlier in the
  file) must be listed as the model would list it at that time: present under the request's
  filters, with its ``protocolType``, and its ``groupState`` (v4+) and ``groupType`` (v5+)
  where the trace carries them;
- listed groups the trace has not shown, and groups the trace shows but the listing leaves
  out, are not judged.

A call judged as a whole (see :func:`judged_groups`: malformed, a version the model does not
cover, an error code, nothing listed) belongs to no group; ``kgspec conform`` routes it as a
groupless event and every other ListGroups to each group it lists, so both give the same
findings (docs/checking.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from kgspec.conformance.findings import Finding
from kgspec.conformance.shapes import call_shape_problem
from kgspec.model.apis import LIST_GROUPS
from kgspec.model.errors import error_name
from kgspec.model.listing import VERSIONS, listed_groups, matches

if TYPE_CHECKING:
    from kgspec.conformance.checker import TraceChecker
    from kgspec.conformance.events import Event

COMPARED: Final = ("protocolType", "groupState", "groupType")


def _version(event: Event) -> int:
    return event.api_version if event.api_version is not None else 0  # as the classic calls


def _whole_call_problem(event: Event) -> tuple[str, str, str] | None:
    """(kind, field, message) when the call is judged as a whole rather than group by group.

    ListGroups' schema is the same in every release the profiles name, so its shape is read
    against one (4.3): the routing of ``kgspec conform``, before any header is read, and the
    check agree."""
    version = _version(event)
    low, high = VERSIONS
    if not low <= version <= high:
        return ("unsupported", "requestHeader.requestApiVersion",
                f"ListGroups v{version} is not modelled (v{low}-v{high})")
    problem = call_shape_problem("kafka-4.3", LIST_GROUPS, version, event.request, event.response)
    if problem is not None:
        return "malformed", problem[0], problem[1]
    groups = event.response.get("groups")
    if not isinstance(groups, list):
        return "malformed", "response.groups", "`response.groups` must be a list of listed groups"
    return None


def judged_groups(event: Event) -> list[str] | None:
    """The ids of the groups a well-formed, successful ListGroups lists (each once); None when
    the call is judged as a whole."""
    if _whole_call_problem(event) is not None or event.response.get("errorCode", 0) != 0:
        return None
    gids = list(dict.fromkeys(e["groupId"] for e in event.response["groups"]))
    return gids or None


class ListingChecks:
    """The ListGroups part of one :class:`TraceChecker`."""

    def __init__(self, checker: TraceChecker) -> None:
        self.checker = checker

    def handle(self, event: Event) -> None:
        c = self.checker
        problem = _whole_call_problem(event)
        if problem is not None:
            kind, field_name, message = problem
            c.finding(None, Finding(c.path, event.line, None, kind, message, field_name))
            return
        error = event.response.get("errorCode", 0)
        if error != 0:  # the model answers every listing
            c.finding(None, Finding(c.path, event.line, None, "response-mismatch",
                                     f"ListGroups: errorCode should be 0 (NONE), not {error} ({error_name(error)})",
                                     "errorCode", 0, error))
            return
        version = _version(event)
        request = event.request
        states = list(request.get("statesFilter") or []) if version >= 4 else []
        types = list(request.get("typesFilter") or []) if version >= 5 else []
        ts = float(event.ts_ms) if event.ts_ms is not None else 0.0
        for observed in event.response["groups"]:
            gid = observed["groupId"]
            g = c.groups.get(gid)
            if g is None:
                continue  # a group the trace has not shown: not judged
            g.summary.events += 1
            if not c.advance(g, ts, event.line):
                continue
            model = {e["groupId"]: e for e in listed_groups(g.coord)}.get(gid)
            if model is None:
                c.finding(g, Finding(c.path, event.line, gid, "response-mismatch",
                                      f"ListGroups lists group {gid}, which the model does not hold here",
                                      f"groups[{gid}]", None, observed))
                continue
            if not matches(model, states, types):
                c.finding(g, Finding(c.path, event.line, gid, "response-mismatch",
                                      f"ListGroups lists group {gid} ({model['groupType']}, state "
                                      f"{model['groupState']}), which its filters leave out "
                                      f"(statesFilter {states}, typesFilter {types})",
                                      f"groups[{gid}]", None, observed))
                continue
            for name in COMPARED:
                if name in observed and _gated(name, version) and observed[name] != model[name]:
                    c.finding(g, Finding(c.path, event.line, gid, "response-mismatch",
                                          f"ListGroups: groups[{gid}].{name} should be {model[name]!r}, "
                                          f"not {observed[name]!r}", name, model[name], observed[name]))


def _gated(name: str, version: int) -> bool:
    return {"groupState": version >= 4, "groupType": version >= 5}.get(name, True)
