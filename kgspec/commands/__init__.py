"""One module per ``kgspec`` subcommand; see ``kgspec.cli``."""
