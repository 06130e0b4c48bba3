"""Differential check of kgspec's streams sticky assignor against Kafka's own ``StickyTaskAssignor``.

A developer script (never a test dependency): it needs an oracle build (``/work/shared/oracle/README.md``,
``build.sh``) whose ``$ORACLE_DIR/classes`` holds Kafka's compiled assignor. It writes a small Java
driver (kgspec's own code: it builds a ``GroupSpec`` from JSON, members in the order given, and prints the
assignor's answer), compiles it against that build, feeds it seeded random inputs (several members per
process, UUID-like and short ids, previous actives and standbys, and on trunk reported task offsets with
ties) and compares every answer with :func:`kgspec.model.streams.assign_tasks`.

    ORACLE_DIR=/tmp/oracle-4.3 python scripts/oracle_streams_assignor.py --release 4.3 --cases 2000
    ORACLE_DIR=/tmp/oracle-trunk python scripts/oracle_streams_assignor.py --release trunk --cases 2000

Exit 0 when every case matches; otherwise the first mismatches are printed as JSON (input, Kafka, kgspec).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

from kgspec.model.streams import SubtopologyTasks, TaskMemberSpec, assign_tasks

_JAVA = r"""
import com.fasterxml.jackson.databind.*;
import com.fasterxml.jackson.databind.node.*;
import org.apache.kafka.coordinator.group.streams.assignor.*;
%(api_import)s
import java.io.*;
import java.util.*;

