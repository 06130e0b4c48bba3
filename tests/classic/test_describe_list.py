"""DescribeGroups (15) and ListGroups (16) as Kafka answers them (GroupMetadataManager.describeGroups
and listGroups, GroupCoordinatorService's shard order, the JSON converters' version gating).

Orders marked "JVM" were printed by a Java 17 HashMap fed the same keys (2026-11-22)."""

from __future__ import annotations

from typing import Any

import pytest
from kgspec.model.coordinator import Coordinator
from kgspec.model.shards import by_shard, partition_for

from tests.classic.harness import Harness
from tests.consumer.helpers import Harness as ConsumerHarness
from tests.streams.helpers import join as streams_join

MIN_INT = -2147483648


def describe(h: Harness, groups: list[Any], version: int, ts: int = 7000) -> dict[str, Any]:
    response = h.call(15, version, {"groups": groups, "includeAuthorizedOperations": False}, ts).response
    assert response is not None
    return response


def member(mid: str, client: str, metadata: str, assignment: str, instance: str | None = None) -> dict[str, Any]:
    return {"memberId": mid, "groupInstanceId": instance, "clientId": client, "clientHost": "/127.0.0.1",
            "memberMetadata": metadata, "memberAssignment": assignment}


def test_a_stable_group_with_its_protocol_and_members_in_hashmap_order() -> None:
    h = Harness()
    h.stable_group(3)
    assert describe(h, ["g"], 5) == {"throttleTimeMs": 0, "groups": [{
        "errorCode": 0, "groupId": "g", "groupState": "Stable", "protocolType": "consumer",
        "protocolData": "range",
        # JVM: HashMap of c0-1, c1-2, c2-3 iterates c2-3, c0-1, c1-2
        "members": [member("c2-3", "c2", "AAE=", "AAA2"), member("c0-1", "c0", "AAE=", "AAA0"),
                    member("c1-2", "c1", "AAE=", "AAA1")],
        "authorizedOperations": MIN_INT}]}


def test_a_rebalancing_group_has_no_protocol_and_no_member_metadata() -> None:
    h = Harness()
    ids = h.stable_group(2)
    h.join(7000, ids[0], client_id="c0", reason="rejoin")  # the leader rejoins: PreparingRebalance
    g = describe(h, ["g"], 5, ts=7001)["groups"][0]
    assert (g["groupState"], g["protocolType"], g["protocolData"]) == ("PreparingRebalance", "consumer", "")
    # describeNoMetadata: the assignment stays, the metadata is empty bytes
    assert [(m["memberId"], m["memberMetadata"], m["memberAssignment"]) for m in g["members"]] == [
        ("c0-1", "", "AAA0"), ("c1-2", "", "AAA1")]


def test_an_empty_group_keeps_its_protocol_type() -> None:
    h = Harness()
    ids = h.stable_group(1)
    h.leave(7000, [(ids[0], None)])
    assert describe(h, ["g"], 6, ts=7001)["groups"] == [{
        "errorCode": 0, "errorMessage": None, "groupId": "g", "groupState": "Empty", "protocolType": "consumer",
        "protocolData": "", "members": [], "authorizedOperations": MIN_INT}]


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4, 5, 6])
def test_a_missing_group_is_dead_with_an_error_only_from_v6(version: int) -> None:
    h = Harness()
    group = describe(h, ["nope"], version)["groups"][0]
    expected: dict[str, Any] = {"errorCode": 69 if version >= 6 else 0, "groupId": "nope", "groupState": "Dead",
                                "protocolType": "", "protocolData": "", "members": []}
    if version >= 6:
        expected["errorMessage"] = "Group nope not found."
    if version >= 3:
        expected["authorizedOperations"] = MIN_INT
    assert group == expected


def test_a_group_of_another_type_is_not_a_classic_group() -> None:
    h = ConsumerHarness({"foo": 2})
    h.join("a", ["foo"])
    response = h.coord.handle(15, 6, {"groups": ["grp"]}, now=h.now).response
    assert response is not None
    assert response["groups"] == [{
        "errorCode": 69, "errorMessage": "Group grp is not a classic group.", "groupId": "grp",
        "groupState": "Dead", "protocolType": "", "protocolData": "", "members": [],
        "authorizedOperations": MIN_INT}]


