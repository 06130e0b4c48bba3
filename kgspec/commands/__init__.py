"""One module per ``kgspec`` subcommand; see ``kgspec.cli``."""

from __future__ import annotations


def model_choice_problem(mutants: list[str], protocol: str, profile: str) -> str | None:
    """Why ``--mutant``, ``--protocol`` and ``--profile`` of ``kgspec fuzz`` and ``kgspec simulate``
    do not go together: an unknown mutant or profile, or a mutant of the other protocol (None: they do)."""
    from kgspec.model.mutants import CATALOGUE
    from kgspec.model.profiles import PROFILES

    unknown = [m for m in mutants if m not in CATALOGUE]
    if unknown:
        return f"unknown mutant(s) {', '.join(unknown)}; known: {', '.join(sorted(CATALOGUE))}"
    wrong = [m for m in mutants if CATALOGUE[m].protocol not in (protocol, "any")]
    if wrong:
        return (f"mutant(s) {', '.join(wrong)} do not apply to {protocol} groups "
                f"(use --protocol {CATALOGUE[wrong[0]].protocol})")
    if profile not in PROFILES:
        return f"unknown profile {profile!r}; known: {', '.join(sorted(PROFILES))}"
    return None
