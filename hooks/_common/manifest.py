"""The dispatcher's manifest as one model: defaults applied once, ``hooks_root`` resolved once.

    load(source=None, hooks_root=None) -> Manifest   # a path (default: the shipped one) or a dict
    from_data(data, path=None, hooks_root=None) -> Manifest

The dispatcher reads its manifest here on every call, and ``hookmux validate``
loads this same file from the hooks tree (after checking the schema), so what is
validated is what runs and no consumer writes ``row.get("timeout", 8)``.

Reading is lenient, as the dispatcher must be: a row that is not an object or has
no string ``script`` is kept with ``problem`` set (the dispatcher traces and skips
it); a field of the wrong type gets its default. ``ManifestError`` (a
``ValueError``) only when nothing can be used: unreadable, not JSON, not an
object, no ``hooks_root``.

``hooks_root``: ``--hooks-root`` is relative to the cwd, the manifest's value to
the manifest's folder. An absolute value is used as it is; only a relative one
goes through ``~`` and ``$VAR`` expansion, so a ``$`` in an installer-written
absolute path (a HOME named ``a$b``) stays literal.

Layers (docs/install.md, "Manifest layers"): ``with_layers(manifest, cwd)`` merges the
user's manifest (``user_layer_path()``) and the manifest of a project the user layer
trusts over the loaded one; the rules are in ``_common/layers.py``, imported only when
the user layer exists. Without one the cost is one ``stat``; with one, two at most
before anything is read.
"""
import os

from . import event as _event

DEFAULT_TIMEOUT = 8.0
DEFAULT_SIDE_EFFECT = "none"
SHIPPED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_dispatch", "manifest.json")


class ManifestError(ValueError):
    """The manifest cannot be used at all."""


class Manifest:
    """A loaded manifest: the hooks root and, per event, its settings and rows."""

    __slots__ = ("path", "hooks_root", "events", "data", "layers", "problems")

    def __init__(self, path, hooks_root, events, data, layers=(), problems=()):
        #: The manifest file, or None when it was given as a dict.
        self.path = path
        #: Absolute folder the row scripts are relative to.
        self.hooks_root = hooks_root
        #: event name -> EventEntry, in manifest order.
        self.events = events
        #: The JSON as read.
        self.data = data
        #: The layer files merged over it (``with_layers``), in order.
        self.layers = list(layers)
        #: What the merge refused or ignored: ``(severity, message)``, severity ``error``/``warning``.
        self.problems = list(problems)

    def rows(self, event_name):
        entry = self.events.get(event_name)
        return entry.rows if entry is not None else []


class EventEntry:
    __slots__ = ("name", "settings_matcher", "settings_timeout", "rows")

    def __init__(self, name, settings_matcher, settings_timeout, rows):
        self.name = name
        #: The host settings entry's matcher (None: every tool) and timeout (None: the host's default).
        self.settings_matcher = settings_matcher
        self.settings_timeout = settings_timeout
        self.rows = rows


class Row:
    """One check row with every default filled in."""

    __slots__ = ("event", "index", "name", "script", "path", "args", "timeout", "matcher", "isolate",
                 "side_effect", "emits", "slow", "problem", "layer")

    def __init__(self, event, index, raw, root, layer=None):
        raw = raw if isinstance(raw, dict) else {}
        self.event = event
        #: Position in the event's ``checks``: the row's id together with ``name``.
        self.index = index
        self.name = raw.get("name") if isinstance(raw.get("name"), str) else None
        #: ``script`` as written, and its absolute path under the hooks root.
        self.script = raw.get("script") if isinstance(raw.get("script"), str) else None
        self.path = os.path.normpath(os.path.join(root, self.script)) if self.script else None
        args = raw.get("args")
        self.args = [str(arg) for arg in args] if isinstance(args, list) else []
        self.timeout = _positive(raw.get("timeout"), DEFAULT_TIMEOUT)
        #: None: every call; otherwise as written (the dispatcher compiles it, and skips what does not compile).
        self.matcher = raw.get("matcher")
        isolate = raw.get("isolate")
        self.isolate = tuple(name for name in isolate if isinstance(name, str)) if isinstance(isolate, list) else ()
        side_effect = raw.get("side_effect")
        self.side_effect = side_effect if isinstance(side_effect, str) else DEFAULT_SIDE_EFFECT
        self.emits = raw.get("emits", True) is not False
        self.slow = raw.get("slow") is True
        #: Why the row cannot run at all, or None.
        self.problem = None if self.script else "malformed row"
        #: The layer file the row came from; None for the base manifest.
        self.layer = layer

    def label(self):
        """``[index] name``: how the trace names the row."""
        return "[%d] %s" % (self.index, self.name if self.name is not None else "?")

    def ref(self):
        """``events.E.checks[i](name='x')``: how messages name the row."""
        name = "(name=%r)" % self.name if self.name is not None else ""
        return "events.%s.checks[%d]%s" % (self.event, self.index, name)


