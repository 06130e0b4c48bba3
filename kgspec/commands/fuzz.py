"""``kgspec fuzz``: Hypothesis stateful fuzzing of whole consumer or streams groups."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kgspec.commands import model_choice_problem, progress
from kgspec.commands.assignor_option import add_assignor_option
from kgspec.model.mutants import CATALOGUE

HYPOTHESIS_PROFILES = ("ci", "nightly", "dev")


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "fuzz",
        help="fuzz whole groups (clients, lossy network, failover) against every invariant",
        description="Run the Hypothesis rule-based machine over simulated consumer or streams groups, checking "
                    "every invariant after every step. Exit 0 if none broke, 1 if one did (the shrunk "
                    "run is written as a trace), 2 on a usage error.",
    )
    parser.add_argument("--seed", type=int, default=0, metavar="N", help="random seed (default 0)")
    parser.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                        help="keep fuzzing new batches until SECONDS have passed, in all (batches of at most 30 "
                             "examples, so the last one ends soon after; shrinking a failure may take longer); "
                             "default: one batch")
    parser.add_argument("--profile", default="kafka-4.3", help="behaviour profile (default kafka-4.3)")
    parser.add_argument("--protocol", default="consumer", choices=("consumer", "streams"),
                        help="group protocol (default consumer)")
    parser.add_argument("--mutant", action="append", default=[], metavar="NAME",
                        help=f"switch on a seeded bug (repeatable): {', '.join(sorted(CATALOGUE))}")
    parser.add_argument("--out", type=Path, default=None, metavar="PATH",
                        help="where to write the shrunk failing run (default kgspec-fuzz-SEED.jsonl)")
    parser.add_argument("--hypothesis-profile", choices=HYPOTHESIS_PROFILES, default=None,
                        help="Hypothesis settings profile (default: $HYPOTHESIS_PROFILE, else ci)")
    parser.add_argument("--no-shrink", action="store_true", help="stop at the first failure, unshrunk")
    parser.add_argument("--commits", action="store_true",
                        help="consumer clients commit offsets as the Java consumer does and may resend old commits "
                             "(zombies); on by itself for a mutant only commits reach (commit-accepts-stale-epoch)")
    parser.add_argument("--observable", action="store_true",
                        help="check only the invariants a trace can show (skip internal-only ones such as "
                             "partition-epoch-index); by default a run broken only by those is followed by "
                             "a second search without them, and that run is written")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (with --budget, one is drawn on standard error when it is a terminal)")
    add_assignor_option(parser, "fuzz that assignor alone against --guarantee instead of whole groups")
    parser.add_argument("--guarantee", default=None, metavar="NAME",
                        help="with --assignor: valid, uniform, range (consumer), tasks-valid, sticky (streams); "
                             "default valid, or tasks-valid for a task assignor")
    parser.add_argument("--examples", type=int, default=500, metavar="N",
                        help="with --assignor: inputs to try (default 500; derandomized, --seed is not used)")
    parser.set_defaults(run=run)


def _usage(message: str) -> int:
    print(f"kgspec fuzz: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from kgspec.model.mutants import Mutants

    if args.assignor:
        return run_assignor_fuzz(args)
    if args.guarantee is not None:
        return _usage("--guarantee needs --assignor")

    problem = model_choice_problem(args.mutant, args.protocol, args.profile)
    if problem is not None:
        return _usage(problem)
    if args.budget is not None and args.budget <= 0:
        return _usage("--budget must be positive")
    try:
        from kgspec.sim.machine import run_fuzz
    except ModuleNotFoundError as exc:
        return _usage(f"{exc.name} is not installed; install kgspec[fuzz]")
    out = args.out or Path(f"kgspec-fuzz-{args.seed}.jsonl")
    fuzz = functools.partial(run_fuzz, Mutants(tuple(args.mutant)), seed=args.seed, budget_s=args.budget,
                             hypothesis_profile=args.hypothesis_profile, profile=args.profile, out=str(out),
                             shrink=not args.no_shrink, protocol=args.protocol,
                             observable=True if args.observable else None, commits=True if args.commits else None)
    show = not args.no_progress and progress.wanted() and args.budget is not None
    result = _with_progress(fuzz, args.budget) if show else fuzz()
    mutated = f" with mutant(s) {', '.join(args.mutant)}" if args.mutant else ""
    if result.failure is None:
        print(f"no invariant broke{mutated}: {result.batches} batch(es) in {result.elapsed_s:.1f} s")
        return 0
    shrunk = "shrunk to" if not args.no_shrink else "unshrunk,"
    failure = result.failure
    print(f"invariant broken{mutated} after {result.elapsed_s:.1f} s; {shrunk} {failure.steps} steps:")
    _show(failure)
    if not failure.observable:
        if result.observable is None:
            print("only internal-only invariants broke (no response or describe shows them), and no run "
                  f"breaking an observable one was found in {result.observable_batches} batch(es): "
                  "`kgspec check` will not flag the trace")
        else:
            print(f"only internal-only invariants broke; searching without them, an observable one broke "
                  f"after {result.observable_s:.1f} s ({shrunk} {result.observable.steps} steps), the run written:")
            _show(result.observable)
    print(f"trace: {result.trace_path}")
    return 1


def _show(failure: Any) -> None:
    for step in failure.program:
        print(f"  {step}")
    for violation in failure.violations[:5]:
        print(f"  {violation}")


def _with_progress(fuzz: Callable[..., Any], budget: float) -> Any:
    """``fuzz(progress=...)`` under a progress bar over the ``budget`` seconds (one budget for the
    whole run: the search without internal-only invariants, if any, shares it)."""
    with progress.bar("fuzzing", budget, progress.SECONDS, show=True, extra="0 batches") as meter:

        def moved(elapsed: float, batches: int) -> None:
            meter.update(min(elapsed, budget), extra=f"{batches} batches")

        return fuzz(progress=moved)


def run_assignor_fuzz(args: argparse.Namespace) -> int:
    """``kgspec fuzz --assignor X``: exit 0 if no guarantee broke, 1 with the shrunk input, 2 usage."""
    if len(args.assignor) != 1:
        return _usage("give one --assignor to fuzz")
    if args.examples < 1:
        return _usage("--examples must be at least 1")
    try:
        from kgspec.properties import GUARANTEES, TASK_GUARANTEES, counterexample
    except ModuleNotFoundError as exc:
        return _usage(f"{exc.name} is not installed; install kgspec[fuzz]")
    from kgspec.plugins import AssignorLoadError, is_consumer_assignor, load_assignor

    try:
        assignor = load_assignor(args.assignor[0])
    except AssignorLoadError as exc:
        return _usage(str(exc))
    guarantee = args.guarantee or ("valid" if is_consumer_assignor(assignor) else "tasks-valid")
    if guarantee not in GUARANTEES:
        return _usage(f"unknown guarantee {guarantee!r}; known: {', '.join(GUARANTEES)}")
    method = "assign_tasks" if guarantee in TASK_GUARANTEES else "assign"
    if not callable(getattr(assignor, method, None)):
        return _usage(f"--assignor {args.assignor[0]} has no {method}(): guarantee {guarantee!r} does not apply")
    found = counterexample(assignor, guarantee, max_examples=args.examples)
    name = getattr(assignor, "name", args.assignor[0])
    if found is None:
        print(f"assignor {name!r} kept guarantee {guarantee!r} on {args.examples} generated inputs")
        return 0
    print(f"assignor {name!r}: {found.describe()}")
    return 1
