"""The catalogue of invariants: every name, once, with its meaning and both of its definitions.

Each :class:`Entry` says what the invariant means, which protocols it covers, the one Python
function that defines its executable check (``check``; the functions that only adapt inputs
to it are ``adapters``) and the name of its Z3 encoding in ``invariants/symbolic`` (the same
name: ``symbolic`` is the name or None). Where one side has none, ``no_check`` /
``no_symbolic`` says why.

The name constants below are the only place an invariant's name is spelled: the checks, the
trace checker (the ``field`` of ``invariant`` findings), the simulator and the fuzzer import
them. ``tests/test_invariant_catalogue.py`` keeps this table, ``invariants/symbolic`` and the
Python side in step, and ``docs/invariants.md`` is rendered from it (:func:`render_markdown`).

Some ``kgspec check`` findings kept the protocol-prefixed names they had before the catalogue
(``streams-single-active-owner`` ...): those entries are instances of a general rule
(``same_rule_as``) and their checks call that rule's core predicate.

This module imports nothing from the model, so any module can import its names.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

CONSUMER, STREAMS, CLASSIC, CONNECT, MIGRATION = "consumer", "streams", "classic", "connect", "migration"
PROTOCOLS = (CONSUMER, STREAMS, CLASSIC, CONNECT, MIGRATION)

# Kinds: over one state; over two successive states; over one call (request, response);
# bounded liveness; over the records of a trace; what a client reports (kgspec check --clients);
# a lemma of the Z3 proofs (auxiliary, strengthening).
STATE, STEP, CALL, LIVENESS, RECORDS, CLIENT, LEMMA = "state", "step", "call", "liveness", "records", "client", "lemma"

# --- names ------------------------------------------------------------------------------
NO_DOUBLE_OWNERSHIP = "no-double-ownership"
CLIENT_NO_DOUBLE_OWNERSHIP = "client-no-double-ownership"
PARTITION_EPOCH_INDEX = "partition-epoch-index"
PROCESSID_EXCLUSIVITY = "processid-exclusivity"
TARGET_VALIDITY = "target-validity"
EPOCH_MONOTONICITY = "epoch-monotonicity"
EPOCH_FENCING = "epoch-fencing"
SESSION_EXPIRY = "session-expiry"
COMMIT_FENCING = "commit-fencing"
STATE_DERIVATION = "state-derivation"
REPLAY_EQUIVALENCE = "replay-equivalence"
CONVERGENCE = "convergence"
LOST_ASSIGNMENT = "lost-assignment"
NO_TASKS_WHILE_NOT_READY = "no-tasks-while-not-ready"
REPLAY = "replay"
# kgspec check's streams findings (their names predate the catalogue)
STREAMS_SINGLE_ACTIVE_OWNER = "streams-single-active-owner"
STREAMS_PROCESS_EXCLUSIVITY = "streams-process-exclusivity"
STREAMS_TARGET_VALIDITY = "streams-target-validity"
STREAMS_NO_TASKS_WHILE_NOT_READY = "streams-no-tasks-while-not-ready"
STREAMS_EPOCH_WHILE_REVOKING = "streams-epoch-while-revoking"
# Connect (docs/connect.md)
CONNECT_NO_DOUBLE_OWNERSHIP = "connect-no-double-ownership"
CONNECT_TARGET_VALIDITY = "connect-target-validity"
CONNECT_EPOCH_BOUND = "connect-epoch-bound"
# classic
CLASSIC_GENERATION_MONOTONIC = "classic-generation-monotonic"
CLASSIC_ONE_LEADER = "classic-one-leader"
CLASSIC_ONE_PROTOCOL = "classic-one-protocol"
CLASSIC_STABLE_ASSIGNMENT = "classic-stable-assignment"
# client-side rules (kgspec check --clients)
CLIENT_OWNS_ONLY_GIVEN = "client-owns-only-given"
CLIENT_REVOKES_BEFORE_GAIN = "client-revokes-before-gain"
# lemmas of the Z3 proofs
PROCESS_ROLE_MAPS = "process-role-maps"
HOLDERS_ARE_MEMBERS = "holders-are-members"
PENDING_ONLY_WHEN_UNREVOKED = "pending-only-when-unrevoked"
ASSIGNED_PENDING_DISJOINT = "assigned-pending-disjoint"
CLIENT_WITHIN_COORDINATOR = "client-within-coordinator"
AWAY_CLIENT_CLOSED = "away-client-closed"
CLIENT_EPOCH_BOUNDED = "client-epoch-bounded"
RECONCILED_WITHIN_TARGET = "reconciled-within-target"
UNREVOKED_BEHIND_TARGET = "unrevoked-behind-target"
COPY_EPOCH_BOUNDED = "copy-epoch-bounded"

#: Names a harness reports that are not invariants (the simulator's ``Violation``s).
HARNESS_NAMES: dict[str, str] = {
    "model-exception": "the model raised while the simulator ran it (OwnershipConflict, ...): a finding, "
                       "not a crash of the run",
}

_INV = "kgspec.invariants."
_MODEL = "kgspec.model."
_LEMMA_CHECK = ("a lemma of the Z3 proofs, not a separate Python predicate: the refinement test checks it on "
                "every abstracted simulator state (invariants/symbolic/abstraction.py)")
_NOT_ENCODED = "the Z3 encodings cover consumer and streams reconciliation only (docs/proofs.md, Not covered)"


@dataclass(frozen=True, slots=True)
class Entry:
    name: str
    meaning: str
    protocols: tuple[str, ...]
    kind: str
    check: str | None  # "module:qualified.name" of the Python function that defines the check
    symbolic: str | None  # its name in kgspec.invariants.symbolic.invariants.INVARIANTS
    no_check: str = ""  # why there is no executable check
    no_symbolic: str = ""  # why there is no Z3 encoding
    core: str | None = None  # the shared predicate ``check`` is built on (model/exclusivity.py)
    adapters: tuple[str, ...] = ()  # functions that apply the rule to other inputs, through check or core
    same_rule_as: str | None = None  # the general entry this protocol-specific name instantiates
    finding: bool = False  # kgspec check reports it (the ``field`` of an ``invariant`` finding)
    renamed_from: tuple[str, ...] = ()


def _same_rule(name: str, rule: str, meaning: str, protocols: tuple[str, ...], kind: str, check: str, *,
               adapters: tuple[str, ...] = (), no_symbolic: str = "") -> Entry:
    """A protocol-specific name of general rule ``rule`` that ``kgspec check`` reports: no Z3 encoding
    of its own (``no_symbolic`` is "see <rule>" unless given)."""
    return Entry(name, meaning, protocols, kind, check, None, no_symbolic=no_symbolic or f"see {rule}",
                 adapters=adapters, same_rule_as=rule, finding=True)


ENTRIES: tuple[Entry, ...] = (
    Entry(NO_DOUBLE_OWNERSHIP,
          "A partition (streams: an active task) is in at most one member's assigned ∪ pending-revocation set, "
          "and never in both sets of one member; no two current members' clients own it at once.",
          (CONSUMER, STREAMS, MIGRATION), STATE, _INV + "ownership:no_double_ownership", NO_DOUBLE_OWNERSHIP,
          core=_MODEL + "exclusivity:Exclusive.claim",
          adapters=("kgspec.conformance.call_invariants:observed_call_problems",
                    "kgspec.invariants.symbolic.concrete:python_holds"),
          finding=True),
    Entry(CLIENT_NO_DOUBLE_OWNERSHIP,
          "No two clients in good standing (their member is current at the client's epoch) believe they own "
          "the same partition (streams: active task).",
          (CONSUMER, STREAMS), STATE, _INV + "ownership:client_no_double_ownership", None,
          core=_MODEL + "exclusivity:Exclusive.claim",
          no_symbolic="encoded as the client half of no-double-ownership (owned_act of current members)"),
    Entry(PARTITION_EPOCH_INDEX,
          "The partition-epoch index (Kafka's ConsumerGroup.partitionEpochs) is derived state: a held partition "
          "maps to its holder's member epoch, a free one has no entry. Withholding reads it. (Z3: also the "
          "streams index of each active task's owner.)",
          (CONSUMER, STREAMS), STATE, _INV + "ownership:partition_epoch_index", PARTITION_EPOCH_INDEX,
          renamed_from=("partition-epoch-map",)),
    Entry(PROCESSID_EXCLUSIVITY,
          "An active task has one member, and a streams process holds a task at most once, in any roles "
          "(KAFKA-20899); trunk's in-place demotion counts once.",
          (STREAMS, MIGRATION), STATE, _INV + "exclusivity:task_conflicts", PROCESSID_EXCLUSIVITY,
          core=_MODEL + "exclusivity:Exclusive.claim",
          adapters=(_INV + "processid:processid_exclusivity", _INV + "streams:holdings_problems")),
    Entry(TARGET_VALIDITY,
          "Targets go only to members and give a partition (streams: an active task; a process: a task) to at "
          "most one; a current target covers every subscribed partition, each within its owner's subscription "
          "(streams: the sticky assignor's guarantees).",
          (CONSUMER, STREAMS, MIGRATION), STATE, _INV + "target:target_validity", TARGET_VALIDITY,
          core=_INV + "target:target_overlaps",
          adapters=(_INV + "streams_group:streams_target_validity",
                    "kgspec.model.assignors.guarantees:validate_assignment"),
          finding=True),
    Entry(EPOCH_MONOTONICITY,
          "Assignment epoch ≤ group epoch and no member runs ahead of it; epochs never go back; a member entering "
          "UNREVOKED keeps its epoch (it moves only once nothing is left to revoke).",
          (CONSUMER, STREAMS, MIGRATION), STEP, _INV + "epochs:epoch_changes", EPOCH_MONOTONICITY,
          adapters=(_INV + "epochs:epoch_monotonicity", "kgspec.conformance.invariant_hooks:member_record_problems",
                    "kgspec.conformance.call_invariants:observed_epoch_problems"),
          finding=True),
    Entry(EPOCH_FENCING,
          "A heartbeat with a positive epoch is accepted only at the member epoch, or at exactly the previous "
          "epoch when the owned set it reports is within the assigned set (a lost response).",
          (CONSUMER, STREAMS, MIGRATION), CALL, _INV + "epochs:accepted_epoch_problems", EPOCH_FENCING,
          adapters=(_INV + "epochs:epoch_fencing", _INV + "streams_group:streams_epoch_fencing"),
          finding=True),
    Entry(SESSION_EXPIRY,
          "A member whose session deadline has passed is no longer in the group.",
          (CONSUMER, STREAMS), LIVENESS, _INV + "liveness:session_expiry", SESSION_EXPIRY),
    Entry(COMMIT_FENCING,
          "A request the client sent at the member's current epoch (a late heartbeat, an OffsetCommit) names only "
          "tasks the member still holds: a task leaves a member only with an epoch bump. Executable: an accepted "
          "OffsetCommit names only partitions (streams: active tasks) its member held at the committed epoch.",
          (CONSUMER, STREAMS), STATE, _INV + "offsets:commit_fencing", COMMIT_FENCING,
          adapters=(_INV + "offsets:commit_fencing_problems",), finding=True),
    Entry(STATE_DERIVATION,
          "The group state is Kafka's maybeUpdateGroupState of its members and epochs, never set; the model's "
          "index of unreconciled members agrees.",
          (CONSUMER,), STATE, _INV + "derivation:state_derivation", None,
          no_symbolic="the abstract state has no group state: it is a function of the encoded fields"),
    Entry(REPLAY_EQUIVALENCE,
          "Replaying every record written so far into a fresh coordinator rebuilds the live group exactly "
          "(timers aside).",
          (CONSUMER, STREAMS), STATE, _INV + "replay:replay_equivalence", None,
          no_symbolic="the encoded state is the records' content; a failover is a stutter (only the "
                      "replay-drops-tombstone mutant has a failover action)"),
    Entry(CONVERGENCE,
          "Within the bound after faults stop, members are exactly the live clients and every one is STABLE at "
          "the assignment epoch on both sides, owning exactly its target.",
          (CONSUMER, STREAMS), LIVENESS, _INV + "liveness:converged_problems", None,
          adapters=(_INV + "liveness:convergence", _INV + "streams_group:streams_convergence"),
          no_symbolic="liveness: the proofs are about safety (docs/proofs.md, Not covered)"),
    Entry(LOST_ASSIGNMENT,
          "A streams member STABLE at the assignment epoch whose client runs fewer tasks than it is assigned "
          "(a lost response Kafka never repairs): reported beside convergence, not a failure.",
          (STREAMS,), LIVENESS, _INV + "streams_group:lost_assignments", None,
          no_symbolic="a Kafka gap the simulator reports, not an invariant"),
    Entry(NO_TASKS_WHILE_NOT_READY,
          "A target computed while a streams group's topology is not ready (NotReady) is empty, and while NotReady "
          "a member is granted only tasks of its target computed earlier, when the topology was ready (kept by "
          "4.3's assignment interval: ASSIGNMENT_DELAYED, the assignment epoch below the group epoch).",
          (STREAMS,), STATE, _INV + "streams_group:no_tasks_while_not_ready", None,
          no_symbolic="the encoding has no topology (readiness, internal topics)"),
    Entry(REPLAY,
          "Every record is one Kafka's replay accepts (member tombstones in order, known members, ...).",
          (CONSUMER, STREAMS, CLASSIC, CONNECT, MIGRATION), RECORDS, "kgspec.model.coordinator:Coordinator.replay",
          None, no_symbolic="the encoding's records are its state; record syntax is not encoded", finding=True),
    # kgspec check's streams findings
    _same_rule(STREAMS_SINGLE_ACTIVE_OWNER, NO_DOUBLE_OWNERSHIP,
               "no-double-ownership over streams active tasks, as kgspec check names it.",
               (STREAMS, MIGRATION), STATE, _INV + "streams:holdings_problems"),
    _same_rule(STREAMS_PROCESS_EXCLUSIVITY, PROCESSID_EXCLUSIVITY,
               "processid-exclusivity of the members' tasks and of the target, as kgspec check names it.",
               (STREAMS, MIGRATION), STATE, _INV + "streams:holdings_problems",
               adapters=(_INV + "streams:target_problems",)),
    _same_rule(STREAMS_TARGET_VALIDITY, TARGET_VALIDITY,
               "target-validity's overlap half for streams (an active task in one target), checked at record 20.",
               (STREAMS, MIGRATION), RECORDS, _INV + "streams:target_problems"),
    _same_rule(STREAMS_NO_TASKS_WHILE_NOT_READY, NO_TASKS_WHILE_NOT_READY,
               "no-tasks-while-not-ready, as kgspec check names it (the target, or an observed response).",
               (STREAMS, MIGRATION), STATE, _INV + "streams:target_problems",
               adapters=(_INV + "streams:response_problems",)),
    _same_rule(STREAMS_EPOCH_WHILE_REVOKING, EPOCH_MONOTONICITY,
               "epoch-monotonicity's revoking clause for an observed streams response: a member that still owns "
               "a task it must revoke keeps its epoch.",
               (STREAMS, MIGRATION), CALL, _INV + "streams:response_problems"),
    # Connect
    _same_rule(CONNECT_NO_DOUBLE_OWNERSHIP, NO_DOUBLE_OWNERSHIP,
               "A connector or task is owned (assigned or pending revocation) by at most one worker.",
               (CONNECT,), STATE, _INV + "connect:no_double_ownership", no_symbolic=_NOT_ENCODED),
    _same_rule(CONNECT_TARGET_VALIDITY, TARGET_VALIDITY,
               "The installed target gives each connector or task to at most one worker.",
               (CONNECT,), STATE, _INV + "connect:target_validity", no_symbolic=_NOT_ENCODED),
    _same_rule(CONNECT_EPOCH_BOUND, EPOCH_MONOTONICITY,
               "No worker is ahead of the assignment epoch, and the assignment epoch is not ahead of the group "
               "epoch.",
               (CONNECT,), STATE, _INV + "connect:epoch_bound", adapters=(_INV + "epochs:epoch_changes",),
               no_symbolic=_NOT_ENCODED),
    # classic
    Entry(CLASSIC_GENERATION_MONOTONIC,
          "A classic group's generation never goes back (GroupMetadata records and JoinGroup responses).",
          (CLASSIC,), RECORDS, _INV + "classic:ClassicHistory.see_generation", None, no_symbolic=_NOT_ENCODED,
          finding=True),
    Entry(CLASSIC_ONE_LEADER,
          "A stored classic group's leader is one of its members (none when it has none).",
          (CLASSIC,), RECORDS, _INV + "classic:record_problems", None, no_symbolic=_NOT_ENCODED, finding=True),
    Entry(CLASSIC_ONE_PROTOCOL,
          "Every successful JoinGroup response of one generation names the same protocol.",
          (CLASSIC,), CALL, _INV + "classic:join_response_problems", None, no_symbolic=_NOT_ENCODED, finding=True),
    Entry(CLASSIC_STABLE_ASSIGNMENT,
          "A stored non-empty generation has a protocol and an assignment for every member.",
          (CLASSIC,), RECORDS, _INV + "classic:record_problems", None, no_symbolic=_NOT_ENCODED, finding=True),
    # client-side rules
    Entry(CLIENT_OWNS_ONLY_GIVEN,
          "A client never reports owning a partition it was not given (its last assignment, nothing after fencing).",
          (CONSUMER,), CLIENT, _INV + "client:ClientLedger.observe", None,
          no_symbolic="a rule about what one client reports; the encoding's clients are bounded by "
                      "client-within-coordinator instead"),
    Entry(CLIENT_REVOKES_BEFORE_GAIN,
          "A client acknowledges a revocation (reports owning none of it) before it reports any new partition.",
          (CONSUMER,), CLIENT, _INV + "client:ClientLedger.observe", None,
          no_symbolic="a rule about what one client reports; the encoding's client reconciles atomically "
                      "(client_reconcile)"),
    # lemmas of the Z3 proofs
    Entry(PROCESS_ROLE_MAPS,
          "A member's standby / warm-up task is recorded for its process in the coordinator's process maps.",
          (STREAMS,), LEMMA, None, PROCESS_ROLE_MAPS, no_check=_LEMMA_CHECK),
    Entry(HOLDERS_ARE_MEMBERS,
          "Only members hold tasks or have targets.",
          (CONSUMER, STREAMS), LEMMA, None, HOLDERS_ARE_MEMBERS,
          no_check="structural in the model (assignments are fields of member records); the target half is "
                   "in target-validity"),
    Entry(PENDING_ONLY_WHEN_UNREVOKED,
          "Pending revocations exist only in state UNREVOKED.",
          (CONSUMER, STREAMS), LEMMA, None, PENDING_ONLY_WHEN_UNREVOKED, no_check=_LEMMA_CHECK),
    Entry(ASSIGNED_PENDING_DISJOINT,
          "A task is never both assigned and pending revocation for one member.",
          (CONSUMER, STREAMS), LEMMA, None, ASSIGNED_PENDING_DISJOINT,
          no_check="checked within no-double-ownership (ownership.no_double_ownership)"),
    Entry(CLIENT_WITHIN_COORDINATOR,
          "A member's client owns only what the coordinator has the member holding.",
          (CONSUMER, STREAMS), LEMMA, None, CLIENT_WITHIN_COORDINATOR, no_check=_LEMMA_CHECK),
    Entry(AWAY_CLIENT_CLOSED,
          "A static member after its -2 leave has a closed client and nothing pending.",
          (CONSUMER,), LEMMA, None, AWAY_CLIENT_CLOSED, no_check=_LEMMA_CHECK),
    Entry(CLIENT_EPOCH_BOUNDED,
          "A member's client epoch never runs ahead of the member epoch.",
          (CONSUMER, STREAMS), LEMMA, None, CLIENT_EPOCH_BOUNDED, no_check=_LEMMA_CHECK),
    Entry(RECONCILED_WITHIN_TARGET,
          "A member at the assignment epoch is assigned only target tasks.",
          (CONSUMER, STREAMS), LEMMA, None, RECONCILED_WITHIN_TARGET, no_check=_LEMMA_CHECK),
    Entry(UNREVOKED_BEHIND_TARGET,
          "A revoking streams member still assigned something outside the target is at least two epochs behind "
          "it, and never revokes at the target epoch.",
          (STREAMS,), LEMMA, None, UNREVOKED_BEHIND_TARGET, no_check=_LEMMA_CHECK),
    Entry(COPY_EPOCH_BOUNDED,
          "The network's copy of a member's request never carries an epoch above the member's.",
          (CONSUMER, STREAMS), LEMMA, None, COPY_EPOCH_BOUNDED, no_check=_LEMMA_CHECK),
)

CATALOGUE: dict[str, Entry] = {e.name: e for e in ENTRIES}

#: Names used before, and the name that replaced each (the entries' ``renamed_from``).
RENAMED: dict[str, str] = {old: e.name for e in ENTRIES for old in e.renamed_from}


# --- records only (issue #21 A.2) -----------------------------------------------------------
# Where a group is known only by its records (kafka-dump-log, console output, a records-only
# trace), each invariant a sequence of records can break is checked at the records that show it;
# the rest says why records cannot show it. Record types are Kafka's keys (the Connect draft's
# 1000-1004). tests/test_check_record_invariants.py breaks each with one changed record.

@dataclass(frozen=True, slots=True)
class RecordReveal:
    types: tuple[int, ...]  # the record types whose values can reveal a departure
    where: str  # the record at which it is checked and reported


ALL_RECORDS = (2, 3, 4, 5, 6, 7, 8, 16, 17, 19, 20, 21, 22, 23, 1000, 1001, 1002, 1003, 1004)

RECORD_REVEALS: dict[str, RecordReveal] = {
    NO_DOUBLE_OWNERSHIP: RecordReveal((8,), "the current-assignment record giving a partition a second owner "
                                            "(Kafka's replay rejects it)"),
    STREAMS_SINGLE_ACTIVE_OWNER: RecordReveal((22,), "the current-assignment record giving an active task a second "
                                                     "owner"),
    PROCESSID_EXCLUSIVITY: RecordReveal((22, 21, 20), "as streams-process-exclusivity"),
    STREAMS_PROCESS_EXCLUSIVITY: RecordReveal((22, 21, 20), "a current-assignment record (22); the target (21) at "
                                                            "the target-metadata record (20) that completes it"),
    TARGET_VALIDITY: RecordReveal((7, 6), "the target the member records (7) build, at the target-metadata record "
                                          "(6) that completes it (contract section 1)"),
    STREAMS_TARGET_VALIDITY: RecordReveal((21, 20), "the target the member records (21) build, at the "
                                                    "target-metadata record (20)"),
    NO_TASKS_WHILE_NOT_READY: RecordReveal((17, 23, 21, 20), "as streams-no-tasks-while-not-ready"),
    STREAMS_NO_TASKS_WHILE_NOT_READY: RecordReveal((17, 23, 21, 20), "the target-metadata record (20) of a target "
                                                                     "giving tasks while the topology (23) is not "
                                                                     "validated (17)"),
    EPOCH_MONOTONICITY: RecordReveal((3, 17, 1000, 6, 20, 8, 22),
                                     "group epoch going back (3, 17, 1000; a tombstone of the group resets it); "
                                     "assignment epoch ahead of the group epoch (6, 20); member epoch ahead of "
                                     "the group epoch (8, 22) or the assignment epoch, or moved while entering "
                                     "UNREVOKED_PARTITIONS (8)"),
    REPLAY: RecordReveal(ALL_RECORDS, "any record Kafka's replay rejects"),
    CLASSIC_GENERATION_MONOTONIC: RecordReveal((2,), "a GroupMetadata record with a lower generation (a tombstone "
                                                     "resets it)"),
    CLASSIC_ONE_LEADER: RecordReveal((2,), "the GroupMetadata record"),
    CLASSIC_STABLE_ASSIGNMENT: RecordReveal((2,), "the GroupMetadata record"),
    CONNECT_NO_DOUBLE_OWNERSHIP: RecordReveal((1004,), "the current-assignment record"),
    CONNECT_TARGET_VALIDITY: RecordReveal((1003,), "the target-assignment record"),
    CONNECT_EPOCH_BOUND: RecordReveal((1000, 1003, 1004), "after each record"),
}

NOT_IN_RECORDS: dict[str, str] = {
    CLIENT_NO_DOUBLE_OWNERSHIP: "what clients believe they own is not written",
    PARTITION_EPOCH_INDEX: "derived state: replay rebuilds it, no record holds it",
    EPOCH_FENCING: "an accepted stale heartbeat writes nothing",
    SESSION_EXPIRY: "a missing tombstone is an absence; records carry no session deadline",
    COMMIT_FENCING: "offset records carry no member epoch",
    STATE_DERIVATION: "the group state is not written",
    REPLAY_EQUIVALENCE: "a property of the model (replaying its own records), checked by the simulator",
    CONVERGENCE: "liveness: over the clients' behaviour in time",
    LOST_ASSIGNMENT: "a lost response writes nothing",
    CLASSIC_ONE_PROTOCOL: "JoinGroup responses; a GroupMetadata record names one protocol",
    STREAMS_EPOCH_WHILE_REVOKING: "an observed response (records: epoch-monotonicity)",
    CLIENT_OWNS_ONLY_GIVEN: "what a client reports is not written",
    CLIENT_REVOKES_BEFORE_GAIN: "what a client reports is not written",
}


def resolve(ref: str) -> Callable[..., Any]:
    """The function a ``module:qualified.name`` reference names."""
    module, _, qualname = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise TypeError(f"{ref} is not callable")
    return obj  # type: ignore[no-any-return]


def check_of(name: str) -> Callable[..., Any]:
    """The function that defines invariant ``name``'s executable check."""
    ref = CATALOGUE[name].check
    if ref is None:
        raise LookupError(f"{name} has no executable check: {CATALOGUE[name].no_check}")
    return resolve(ref)


