"""HOMOGENEOUS vs HETEROGENEOUS, as ``ConsumerGroup.subscriptionType`` decides it.

Kafka keeps, per topic *name*, a ``SubscriptionCount(byNameCount, byRegexCount)``:

* ``byNameCount``: members that list the topic by name;
* ``byRegexCount``: *resolved* regular expressions (the group's resolved-regex map)
  whose topic set contains it.

and, per regex, the number of members that subscribe with it (empty strings do not
count). Then:

* no regex in use: HOMOGENEOUS iff every counted topic has ``byNameCount`` equal to
  the number of members (vacuously true when no member names a topic);
* otherwise: HOMOGENEOUS iff one regex is used by every member (a member has at most
  one regex, so it is the only one) and every counted topic has ``byRegexCount == 1``
  and ``byNameCount == 0``; HETEROGENEOUS in every other case.

A regex that members use but that is not resolved yet contributes no topics, so a
group whose only regex is still unresolved counts as HOMOGENEOUS.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping

from .api import SubscriptionType


def subscription_type(
    subscribed_topic_names: Mapping[str, Collection[str]],
    subscribed_topic_regex: Mapping[str, str | None],
    resolved_regexes: Mapping[str, Collection[str]],
) -> SubscriptionType:
    """Classify a consumer group's subscriptions.

    subscribed_topic_names: every member id -> the topic names it subscribes to by name
        (the member set; members with no names map to an empty collection).
    subscribed_topic_regex: member id -> its regex, or None/"" (absent members have none).
    resolved_regexes: the group's resolved regexes: regex -> matched topic names.
    """
    member_count = len(subscribed_topic_names)
    by_name: Counter[str] = Counter()
    for names in subscribed_topic_names.values():
        by_name.update(set(names))
    regex_users = Counter(
        regex
        for member_id, regex in subscribed_topic_regex.items()
        if regex and member_id in subscribed_topic_names
    )
    return classify(member_count, by_name, regex_users, resolved_regexes)


def classify(
    member_count: int,
    by_name: Mapping[str, int],
    regex_users: Mapping[str, int],
    resolved_regexes: Mapping[str, Collection[str]],
) -> SubscriptionType:
    """``subscription_type`` from the counts: members naming each topic (each member counted
    once per topic), members per regex (empty regexes not counted), and the group's resolved
    regexes. What the coordinator keeps as it goes, so a target computation need not walk
    every member's subscription again."""
    by_regex: Counter[str] = Counter()
    for matched in resolved_regexes.values():
        by_regex.update(set(matched))
    counted = by_name.keys() | by_regex.keys()

    if not regex_users:
        if all(by_name.get(topic, 0) == member_count for topic in counted):
            return SubscriptionType.HOMOGENEOUS
        return SubscriptionType.HETEROGENEOUS

    one_regex_for_all = len(regex_users) == 1 and next(iter(regex_users.values())) == member_count
    if one_regex_for_all and all(
        by_regex[topic] == 1 and by_name.get(topic, 0) == 0 for topic in counted
    ):
        return SubscriptionType.HOMOGENEOUS
    return SubscriptionType.HETEROGENEOUS


def classify_subscriptions(
    members_per_subscription: Mapping[tuple[tuple[str, ...], str | None], int],
    resolved_regexes: Mapping[str, Collection[str]],
) -> SubscriptionType:
    """``subscription_type`` from the number of members per distinct subscription (topic names,
    regex): members mostly share one, so a target computation counts each once."""
    by_name: dict[str, int] = {}
    regex_users: dict[str, int] = {}
    member_count = 0
    for (names, regex), count in members_per_subscription.items():
        member_count += count
        for name in set(names):
            by_name[name] = by_name.get(name, 0) + count
        if regex:
            regex_users[regex] = regex_users.get(regex, 0) + count
    return classify(member_count, by_name, regex_users, resolved_regexes)
