"""The hooks tree's shared runtime for the gate: ``hosts`` (host facts) and ``event`` (payloads, output).

The gate runs as its own script, so the hooks tree (this folder's parent) is put on
``sys.path`` here, once, for ``_common``.
"""
import os
import sys

_HOOKS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _HOOKS not in sys.path:
    sys.path.append(_HOOKS)

from _common import event, hosts  # noqa: E402

__all__ = ["event", "hosts"]