@pytest.mark.parametrize(("version", "fields"), [
    (0, {"errorCode", "groupId", "groupState", "protocolType", "protocolData", "members"}),
    (3, {"errorCode", "groupId", "groupState", "protocolType", "protocolData", "members", "authorizedOperations"}),
    (6, {"errorCode", "errorMessage", "groupId", "groupState", "protocolType", "protocolData", "members",
         "authorizedOperations"}),
])
def test_fields_follow_the_version(version: int, fields: set[str]) -> None:
    h = Harness()
    h.stable_group(1)
    response = describe(h, ["g"], version)
    assert ("throttleTimeMs" in response) == (version >= 1)
    group = response["groups"][0]
    assert set(group) == fields
    assert ("groupInstanceId" in group["members"][0]) == (version >= 4)


def test_null_ids_first_then_shard_by_shard() -> None:
    """A null id is INVALID_GROUP_ID (listed first); the empty string is looked up like any id;
    the rest come shard by shard in groupsByTopicPartition's order, not in request order."""
    h = Harness()
    groups = describe(h, ["orders", "g", "a", None, "", "payments"], 6)["groups"]
    # JVM: partitions 47 [a], 31 [orders], 0 [""], 13 [payments], 3 [g]
    assert [(g["groupId"], g["errorCode"]) for g in groups] == [
        ("", 24), ("a", 69), ("orders", 69), ("", 69), ("payments", 69), ("g", 69)]
    assert groups[0] == {"errorCode": 24, "errorMessage": None, "groupId": "", "groupState": "",
                         "protocolType": "", "protocolData": "", "members": [], "authorizedOperations": MIN_INT}
    assert groups[3]["errorMessage"] == "Group  not found."


def _shown(shards: list[list[str]], n: int) -> str:
    return "".join(f"{partition_for(s[0], n)}[{', '.join(s)}];" for s in shards)


def test_shards_as_the_jvm_orders_them() -> None:
    """Utils.abs(hashCode) % n into a HashMap<TopicPartition, List<String>>: what the JVM printed."""
    ids = ["g", "group-1", "group-2", "orders", "payments", *"abcdefghijklmnopqrstuvwxyz",
           "analytics-é", "billing", "polygenelubricants"]
    assert _shown(by_shard(ids, 50), 50) == (
        "15[s];48[b];13[payments, q];11[o];9[m, billing];21[y];19[w];17[u];7[k];5[i];3[g, g];1[e];47[a];"
        "16[t];14[r];12[p];10[n];22[z];20[x];49[group-1, c];18[v];31[orders];"
        "0[group-2, d, polygenelubricants];8[l];6[j];4[h];2[f, analytics-é];")
    assert _shown(by_shard(["g", "group-1", "group-2", "orders", "payments", "a", "b"], 3), 3) == (
        "0[group-2, orders];1[g, a];2[group-1, payments, b];")
    # 13 partitions: computeIfAbsent grows the table of 16 only at the start of a later call
    letters = list("abcdefghijklm")
    assert _shown(by_shard(letters, 50), 50) == (
        "47[a];0[d];48[b];9[m];7[k];8[l];5[i];6[j];3[g];4[h];1[e];49[c];2[f];")
    assert _shown(by_shard([*letters, "a"], 50), 50) == (
        "47[a, a];48[b];9[m];49[c];0[d];7[k];8[l];5[i];6[j];3[g];4[h];1[e];2[f];")
    # "polygenelubricants".hashCode() is Integer.MIN_VALUE, whose Utils.abs is 0
    assert partition_for("polygenelubricants", 50) == 0


def test_consumer_and_streams_describes_answer_invalid_ids_first_and_by_shard() -> None:
    h = ConsumerHarness({"foo": 2})
    response = h.coord.handle(69, 1, {"groupIds": ["orders", "", "g"]}, now=0).response
    assert response is not None
    # JVM: partitions 31 [orders], 3 [g]
    assert [(g["groupId"], g["errorCode"], g["errorMessage"]) for g in response["groups"]] == [
        ("", 24, None), ("orders", 69, "Group orders not found."), ("g", 69, "Group g not found.")]
    streams = h.coord.handle(89, 0, {"groupIds": ["orders", "", "g"]}, now=0).response
    assert streams is not None
    assert [(g["groupId"], g["errorCode"]) for g in streams["groups"]] == [("", 24), ("orders", 69), ("g", 69)]
    assert streams["groups"][0] == {"errorCode": 24, "errorMessage": None, "groupId": "", "groupState": "",
                                    "groupEpoch": 0, "assignmentEpoch": 0, "topology": None, "members": [],
                                    "authorizedOperations": MIN_INT}