def _code(ref: str | None) -> str:
    return f"`{ref.removeprefix('kgspec.')}`" if ref else ""


def render_markdown() -> str:
    """docs/invariants.md: the catalogue as tables (``tests/test_invariant_catalogue.py``
    checks the file is up to date and says how to regenerate it)."""
    lines = [
        "# Invariants",
        "",
        "Generated from `invariants/catalogue.py` (`python -m kgspec.invariants.catalogue > docs/invariants.md`);",
        "`tests/test_invariant_catalogue.py` checks it is up to date and keeps the catalogue, the Z3",
        "encodings (`invariants/symbolic/invariants.py`, `docs/proofs.md`) and the Python checks in step.",
        "",
        "Each invariant has one name, used by the simulator and the fuzzer (`Violation.invariant`),",
        "by `kgspec check` (the `field` of an `invariant` finding), and by `kgspec prove --invariant`.",
        "*Check* is the one Python function that defines it; *adapters* only turn their inputs (a",
        "live group, replayed records, an observed response, a GroupSpec, a concrete Z3 state) into",
        "its inputs. *Z3* is the name of its encoding in `invariants/symbolic`, or why there is none.",
        "",
        "Renamed: " + ", ".join(f"`{old}` is now `{new}`" for old, new in RENAMED.items())
        + " (the Z3 lemma took the name the simulator, the fuzzer and `kgspec fuzz --help` use).",
        "",
    ]
    groups: tuple[tuple[str, Callable[[Entry], bool]], ...] = (
        ("Invariants", lambda e: e.kind != LEMMA and e.same_rule_as is None),
        ("Protocol-specific names of the same rules", lambda e: e.same_rule_as is not None),
        ("Lemmas of the Z3 proofs", lambda e: e.kind == LEMMA))
    for title, pick in groups:
        lines += [f"## {title}", "", "| name | meaning | protocols | kind | check | Z3 |", "|---|---|---|---|---|---|"]
        for e in ENTRIES:
            if not pick(e):
                continue
            meaning = e.meaning + (f" Same rule as `{e.same_rule_as}`." if e.same_rule_as else "")
            if e.finding:
                meaning += " Reported by `kgspec check`."
            check = _code(e.check) or f"none: {e.no_check}"
            if e.core:
                check += f" (core: {_code(e.core)})"
            if e.adapters:
                check += "; adapters: " + ", ".join(_code(a) for a in e.adapters)
            z3 = f"`{e.symbolic}`" if e.symbolic else f"none: {e.no_symbolic}"
            lines.append(f"| `{e.name}` | {meaning} | {', '.join(e.protocols)} | {e.kind} | {check} | {z3} |")
        lines.append("")
    lines += ["## What records alone reveal", "",
              "Where a group is known only by its records (`kafka-dump-log`, console output, a records-only",
              "trace), `kgspec check` checks each invariant a sequence of records can break at the records",
              "that show it (record types are Kafka's keys; the Connect draft's are 1000-1004);",
              "`tests/test_check_record_invariants.py` breaks each with one changed record.", "",
              "| name | record types | checked at |", "|---|---|---|"]
    lines += [f"| `{name}` | {', '.join(map(str, r.types))} | {r.where} |" for name, r in RECORD_REVEALS.items()]
    lines += ["", "Not visible in records:", ""]
    lines += [f"- `{name}`: {why}" for name, why in NOT_IN_RECORDS.items()]
    lines += ["", "Other names a harness reports (not invariants):", ""]
    lines += [f"- `{name}`: {why}" for name, why in HARNESS_NAMES.items()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render_markdown(), end="")
