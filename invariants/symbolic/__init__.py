"""Z3 encodings of group reconciliation: inductive proofs and bounded model checking.

See docs/proofs.md. Modules: :mod:`.sorts`, :mod:`.state` (state variables), :mod:`.rules`
(transition relation), :mod:`.invariants`, :mod:`.prover` (unbounded inductive proofs),
:mod:`.bmc` (counterexample search over a small finite instance), :mod:`.concrete` (a plain
Python re-implementation, concrete states and the refinement hooks), :mod:`.abstraction`
(the simulator's model abstracted step by step and checked against the relation).
Counterexamples are replayed through the mutated model into contract traces by
:mod:`kgspec.conformance.counterexample` (trace writing sits above the invariants).

Counterexample steps (``bmc.Counterexample.steps``) are JSON-able dicts, one per action::

    {"action": "join", "member": "m1", "subscribed": ["p0", "p1"]}
    {"action": "bump"}
    {"action": "recompute", "assignment_epoch": 3,
     "target": {"m1": ["p0"], "m2": ["p1"]}}
    {"action": "heartbeat", "member": "m1", "response": "delivered" | "lost",
     "result": {"epoch": 3, "state": "STABLE", "assigned": ["p0"], "pending": []}}
    {"action": "heartbeat", "member": "m1", "response": "lost", "reported": false}
    {"action": "client_receive", "member": "m1", "client_epoch": 3}
    {"action": "client_reconcile" | "client_release", "member": "m1", "owned": ["p0"]}
    ("client_release" may also carry "client_epoch": 0)
    {"action": "heartbeat_fenced" | "zombie_heartbeat" | "leave" | "session_timeout"
               | "rebalance_timeout" | "static_leave" | "failover", "member": "m1"}
    {"action": "replace", "member": "m1", "new_member": "m3"}
    {"action": "static_return" | "shrink" | "duplicate", "member": "m1"}
    {"action": "resubscribe", "member": "m1", "subscribed": ["p0"]}
    {"action": "heartbeat_stale", "member": "m1", "result": {...}}   (the network's copy)

For streams, every task set (``subscribed`` excepted) is a dict by role:
``{"active": [...], "standby": [...], "warmup": [...]}``. ``result`` is what the coordinator
computed (informational; a replay recomputes and compares it).
"""