public class AssignMain {
    public static void main(String[] a) throws Exception {
        ObjectMapper om = new ObjectMapper();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            JsonNode c = om.readTree(line);
            Map<String, %(spec)s> members = new LinkedHashMap<>();
            for (JsonNode m : c.get("members")) {
                String pid = m.get("process").asText();
                members.put(m.get("id").asText(), %(new_spec)s);
            }
            List<String> subs = new ArrayList<>();
            Map<String, int[]> info = new HashMap<>();
            for (JsonNode s : c.get("subs")) {
                subs.add(s.get("id").asText());
                info.put(s.get("id").asText(), new int[]{s.get("n").asInt(), s.get("stateful").asBoolean() ? 1 : 0});
            }
            TopologyDescriber td = new TopologyDescriber() {
                public List<String> subtopologies() { return subs; }
                public int maxNumInputPartitions(String s) { return info.get(s)[0]; }
                public boolean isStateful(String s) { return info.get(s)[1] == 1; }
            };
            ObjectNode out = om.createObjectNode();
            try {
                GroupAssignment r = new StickyTaskAssignor().assign(new GroupSpecImpl(members, %(configs)s), td);
                ObjectNode act = out.putObject("active"), stb = out.putObject("standby");
                r.members().forEach((mid, ma) -> {
                    act.set(mid, om.valueToTree(new TreeMap<>(ma.activeTasks())));
                    stb.set(mid, om.valueToTree(new TreeMap<>(ma.standbyTasks())));
                });
            } catch (TaskAssignorException e) {
                out.put("error", e.getMessage());
            }
            System.out.println(om.writeValueAsString(out));
        }
    }

    static Map<String, Set<Integer>> tasks(JsonNode n) {
        Map<String, Set<Integer>> r = new HashMap<>();
        if (n != null) n.fields().forEachRemaining(e -> {
            Set<Integer> s = new HashSet<>();
            e.getValue().forEach(p -> s.add(p.asInt()));
            r.put(e.getKey(), s);
        });
        return r;
    }

    static Map<String, Map<Integer, Long>> offsets(JsonNode n) {
        Map<String, Map<Integer, Long>> r = new HashMap<>();
        if (n != null) n.fields().forEachRemaining(e -> {
            Map<Integer, Long> s = new HashMap<>();
            e.getValue().fields().forEachRemaining(p -> s.put(Integer.parseInt(p.getKey()), p.getValue().asLong()));
            r.put(e.getKey(), s);
        });
        return r;
    }
}
"""

_RELEASES = {
    "4.3": {"api_import": "", "spec": "AssignmentMemberSpec",
            "new_spec": "new AssignmentMemberSpec(Optional.empty(), Optional.empty(), tasks(m.get(\"active\")), "
                        "tasks(m.get(\"standby\")), Map.of(), pid, Map.of(), Map.of(), Map.of())",
            "configs": "Map.of(\"num.standby.replicas\", c.get(\"replicas\").asText())"},
    "trunk": {"api_import": "import org.apache.kafka.coordinator.group.api.streams.assignor.*;",
              "spec": "MemberMetadataAndStateImpl",
              "new_spec": "new MemberMetadataAndStateImpl(Optional.empty(), Optional.empty(), pid, Map.of(), "
                          "tasks(m.get(\"active\")), tasks(m.get(\"standby\")), Map.of(), offsets(m.get(\"offsets\")), "
                          "Map.of())",
              "configs": "new AssignmentConfigsImpl(c.get(\"replicas\").asInt(), List.of())"},
}


def random_case(rng: random.Random, with_offsets: bool, max_members: int = 8) -> dict[str, Any]:
    """Members (often several per process), subtopologies, a previous assignment, maybe offsets."""
    n_proc = rng.randint(1, max(1, max_members // 2))
    short = rng.random() < 0.5
    processes = [f"process{i}" if short else str(uuid.UUID(int=rng.getrandbits(128))) for i in range(n_proc)]
    n_members = rng.randint(1, max_members)
    members: list[dict[str, Any]] = []
    for i in range(n_members):
        mid = f"member{i}" if short else str(uuid.UUID(int=rng.getrandbits(128)))
        members.append({"id": mid, "process": rng.choice(processes), "active": {}, "standby": {}, "offsets": {}})
    subs = [{"id": str(i) if rng.random() < 0.7 else f"sub-{i}", "n": rng.randint(1, 7),
             "stateful": rng.random() < 0.7} for i in range(rng.randint(1, 3))]
    replicas = rng.choice([0, 0, 1, 1, 2])
    for s in subs:
        for p in range(s["n"]):
            if rng.random() < 0.6:  # a previous active owner (at most one)
                rng.choice(members)["active"].setdefault(s["id"], []).append(p)
            for m in members:
                if rng.random() < 0.2 and p not in m["active"].get(s["id"], []):
                    m["standby"].setdefault(s["id"], []).append(p)
            if with_offsets:
                for m in members:
                    if rng.random() < 0.3:
                        m["offsets"].setdefault(s["id"], {})[str(p)] = rng.choice([0, 5, 5, 10, 100])
    return {"members": members, "subs": subs, "replicas": replicas}


def model_answer(case: dict[str, Any], release: str) -> dict[str, Any]:
    specs = [TaskMemberSpec(m["id"], m["process"],
                            {s: frozenset(ps) for s, ps in m["active"].items()},
                            {s: frozenset(ps) for s, ps in m["standby"].items()},
                            {s: {int(p): o for p, o in ps.items()} for s, ps in m.get("offsets", {}).items()})
             for m in case["members"]]
    subs = [SubtopologyTasks(s["id"], s["n"], s["stateful"]) for s in case["subs"]]
    result = assign_tasks(specs, subs, case["replicas"], compute_if_absent=release == "trunk")
    return {role: {m: {s: sorted(ps) for s, ps in sorted(t.items()) if ps} for m, t in by.items()}
            for role, by in (("active", result.active), ("standby", result.standby))}


def _kafka_plain(answer: dict[str, Any]) -> dict[str, Any]:
    return {role: {m: {s: sorted(ps) for s, ps in t.items() if ps} for m, t in answer[role].items()}
            for role in ("active", "standby")}


def compile_driver(release: str, oracle_dir: Path, work: Path) -> list[str]:
    src = work / "AssignMain.java"
    src.write_text(_JAVA % _RELEASES[release])
    cp = f"{oracle_dir / 'classes'}:{(oracle_dir / 'classpath.txt').read_text().strip()}"
    subprocess.run(["javac", "-nowarn", "-cp", cp, "-d", str(work), str(src)], check=True, capture_output=True)
    return ["java", "-cp", f"{work}:{cp}", "AssignMain"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--release", choices=sorted(_RELEASES), default="4.3")
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-members", type=int, default=8)
    parser.add_argument("--show", type=int, default=3, help="mismatches to print")
    args = parser.parse_args(argv)
    oracle_dir = Path(os.environ.get("ORACLE_DIR", ""))
    if not (oracle_dir / "classes").is_dir():
        parser.error("set ORACLE_DIR to an oracle build folder (see /work/shared/oracle/README.md)")
    rng = random.Random(args.seed)
    cases = [random_case(rng, args.release == "trunk", args.max_members) for _ in range(args.cases)]
    with tempfile.TemporaryDirectory() as tmp:
        cmd = compile_driver(args.release, oracle_dir, Path(tmp))
        lines = "".join(json.dumps(c) + "\n" for c in cases)
        out = subprocess.run(cmd, input=lines, text=True, capture_output=True, check=True).stdout.splitlines()
    bad = 0
    for case, line in zip(cases, out, strict=True):
        kafka = json.loads(line)
        if "error" in kafka:
            continue  # no member at all: never generated, but keep the comparison honest
        mine = model_answer(case, args.release)
        if _kafka_plain(kafka) != mine:
            bad += 1
            if bad <= args.show:
                print(json.dumps({"input": case, "kafka": _kafka_plain(kafka), "kgspec": mine}))
    print(f"{args.release}: {len(cases) - bad}/{len(cases)} cases match Kafka", file=sys.stderr)
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
