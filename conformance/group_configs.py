"""IncrementalAlterConfigs and DescribeConfigs of GROUP resources checked against the model.

A call names any number of resources. Its GROUP resources (type 32) go each to its group's model
(the group's configs are the group's own state: the metadata log's, which its coordinator reads),
are decided there, compared and committed; resources of other types (topics, brokers, ...) are not
the group coordinator's and are not compared, and a call with no GROUP resource carries no
coordinator event (its line counts as skipped). Compared: each resource's error code (not its
message, as the contract says) and, for DescribeConfigs, each config entry by name — value,
readOnly, isSensitive, configSource, synonyms (in order) and configType — but not the order of the
entries nor ``documentation`` (the model does not carry Kafka's doc text). docs/group-configs.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from kgspec.conformance.events import Event
from kgspec.conformance.findings import Finding
from kgspec.conformance.session import GroupSession, ts_of
from kgspec.model.apis import APIS, DESCRIBE_CONFIGS, INCREMENTAL_ALTER_CONFIGS, version_range
from kgspec.model.group_configs.apis import GROUP_RESOURCE
from kgspec.model.group_configs.catalogue import release_of
from kgspec.model.profiles import get_profile

if TYPE_CHECKING:
    from kgspec.conformance.checker import TraceChecker

GROUP_CONFIG_APIS: Final = frozenset({DESCRIBE_CONFIGS, INCREMENTAL_ALTER_CONFIGS})
_ENTRY_FIELDS: Final = ("value", "readOnly", "isSensitive", "configSource", "synonyms", "configType")


def request_problem(api: int, request: dict[str, Any]) -> tuple[str, str] | None:
    """(field, message) for the first field of the request the model cannot read, or None."""
    resources = request.get("resources")
    if not isinstance(resources, list):
        return "request.resources", "`request.resources` must be a list"
    for i, r in enumerate(resources):
        where = f"request.resources[{i}]"
        if not isinstance(r, dict):
            return where, f"`{where}` must be an object"
        if type(r.get("resourceType")) is not int:
            return f"{where}.resourceType", f"`{where}.resourceType` must be an integer"
        if not isinstance(r.get("resourceName"), str):
            return f"{where}.resourceName", f"`{where}.resourceName` must be a string"
        if r["resourceType"] != GROUP_RESOURCE:
            continue
        if api == DESCRIBE_CONFIGS:
            keys = r.get("configurationKeys")
            if keys is not None and (not isinstance(keys, list) or not all(isinstance(k, str) for k in keys)):
                return f"{where}.configurationKeys", f"`{where}.configurationKeys` must be null or a list of strings"
            continue
        configs = r.get("configs")
        if not isinstance(configs, list):
            return f"{where}.configs", f"`{where}.configs` must be a list"
        for j, c in enumerate(configs):
            at = f"{where}.configs[{j}]"
            if not isinstance(c, dict) or not isinstance(c.get("name"), str):
                return f"{at}.name", f"`{at}.name` must be a string"
            if c.get("configOperation") not in (0, 1, 2, 3) or type(c.get("configOperation")) is not int:
                return f"{at}.configOperation", f"`{at}.configOperation` must be 0 (SET), 1 (DELETE), 2 (APPEND) " \
                                                "or 3 (SUBTRACT)"
            if c.get("value") is not None and not isinstance(c.get("value"), str):
                return f"{at}.value", f"`{at}.value` must be a string or null"
    return None


def group_names(api: int, request: dict[str, Any]) -> list[str] | None:
    """The groups a call's GROUP resources name, in order (None: a request the checker finds
    malformed; empty: a call of other resources only, no coordinator event)."""
    if request_problem(api, request) is not None:
        return None
    return list(dict.fromkeys(r["resourceName"] for r in request["resources"] if r["resourceType"] == GROUP_RESOURCE))


class GroupConfigChecks:
    """The group-config calls of one :class:`~kgspec.conformance.checker.TraceChecker`."""

    def __init__(self, checker: TraceChecker) -> None:
        self.checker = checker

    def handle(self, event: Event, api: int) -> None:
        checker = self.checker
        request = event.request
        names = group_names(api, request)
        if names is None:
            problem = request_problem(api, request)
            assert problem is not None
            checker.finding(None, Finding(checker.path, event.line, None, "malformed", problem[1], problem[0]))
            return
        if not names:  # topics, brokers, ...: not the group coordinator's
            checker.input.skip_current()
            return
        label = APIS[api].label
        profile = get_profile(checker.profile)
        version = event.api_version if event.api_version is not None else version_range(api, profile)[0]
        if not APIS[api].supports(profile, version) or release_of(profile) is None:
            why = f"{label} v{version} is not modelled" if release_of(profile) is not None else \
                f"group configs on {profile.name} are not modelled (trunk rewrote GroupConfig)"
            for gid in names:
                g = checker.group(gid, "consumer", from_describe=True)
                g.summary.events += 1
                checker.finding(g, Finding(checker.path, event.line, gid, "unsupported", why,
                                           "requestHeader.requestApiVersion"))
            return
        field = "responses" if api == INCREMENTAL_ALTER_CONFIGS else "results"
        observed_all = event.response.get(field)
        observed_list = observed_all if isinstance(observed_all, list) else []
        ts = ts_of(event)
        for gid in names:
            g = checker.group(gid, "consumer", from_describe=True)
            g.summary.events += 1
            if not checker.advance(g, ts, event.line):
                continue
            own = [r for r in request["resources"] if r["resourceType"] == GROUP_RESOURCE and r["resourceName"] == gid]
            decision = g.coord.decide(api, version, {**request, "resources": own}, now=int(ts))
            assert decision.response is not None
            expected = decision.response[field]
            observed = [o for o in observed_list if isinstance(o, dict) and o.get("resourceType") == GROUP_RESOURCE
                        and o.get("resourceName") == gid]
            self._compare(g, event, label, field, gid, expected, observed, api)
            g.coord.commit(decision)
            g.generation += 1  # the group's values may have changed: cached steady answers are stale

    def _compare(self, g: GroupSession, event: Event, label: str, field: str, gid: str,
                 expected: list[dict[str, Any]], observed: list[dict[str, Any]], api: int) -> None:
        where = f"{field}[{gid}]"
        if len(observed) != len(expected):
            self._mismatch(g, event, gid, f"{label}: the response should have {len(expected)} entry(ies) for "
                           f"group {gid}, not {len(observed)}", where, len(expected), len(observed))
            return
        for exp, obs in zip(expected, observed, strict=True):
            if obs.get("errorCode") != exp["errorCode"]:
                why = f" ({exp['errorMessage']})" if exp["errorMessage"] else ""
                self._mismatch(g, event, gid, f"{label}: {where}.errorCode should be {exp['errorCode']}{why}, "
                               f"not {obs.get('errorCode')!r}", f"{where}.errorCode", exp["errorCode"],
                               obs.get("errorCode"))
                continue
            if api == DESCRIBE_CONFIGS and exp["errorCode"] == 0:
                self._compare_entries(g, event, label, where, exp["configs"], obs.get("configs"))

    def _compare_entries(self, g: GroupSession, event: Event, label: str, where: str,
                         expected: list[dict[str, Any]], observed: Any) -> None:
        gid = g.summary.group_id
        if not isinstance(observed, list) or not all(isinstance(o, dict) for o in observed):
            self._mismatch(g, event, gid, f"{label}: {where}.configs should be a list of entries",
                           f"{where}.configs", None, observed)
            return
        by_name = {o.get("name"): o for o in observed}
        exp_names = [e["name"] for e in expected]
        missing = [n for n in exp_names if n not in by_name]
        extra = sorted(str(n) for n in by_name if n not in set(exp_names))
        if missing or extra:
            self._mismatch(g, event, gid, f"{label}: {where}.configs should name {sorted(exp_names)}"
                           + (f"; missing {missing}" if missing else "") + (f"; not {extra}" if extra else ""),
                           f"{where}.configs", sorted(exp_names), sorted(str(n) for n in by_name))
        for exp in expected:
            obs = by_name.get(exp["name"])
            if obs is None:
                continue
            for name in _ENTRY_FIELDS:
                if name not in exp or name not in obs:  # a field the version has not, or the trace leaves out
                    continue
                want, got = exp[name], obs[name]
                if name == "synonyms":
                    want = [(s["name"], s["value"], s["source"]) for s in want]
                    got = [(s.get("name"), s.get("value"), s.get("source")) for s in got] \
                        if isinstance(got, list) and all(isinstance(s, dict) for s in got) else got
                if want != got:
                    at = f"{where}.configs[{exp['name']}].{name}"
                    self._mismatch(g, event, gid, f"{label}: {at} should be {want!r}, not {got!r}", at, want, got)

    def _mismatch(self, g: GroupSession, event: Event, gid: str, message: str, field: str, expected: Any,
                  observed: Any) -> None:
        self.checker.finding(g, Finding(self.checker.path, event.line, gid, "response-mismatch", message, field,
                                        expected, observed))
