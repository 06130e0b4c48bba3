"""``kgspec prove``: Z3 inductive proofs of the invariants, with BMC counterexamples."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from kgspec.commands import progress

SMT_HINT = "kgspec prove needs the `smt` extra: pip install 'kgspec[smt]'"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "prove", help="prove the invariants inductively with Z3 (any number of members)",
        description="Check Init ⇒ Inv and Inv ∧ Trans ⇒ Inv′ over uninterpreted sorts; for "
                    "anything not proved, search a bounded counterexample and print it as a trace.")
    p.add_argument("--invariant", action="append", metavar="NAME",
                   help="invariant to prove (repeatable; default: the core invariants)")
    p.add_argument("--protocol", choices=("consumer", "streams", "all"), default="all")
    p.add_argument("--mutant", metavar="NAME", help="switch on a seeded bug from the catalogue")
    p.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                   help="per Z3 query (default 60)")
    p.add_argument("--bmc-depth", type=int, default=12, metavar="N",
                   help="BMC depth for counterexamples (default 12)")
    p.add_argument("--json", metavar="PATH|-", help="write results as JSON (- for stdout)")
    p.add_argument("--trace-out", metavar="FILE",
                   help="write the first counterexample as a kgspec-trace/1 file replayed through the "
                        "mutated model, for `kgspec check`")
    p.set_defaults(run=run)


def _usage_error(msg: str) -> int:
    print(f"kgspec prove: {msg}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    try:
        import z3  # noqa: F401
    except ImportError:
        print(SMT_HINT, file=sys.stderr)
        return 2
    from kgspec.invariants.symbolic.invariants import CORE, INVARIANTS
    from kgspec.model.mutants import CATALOGUE

    protocols = ["consumer", "streams"] if args.protocol == "all" else [args.protocol]
    names: list[str] = args.invariant or list(CORE)
    unknown = [n for n in names if n not in INVARIANTS]
    if unknown:
        return _usage_error(f"unknown invariant(s): {', '.join(unknown)}; "
                            f"known: {', '.join(INVARIANTS)}")
    if args.mutant is not None and args.mutant not in CATALOGUE:
        return _usage_error(f"unknown mutant: {args.mutant}; known: {', '.join(CATALOGUE)}")
    if args.invariant:
        for n in names:
            if not any(p in INVARIANTS[n].protocols for p in protocols):
                return _usage_error(f"{n} applies to {', '.join(INVARIANTS[n].protocols)} only")
    if args.bmc_depth < 0 or args.timeout <= 0:
        return _usage_error("--bmc-depth must be >= 0 and --timeout > 0")

    pairs = sum(1 for p in protocols for n in names if p in INVARIANTS[n].protocols)
    with progress.bar("proving", pairs, "invariants") as meter:
        results = [r for p in protocols for r in _prove_protocol(p, names, args, meter)]
    report = {"mutant": args.mutant, "protocols": protocols,
              "all_proved": all(r["result"] == "proved" for r in results), "results": results}
    to_stdout = args.json == "-"
    if not to_stdout:
        _print(results, args.mutant)
    if args.trace_out:
        report["trace_out"] = _export(results, args)
    if args.json:
        text = json.dumps(report, indent=2)
        if to_stdout:
            print(text)
        else:
            with open(args.json, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
    return 0 if report["all_proved"] else 1


def _prove_protocol(protocol: str, names: list[str], args: argparse.Namespace,
                    meter: progress.Bar | None = None) -> list[dict[str, Any]]:
    """Induction proofs of ``names`` for ``protocol``, then a bounded search for each one not
    proved; ``meter`` advances by one per invariant settled."""
    from kgspec.invariants.symbolic.bmc import run_bmc
    from kgspec.invariants.symbolic.invariants import INVARIANTS
    from kgspec.invariants.symbolic.prover import prove_all

    mine = [n for n in names if protocol in INVARIANTS[n].protocols]
    if not mine:
        return []
    proofs = prove_all(protocol, args.mutant, args.timeout, mine)
    if meter is not None:
        meter.advance(sum(1 for n in mine if proofs[n].result == "proved" or args.bmc_depth <= 0))
    out: list[dict[str, Any]] = []
    for n in mine:
        pr = proofs[n]
        entry: dict[str, Any] = {
            "protocol": protocol, "invariant": n, "result": pr.result,
            "seconds": round(pr.seconds, 3), "failed_steps": pr.failed_steps,
            "depends_on": pr.depends_on, "bmc": None, "counterexample": None}
        if pr.result != "proved" and args.bmc_depth > 0:
            t0 = time.perf_counter()
            bmc = run_bmc(protocol, n, args.mutant, args.bmc_depth, args.timeout,
                          async_client=INVARIANTS[n].async_client)
            entry["bmc"] = {"result": bmc.result, "depth": bmc.depth,
                            "seconds": round(time.perf_counter() - t0, 3)}
            if bmc.counterexample is not None:
                entry["result"] = "failed"  # a reachable violation
                entry["counterexample"] = bmc.counterexample.to_json()
            if meter is not None:
                meter.advance()
        out.append(entry)
    return out


def _print(results: list[dict[str, Any]], mutant: str | None) -> None:
    if mutant:
        print(f"mutant: {mutant}")
    for r in results:
        line = f"{r['protocol']:<9} {r['invariant']:<28} {r['result']:<8} {r['seconds']:.2f}s"
        if r["failed_steps"]:
            line += f"  (not inductive at: {', '.join(r['failed_steps'])})"
        print(line)
        bmc = r["bmc"]
        if bmc is None:
            continue
        cex = r["counterexample"]
        if cex is None:
            print(f"    no counterexample from the initial state up to depth {bmc['depth']} "
                  f"({bmc['result']}, {bmc['seconds']:.2f}s)")
            continue
        print(f"    counterexample, {len(cex['steps'])} steps ({bmc['seconds']:.2f}s):")
        if cex["process_of"]:
            print("      processes: " + ", ".join(f"{m}→{p}" for m, p in cex["process_of"].items()))
        for k, text in enumerate(cex["text"], 1):
            print(f"      {k:>2}. {text}" if k <= len(cex["steps"]) else f"      => {text}")


def _export(results: list[dict[str, Any]], args: argparse.Namespace) -> str | None:
    """Replay the first replayable counterexample through the mutated model into a trace."""
    from kgspec.conformance.counterexample import export_trace
    from kgspec.invariants.symbolic.bmc import STREAMS_INSTANCE, STREAMS_TWO_TASKS, run_bmc

    quiet = args.json == "-"
    for entry in results:
        if entry["result"] == "proved":
            continue
        # streams: with one task the sticky assignor never moves it away from a member that
        # stays, so revocations need the two-task instance (tried second: it is slower)
        instances = [STREAMS_INSTANCE, STREAMS_TWO_TASKS] if entry["protocol"] == "streams" else [None]
        for inst in instances:
            bmc = run_bmc(entry["protocol"], entry["invariant"], args.mutant, max(args.bmc_depth, 14),
                          args.timeout, inst=inst, replayable=True)
            if bmc.counterexample is not None:
                break
        if bmc.counterexample is None:
            continue
        exported = export_trace(bmc.counterexample)
        exported.write(args.trace_out)
        entry["trace"] = {"path": args.trace_out, "steps": len(bmc.counterexample.steps),
                          "events": len(exported.events), "step_lines": exported.step_lines,
                          "probe_line": exported.probe_line, "mismatches": exported.mismatches}
        if not quiet:
            print(f"trace: {args.trace_out}: {entry['invariant']}, a counterexample the model can replay "
                  f"({len(bmc.counterexample.steps)} steps, {len(exported.events)} lines; the last step is "
                  f"line {exported.step_lines[-1]}, the closing Describe line {exported.probe_line}):")
            for k, text in enumerate(bmc.counterexample.text, 1):
                line = exported.step_lines[k - 1] if k <= len(exported.step_lines) else None
                print(f"      {k:>2}. {text}  [line {line}]" if line else f"      => {text}")
            for problem in exported.mismatches:
                print(f"    the mutated model departs from the counterexample: {problem}")
        return str(args.trace_out)
    if not quiet:
        print("trace: no counterexample the executable model can replay; nothing written")
    return None
