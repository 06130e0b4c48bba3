"""Where the reports of ``kgspec check`` and ``kgspec conform`` go, and what happens when they cannot.

- ``--json PATH`` is opened before any checking (:class:`ReportFile`), so a missing directory, a
  directory, an unwritable path or an input of the same command line is a usage error (exit 2)
  before the work, never a traceback after it; a write that fails at the end (a full disk) is
  reported in one line, exit 2, and leaves no partial report behind: a regular file is written
  to a temporary file beside it and renamed over it at the end (a crash cannot leave half a
  report either), and the ``--json`` report is written in pieces (``report_json.py``).
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
import tempfile
import weakref
from collections.abc import Iterable
from typing import Final, NoReturn

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
    """The ``--json`` destination (or another report's: ``option`` names it in messages), checked
    before the work and written after it.

    A regular file (or a path that does not exist yet) is written atomically: into a temporary
    file next to it, created before the work (so an unwritable directory is a usage error then),
    renamed over the destination once the whole report is written. A run that fails or is killed
    leaves the destination as it was (a previous report stays whole), never a half report. A
    destination that is not a regular file (a pipe, ``/dev/stdout``, a device) is opened before
    the work and written in place.
    """

    def __init__(self, path: str, inputs: Iterable[str], option: str = "--json") -> None:
        self.path = path
        self.option = option
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
        self._regular = before is None or stat.S_ISREG(before.st_mode)
        self._temp: str | None = None
        self._pending = bytearray()
        try:
            if self._regular:
                # Through a symbolic link, the file it names is replaced (as writing through it did).
                self._target = os.path.realpath(path)
                self._fd, self._temp = _temporary(self._target, None if before is None else before.st_mode)
                # A report file dropped unwritten (a usage error found after it, an exception)
                # takes its temporary file with it.
                self._forget = weakref.finalize(self, _remove, self._temp)
            else:
                self._target = path
                self._fd = os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            raise UsageError(f"{option} {path}: cannot write ({_describe(exc)})") from None

    def write(self, text: str) -> None:
        """The whole report is ``text``; ``ReportWriteError`` if writing it fails."""
        self.write_chunks([text])

    def write_chunks(self, chunks: Iterable[str]) -> None:
        """The whole report is the concatenation of ``chunks``, written as they come (at most
        1 MiB held at a time); ``ReportWriteError`` if writing fails, and nothing is left behind."""
        try:
            for chunk in chunks:
                self._pending += chunk.encode("utf-8")
                if len(self._pending) >= _FLUSH_BYTES:
                    self._flush()
            self._flush()
            if self._temp is not None:
                os.close(self._fd)
                self._fd = -1
                os.replace(self._temp, self._target)
                self._temp = None
                self._forget.detach()
        except BrokenPipeError:  # a pipe whose reader left: as a closed standard output, not an error
            self._close()
            return
        except OSError as exc:
            self.discard()
            raise ReportWriteError(f"cannot write the report to {self.path}: {_describe(exc)}") from None
        except BaseException:  # a bug while producing the chunks, or an interrupt: no half report
            self.discard()
            raise
        self._close()

    def _flush(self) -> None:
        view = memoryview(bytes(self._pending))
        self._pending.clear()
        while view:
            written = os.write(self._fd, view)
            view = view[written:]

    def discard(self) -> None:
        """No report after all (the run failed): the destination stays as it was."""
        self._close()
        self._pending.clear()
        if self._temp is not None:
            self._forget()
            self._temp = None

    def _close(self) -> None:
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1


_FLUSH_BYTES: Final = 1 << 20


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _temporary(target: str, mode: int | None) -> tuple[int, str]:
    """A new file next to ``target`` (same directory, so the rename is atomic), hidden, with the
    permissions ``target`` has, or a new file's (``0o666`` less the umask)."""
    fd, temp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".kgspec-tmp",
                                dir=os.path.dirname(target) or ".")
    try:
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.fchmod(fd, stat.S_IMODE(mode))
    except OSError:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return fd, temp
