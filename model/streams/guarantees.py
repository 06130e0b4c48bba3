"""What Kafka's sticky task assignor guarantees, as checks that name the offending task.

Guaranteed by ``StickyTaskAssignor`` (4.3):
* every active task of every subtopology is assigned exactly once, to a known member;
* no process holds a task twice (active + standby, or two standbys) — KAFKA-20899;
* standbys exist only for stateful subtopologies and only for real tasks;
* each stateful task gets ``min(num.standby.replicas, processes - 1)`` standbys. The
  standby quota only steers placement: the least-loaded fallback ignores it and walks every
  process that lacks the task, so a replica is skipped only when no such process remains.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from kgspec.model.streams.assignor import SubtopologyTasks, TaskAssignment, TaskMemberSpec


def sticky_guarantee_problems(
    members: Iterable[TaskMemberSpec],
    subtopologies: Iterable[SubtopologyTasks],
    num_standby_replicas: int,
    assignment: TaskAssignment,
) -> list[str]:
    """Human-readable violations; empty when the assignment keeps every guarantee."""
    process_of: Mapping[str, str] = {m.member_id: m.process_id for m in members}
    subs = {s.subtopology_id: s for s in subtopologies}
    problems: list[str] = []
    active_owners: dict[tuple[str, int], list[str]] = {}
    holders: dict[tuple[str, int], list[tuple[str, str]]] = {}  # task -> [(member, role)]
    standby_count: Counter[tuple[str, int]] = Counter()

    for role, by_member in (("active", assignment.active), ("standby", assignment.standby)):
        for member_id, tasks in by_member.items():
            if member_id not in process_of:
                problems.append(f"{role} tasks assigned to unknown member {member_id}")
                continue
            for sid, parts in tasks.items():
                sub = subs.get(sid)
                for p in sorted(parts):
                    task = (sid, p)
                    if sub is None or not 0 <= p < sub.num_tasks:
                        problems.append(f"{role} task {sid}_{p} of member {member_id} does not exist")
                        continue
                    if role == "standby" and not sub.stateful:
                        problems.append(f"standby task {sid}_{p} on member {member_id} "
                                        f"belongs to stateless subtopology {sid}")
                    holders.setdefault(task, []).append((member_id, role))
                    if role == "active":
                        active_owners.setdefault(task, []).append(member_id)
                    else:
                        standby_count[task] += 1

    processes = set(process_of.values())
    expected_standbys = min(num_standby_replicas, max(len(processes) - 1, 0))
    for sid, sub in subs.items():
        for p in range(sub.num_tasks):
            task = (sid, p)
            owners = active_owners.get(task, [])
            if len(owners) != 1:
                problems.append(f"active task {sid}_{p} is assigned {len(owners)} times"
                                + (f" (members {', '.join(owners)})" if owners else ""))
            if sub.stateful and owners and standby_count[task] != expected_standbys:
                problems.append(f"stateful task {sid}_{p} has {standby_count[task]} standbys, "
                                f"expected {expected_standbys}")
    for task, held in sorted(holders.items()):
        by_process: dict[str, list[str]] = {}
        for member_id, role in held:
            by_process.setdefault(process_of[member_id], []).append(f"{role} on {member_id}")
        for pid, roles in sorted(by_process.items()):
            if len(roles) > 1:
                problems.append(f"process {pid} holds task {task[0]}_{task[1]} {len(roles)} times "
                                f"({', '.join(roles)})")
    return problems
