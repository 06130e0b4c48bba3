"""ConsumerGroupDescribe, StreamsGroupDescribe and DescribeGroups checked against the model.

A describe names any number of groups, of any type: each named group's model answers for it, in
the shard order Kafka answers (``model/shards.py``), and the answers are compared group by group.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from kgspec.conformance.compare import (
    Diff,
    classic_describe_differences,
    describe_differences,
    format_set,
    streams_describe_differences,
)
from kgspec.conformance.events import Event
from kgspec.conformance.findings import Finding
from kgspec.conformance.session import ts_of
from kgspec.conformance.shapes import call_shape_problem
from kgspec.model.apis import (
    APIS,
    CONSUMER_GROUP_DESCRIBE,
    DESCRIBE_GROUPS,
    STREAMS_GROUP_DESCRIBE,
    version_range,
)
from kgspec.model.profiles import Profile, get_profile

if TYPE_CHECKING:
    from kgspec.conformance.checker import TraceChecker


class DescribeChecks:
    """The describes of one :class:`~kgspec.conformance.checker.TraceChecker`."""

    def __init__(self, checker: TraceChecker) -> None:
        self.checker = checker

    def describe(self, event: Event, api: int) -> None:
        """ConsumerGroupDescribe, StreamsGroupDescribe or DescribeGroups: each named group's
        answer, compared."""
        d = DESCRIBES[api]
        label, differences, show = d.label, d.differences, d.show
        gids = event.request.get(d.ids_field)
        if not isinstance(gids, list) or not all(isinstance(x, str) for x in gids):
            self.checker.finding(None, Finding(self.checker.path, event.line, None, "malformed",
                                        f"`request.{d.ids_field}` must be a list of strings",
                                        f"request.{d.ids_field}"))
            return
        version = d.version(event.api_version, get_profile(self.checker.profile))
        if version is None:
            self.checker.finding(None, Finding(self.checker.path, event.line, None, "unsupported",
                                        f"{label} v{event.api_version} is not modelled "
                                        "(v{}-v{})".format(*version_range(api, get_profile(self.checker.profile))),
                                        "requestHeader.requestApiVersion"))
            return
        shape = call_shape_problem(self.checker.profile, api, version, None, event.response, missing=False)
        if shape is not None:  # an answer the schema refuses is not compared (nor asked of the model)
            self.checker.finding(None, Finding(self.checker.path, event.line, None, "malformed", shape[1], shape[0]))
            return
        ts = ts_of(event)
        expected_groups = []
        for gid in gids:
            g = self.checker.group(gid, d.gtype, from_describe=True)
            g.summary.events += 1
            if not self.checker.advance(g, ts, event.line):
                return
            # the request's other fields too (v1's includeTopologyDescription decides a status)
            r = g.coord.handle(api, version, {**event.request, d.ids_field: [gid]}, now=int(ts))
            assert r.response is not None
            expected_groups.extend(r.response["groups"])
        # Asked for, the authorized operations are the authorizer's answer (ACLs are not modelled);
        # not asked for, Kafka leaves the field at Integer.MIN_VALUE, which is compared.
        asked = bool(event.request.get("includeAuthorizedOperations"))
        for name, exp, got in differences({"groups": expected_groups}, event.response):
            if asked and name.endswith(".authorizedOperations"):
                continue
            gid = name.split("[", 1)[1].split("]", 1)[0] if "[" in name else (gids[0] if gids else None)
            if isinstance(exp, frozenset) or isinstance(got, frozenset):
                exp, got = show(exp), show(got)
            self.checker.finding(self.checker.groups.get(gid or ""), Finding(
                self.checker.path, event.line, gid, "response-mismatch", f"{label}: {name} should be {exp!r}, not {got!r}",
                name.split(".")[-1] if "." in name else name, exp, got))


def _sorted_tasks(tasks: frozenset[tuple[str, int]] | None) -> list[tuple[str, int]]:
    return sorted(tasks or [])


@dataclass(frozen=True)
class _DescribeApi:
    """How one describe API is checked: the type of a group it creates, its label, how responses
    are compared and a set shown, the request's list of ids, and its versions."""

    gtype: str
    label: str
    differences: Callable[[dict[str, Any], dict[str, Any]], list[Diff]]
    show: Callable[[Any], Any]
    ids_field: str
    api_key: int

    def version(self, observed: int | None, profile: Profile) -> int | None:
        """The version the model answers; None when the trace's is not modelled. A call
        without one is v0, as the classic calls are."""
        version = observed if observed is not None else 0
        return version if APIS[self.api_key].supports(profile, version) else None


# the describe APIs; `kgspec conform` routes a describe to each group its ids field names
DESCRIBES: Final[dict[int, _DescribeApi]] = {
    CONSUMER_GROUP_DESCRIBE: _DescribeApi("consumer", "ConsumerGroupDescribe", describe_differences, format_set,
                                          "groupIds", CONSUMER_GROUP_DESCRIBE),
    STREAMS_GROUP_DESCRIBE: _DescribeApi("streams", "StreamsGroupDescribe", streams_describe_differences,
                                         _sorted_tasks, "groupIds", STREAMS_GROUP_DESCRIBE),
    DESCRIBE_GROUPS: _DescribeApi("classic", "DescribeGroups", classic_describe_differences, lambda x: x,
                                  "groups", DESCRIBE_GROUPS),
}
