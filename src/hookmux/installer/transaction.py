"""One install, uninstall or adopt at a time, and all of it or nothing: the lock, and the
rollback around a journal that the installer and adopt both write through."""
from __future__ import annotations

import contextlib
from typing import Callable, TextIO

from hookmux.errors import InstallError
from hookmux.installer import record as records
from hookmux.installer.journal import Journal
from hookmux.installer.jsonfile import JsonFileError

LOCK_TIMEOUT = 120


@contextlib.contextmanager
def lock():
    """One install/uninstall at a time for this user (HOOKMUX_STATE_DIR or the XDG state dir)."""
    from filelock import FileLock, Timeout

    folder = records.state_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        held = FileLock(str(folder / "install.lock"), timeout=LOCK_TIMEOUT)
        held.acquire()
    except Timeout:
        raise InstallError(f"{folder / 'install.lock'}: another hookmux install/uninstall holds it") from None
    except OSError as exc:
        raise InstallError(f"{folder}: cannot create the install lock ({exc.strerror})") from None
    try:
        yield
    finally:
        held.release()


def describe_error(exc: BaseException) -> str:
    """An unexpected failure in one line; an OSError as ``FILE: reason``."""
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}"


def run(action: Callable[[Journal], None], err: TextIO,
        describe: Callable[[BaseException], str] = describe_error) -> int:
    """``action(journal)``, every change it made rolled back on any failure: 0, or 1 with the
    reason on ``err`` (an expected error's own message, else ``describe(exc)``). A
    KeyboardInterrupt or SystemExit is rolled back too, then raised again."""
    journal = Journal()
    try:
        action(journal)
    except BaseException as exc:
        failures = journal.rollback()
        message = str(exc) if isinstance(exc, (InstallError, JsonFileError)) else describe(exc)
        err.write(f"hookmux: {message}\nhookmux: nothing was changed\n" if not failures else
                  f"hookmux: {message}\nhookmux: rollback incomplete:\n  " + "\n  ".join(failures) + "\n")
        if not isinstance(exc, Exception):
            raise
        return 1
    return 0