def load(source=None, hooks_root=None):
    """The manifest at ``source`` (a path; default the shipped one), the dict ``source``, or
    ``source`` itself when it is a loaded Manifest (a resident server keeps one)."""
    if isinstance(source, Manifest):
        return source
    if isinstance(source, dict):
        return from_data(source, None, hooks_root)
    path = os.path.abspath(source or SHIPPED)
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        data = _event.loads(text)
    except (OSError, ValueError, RecursionError) as exc:
        raise ManifestError("%s: cannot read: %s" % (path, type(exc).__name__)) from None
    return from_data(data, path, hooks_root)


def from_data(data, path=None, hooks_root=None):
    """A Manifest from already-parsed JSON; ``path`` (None: the cwd) anchors a relative hooks_root."""
    if not isinstance(data, dict):
        raise ManifestError("the manifest is not a JSON object")
    root = resolve_hooks_root(data, path, hooks_root)
    events = {}
    raw_events = data.get("events")
    for name, raw in (raw_events.items() if isinstance(raw_events, dict) else ()):
        raw = raw if isinstance(raw, dict) else {}
        checks = raw.get("checks")
        rows = [Row(name, index, row, root) for index, row in enumerate(checks)] if isinstance(checks, list) else []
        matcher = raw.get("settings_matcher")
        events[name] = EventEntry(name, matcher if isinstance(matcher, str) else None,
                                  _positive(raw.get("settings_timeout"), None), rows)
    return Manifest(path, root, events, data)


def user_layer_path(environ=None):
    """``$HOOKMUX_CONFIG_DIR/manifest.json``, else ``$XDG_CONFIG_HOME/hookmux/manifest.json``, else
    ``~/.config/hookmux/manifest.json``: one file for every host and either way of installing."""
    environ = os.environ if environ is None else environ
    base = environ.get("HOOKMUX_CONFIG_DIR")
    if not base:
        xdg = environ.get("XDG_CONFIG_HOME")
        base = os.path.join(xdg if xdg and os.path.isabs(xdg) else os.path.join(_home(environ), ".config"), "hookmux")
    return os.path.join(os.path.abspath(os.path.expanduser(base)), "manifest.json")


def with_layers(manifest, cwd=None, environ=None):
    """``manifest`` with the user layer and a trusted project's layer merged over it; ``manifest``
    itself when there is no user layer or ``HOOKMUX_LAYERS=0``. Never raises: a layer that cannot
    be used is left out and named in ``problems``."""
    environ = os.environ if environ is None else environ
    if environ.get("HOOKMUX_LAYERS") == "0":
        return manifest
    path = user_layer_path(environ)
    try:
        os.stat(path)
    except (OSError, ValueError):
        return manifest
    from . import layers

    return layers.merge_over(manifest, path, environ.get("CLAUDE_PROJECT_DIR") or cwd or None)


def _home(environ):
    home = environ.get("HOME")
    return home if home else os.path.expanduser("~")


def resolve_hooks_root(data, path, override=None):
    """The absolute hooks root: ``override`` against the cwd, else the manifest's against its folder."""
    if override is not None:
        return _absolute(str(override), os.getcwd())
    value = data.get("hooks_root")
    if not isinstance(value, str) or not value:
        raise ManifestError("the manifest has no hooks_root")
    return _absolute(value, os.path.dirname(path) if path else os.getcwd())


def _absolute(value, base):
    if not os.path.isabs(value):
        value = os.path.expandvars(os.path.expanduser(value))
    return os.path.normpath(os.path.join(base, value))


def _positive(value, default):
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    return default
