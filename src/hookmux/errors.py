"""The one root of hookmux's expected errors.

Raise a ``HookmuxError`` (or a subclass) for anything a user can cause and fix: a
missing file, a malformed settings file, a refused install. ``hookmux.cli.main``
prints it as ``hookmux: <message>`` and exits 1. Any other exception is a bug:
the CLI prints ``hookmux: internal error: <type>: <message>`` and exits
``INTERNAL_ERROR``, never a traceback (``HOOKMUX_DEBUG=1`` shows it).
"""
from __future__ import annotations

EXPECTED_ERROR = 1
INTERNAL_ERROR = 3


class HookmuxError(Exception):
    """An error the user can act on; its message is the whole story."""


class InstallError(HookmuxError):
    """An install, uninstall or adopt hookmux refuses before or while changing anything."""