def test_describe_versions_out_of_range_are_refused() -> None:
    h = Harness()
    with pytest.raises(ValueError, match="v7 is not supported"):
        h.coord.handle(15, 7, {"groups": ["g"]}, now=0)
    with pytest.raises(ValueError, match="v6 is not supported"):
        h.coord.handle(16, 6, {}, now=0)


# --- ListGroups ---------------------------------------------------------------------------


def _three_types() -> Coordinator:
    """A classic group "g" (Stable), a consumer group "grp" (Stable) and a streams group "sg"
    (NotReady: its source topics are missing)."""
    h = Harness()
    ids = h.stable_group(1)
    assert ids == ["c0-1"]
    coord = h.coord
    coord.handle(68, 1, {"groupId": "grp", "memberId": "m", "memberEpoch": 0, "rebalanceTimeoutMs": 5000,
                         "subscribedTopicNames": ["foo"], "topicPartitions": []}, now=7000)
    streams_join(coord, 7000, "s1", "p1", group="sg")
    return coord


def listing(coord: Coordinator, version: int, **request: Any) -> dict[str, Any]:
    response = coord.handle(16, version, request, now=7000).response
    assert response is not None
    return response


def test_every_type_listed_with_its_protocol_type_state_and_type() -> None:
    coord = _three_types()
    response = listing(coord, 5)
    assert response["throttleTimeMs"] == 0
    assert response["errorCode"] == 0
    assert sorted(response["groups"], key=lambda e: e["groupId"]) == [
        {"groupId": "g", "protocolType": "consumer", "groupState": "Stable", "groupType": "classic"},
        {"groupId": "grp", "protocolType": "consumer", "groupState": "Stable", "groupType": "consumer"},
        {"groupId": "sg", "protocolType": "streams", "groupState": "NotReady", "groupType": "streams"},
    ]


@pytest.mark.parametrize(("request_fields", "listed"), [
    ({"statesFilter": [" STABLE "]}, ["g", "grp"]),  # lower-cased and trimmed
    ({"statesFilter": ["notready", "Empty"]}, ["sg"]),
    ({"typesFilter": ["Classic"]}, ["g"]),  # case-insensitive
    ({"typesFilter": [" classic"]}, []),  # GroupType.parse does not trim: unknown, lists nothing
    ({"typesFilter": ["share"]}, []),
    ({"statesFilter": ["stable"], "typesFilter": ["consumer", "streams"]}, ["grp"]),
    ({"statesFilter": [], "typesFilter": []}, ["g", "grp", "sg"]),
])
def test_filters(request_fields: dict[str, Any], listed: list[str]) -> None:
    assert sorted(e["groupId"] for e in listing(_three_types(), 5, **request_fields)["groups"]) == listed


def test_filters_and_fields_of_older_versions() -> None:
    coord = _three_types()
    v4 = listing(coord, 4, statesFilter=["NotReady"], typesFilter=["classic"])  # v4 has no types filter
    assert v4["groups"] == [{"groupId": "sg", "protocolType": "streams", "groupState": "NotReady"}]
    v3 = listing(coord, 3, statesFilter=["NotReady"])  # nor v3 a states filter
    assert sorted(e["groupId"] for e in v3["groups"]) == ["g", "grp", "sg"]
    assert all(set(e) == {"groupId", "protocolType"} for e in v3["groups"])
    assert listing(coord, 0) == {"errorCode": 0, "groups": v3["groups"]}


def test_a_classic_group_without_a_protocol_type_lists_the_empty_string() -> None:
    h = Harness()
    h.join(0, client_id="c0")  # MEMBER_ID_REQUIRED: the group exists, Empty, with no protocol type yet
    assert listing(h.coord, 5)["groups"] == [
        {"groupId": "g", "protocolType": "", "groupState": "Empty", "groupType": "classic"}]
