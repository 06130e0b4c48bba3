"""The classic (JoinGroup/SyncGroup) group lifecycle.

Kafka source: group-coordinator/.../classic/ClassicGroupState.java, whose
``validPreviousStates`` is the only transition table (``ClassicGroup.transitionTo``
asserts it), and the GroupMetadataManager handlers that call ``transitionTo``.
"""

from __future__ import annotations

from types import MappingProxyType

from kgspec.spec.declarations import Declaration, transition

EMPTY, PREPARING_REBALANCE = "EMPTY", "PREPARING_REBALANCE"
COMPLETING_REBALANCE, STABLE, DEAD = "COMPLETING_REBALANCE", "STABLE", "DEAD"

#: Copied from ClassicGroupState's static block: state -> states it may be entered from.
VALID_PREVIOUS_STATES = MappingProxyType({
    EMPTY: (PREPARING_REBALANCE,),
    PREPARING_REBALANCE: (STABLE, COMPLETING_REBALANCE, EMPTY),
    COMPLETING_REBALANCE: (PREPARING_REBALANCE,),
    STABLE: (COMPLETING_REBALANCE,),
    DEAD: (STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE, EMPTY, DEAD),
})

CLASSIC_GROUP = Declaration(
    name="classic-group",
    title="Classic group (ClassicGroupState)",
    doc="Edges are exactly ClassicGroupState.validPreviousStates.",
    states=(EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD),
    initial=EMPTY,
    transitions=(
        transition("prepare_rebalance", EMPTY, PREPARING_REBALANCE, """
            GroupMetadataManager.prepareRebalance on the first join: the initial rebalance
            is delayed by group.initial.rebalance.delay.ms."""),
        transition("prepare_rebalance", (STABLE, COMPLETING_REBALANCE), PREPARING_REBALANCE, """
            GroupMetadataManager.prepareRebalance: a member joined, left, changed metadata or
            expired (COMPLETING: pending syncs fail with REBALANCE_IN_PROGRESS)."""),
        transition("join_completed", PREPARING_REBALANCE, COMPLETING_REBALANCE, """
            completeClassicGroupJoin -> ClassicGroup.initNextGeneration with members:
            generationId++, protocol chosen by vote, join futures completed."""),
        transition("join_completed_empty", PREPARING_REBALANCE, EMPTY, """
            completeClassicGroupJoin -> initNextGeneration with no members left:
            generationId++, protocol none, GroupMetadata record with no members."""),
        transition("leader_synced", COMPLETING_REBALANCE, STABLE, """
            classicGroupSync: the leader's assignment is persisted (GroupMetadata record) and
            propagated to every pending SyncGroup."""),
        transition("unloaded", (EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD),
                   DEAD, """
            ClassicGroup onUnloaded (DEAD -> DEAD is allowed by validPreviousStates);
            deletion itself happens by tombstone replay."""),
    ),
)
