"""Where the reports of ``kgspec check`` and ``kgspec conform`` go, and what happens when they cannot.

- ``--json PATH`` is opened before any checking (:class:`ReportFile`), so a missing directory, a
  directory, an unwritable path or an input of the same command line is a usage error (exit 2)
  before the work, never a traceback after it; a write that fails at the end (a full disk) is
  reported in one line, exit 2, and leaves no partial report behind.
- A closed standard output (``| head``) ends the output, not the outcome: :func:`stdout_closed`
  points standard output at ``/dev/null`` (as Python's documentation on SIGPIPE recommends), so
  the interpreter's final flush cannot fail again, and the command returns its status.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import stat
import sys
from collections.abc import Iterable
from typing import NoReturn

from kgspec.conformance.findings import printable


class UsageError(Exception):
    """A problem with the command line itself: one line on standard error, exit status 2."""


class ReportWriteError(Exception):
    """The report could not be written (a full disk, ...): one line on standard error, exit status 2."""


def error(command: str, message: str) -> None:
    """``kgspec COMMAND: message`` on standard error, one line, anything the input carries escaped."""
    with contextlib.suppress(OSError):
        sys.stderr.write(f"kgspec {command}: {printable(message)}\n")
        sys.stderr.flush()


def one_line_errors(parser: argparse.ArgumentParser) -> None:
    """Make ``parser``'s usage errors one line (``PROG: error: MESSAGE (see PROG --help)``, exit 2)
    instead of the whole usage text before the message."""
    def fail(message: str) -> NoReturn:
        parser.exit(2, f"{parser.prog}: error: {printable(message)} (see {parser.prog} --help)\n")
    parser.error = fail  # type: ignore[method-assign]


def stdout_closed() -> None:
    """Standard output's reader is gone: point the descriptor at ``/dev/null`` so that nothing
    written or flushed later fails again (``BrokenPipeError`` at the interpreter's exit)."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _describe(exc: OSError) -> str:
    return exc.strerror or str(exc)


class ReportFile:
    """The ``--json`` destination (or another report's: ``option`` names it in messages), opened
    (not truncated) before the work and written after it."""

    def __init__(self, path: str, inputs: Iterable[str], option: str = "--json") -> None:
        self.path = path
        if not path:
            raise UsageError(f"{option} needs a path" + (" ('-' for standard output)" if option == "--json" else ""))
        try:
            before = os.stat(path)
        except FileNotFoundError:
            before = None
        except OSError as exc:  # ENOTDIR, ENAMETOOLONG, ELOOP, EACCES on a parent...
            raise UsageError(f"{option} {path}: {_describe(exc)}") from None
        if before is not None:
            if stat.S_ISDIR(before.st_mode):
                raise UsageError(f"{option} {path}: is a directory")
            if stat.S_ISREG(before.st_mode):
                for name in inputs:
                    if name == "-":
                        continue
                    with contextlib.suppress(OSError):
                        other = os.stat(name)
                        if (other.st_dev, other.st_ino) == (before.st_dev, before.st_ino):
                            raise UsageError(f"{option} {path} would overwrite the input {name}; "
                                             "write the report elsewhere")
        else:
            parent = os.path.dirname(path) or "."
            if not os.path.isdir(parent):
                raise UsageError(f"{option} {path}: no such directory {parent}")
        try:
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
        except OSError as exc:
            raise UsageError(f"{option} {path}: cannot write ({_describe(exc)})") from None
        self._created = before is None
        self._regular = stat.S_ISREG(os.fstat(self._fd).st_mode)

    def write(self, text: str) -> None:
        """Replace the file's content with ``text``; ``ReportWriteError`` if that fails."""
        data = text.encode("utf-8")
        try:
            if self._regular:
                os.ftruncate(self._fd, 0)
            view = memoryview(data)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
        except BrokenPipeError:  # a pipe whose reader left: as a closed standard output, not an error
            self._close()
            return
        except OSError as exc:
            self._close()
            if self._regular:  # no half-written report for a reader to take for a whole one
                with contextlib.suppress(OSError):
                    os.unlink(self.path)
            raise ReportWriteError(f"cannot write the report to {self.path}: {_describe(exc)}") from None
        self._close()

    def discard(self) -> None:
        """No report after all (the run failed): remove the file if this run created it."""
        self._close()
        if self._created and self._regular:
            with contextlib.suppress(OSError):
                os.unlink(self.path)

    def _close(self) -> None:
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1
