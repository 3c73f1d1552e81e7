"""Helpers shared by hookmux checks (standard library only).

- ``state_dir()``: where hooks and the installer keep state (``HOOKMUX_STATE_DIR``
  with ``~`` expanded, else an absolute ``$XDG_STATE_HOME/hookmux``, else
  ``~/.local/state/hookmux``); the one definition, the CLI uses it too.
- ``atomic_write_text(path, text)`` / ``atomic_write_json(path, obj)``: readers see
  the old file or the new one, never a torn one.
- ``file_lock(path, timeout)``: an exclusive inter-process lock for a with-block.
- ``mark_seen(namespace, session_id, ids, ttl)``: the per-session seen-map.
- ``redact_text(text, max_chars)``: strip tokens, passwords and home paths.

``shell`` (the shell reader: ``read(command) -> [Command]``) and ``shell_rules`` (structured
rows and their evaluation) load the same way, by name (``_common.shell``), only when a shell
tool's call is checked.

The runtime core is three submodules, imported as such
(``from _common import event``): ``hosts`` (host facts as data), ``event``
(``parse()`` -> ``Event``, ``render_context``, ``render_deny``) and ``manifest``
(the dispatcher's manifest with defaults applied). The CLI loads these same files
through ``hookmux.resources.runtime(name)``.

Each name above is loaded from its module (``state.py``, ``redact.py``) on first use, so
importing this package costs nearly nothing. The modules are loaded by file path,
not through ``sys.modules``: a check running in the dispatcher's worker thread can
use them after the dispatcher has restored ``sys.path`` and evicted ``_common``.
"""
import os as _os

_EXPORTS = {
    "state_dir": "state",
    "atomic_write_text": "state",
    "atomic_write_json": "state",
    "read_json": "state",
    "file_lock": "state",
    "LockTimeout": "state",
    "mark_seen": "state",
    "session_file": "state",
    "redact_text": "redact",
}
_MODULES = {}
__all__ = sorted(_EXPORTS)


def _module(name):
    module = _MODULES.get(name)
    if module is None:
        # The interpreter's own import machinery, already loaded: importlib.util
        # costs ~1 ms to import and the importlib package ~0.2 ms.
        try:
            from _frozen_importlib import module_from_spec
            from _frozen_importlib_external import spec_from_file_location
        except ImportError:  # not CPython
            from importlib._bootstrap import module_from_spec
            from importlib._bootstrap_external import spec_from_file_location

        path = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), name + ".py")
        spec = spec_from_file_location(__name__ + "." + name, path)
        module = module_from_spec(spec)
        spec.loader.exec_module(module)
        module = _MODULES.setdefault(name, module)
    return module


def __getattr__(name):
    if name in ("state", "redact", "shell", "shell_rules"):
        return _module(name)
    owner = _EXPORTS.get(name)
    if owner is None:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    return getattr(_module(owner), name)


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS) | {"state", "redact", "shell", "shell_rules"})
