"""Manifest layers: the user's rows and a trusted project's, merged over the shipped manifest.

    merge_over(base, user_path, project_dir) -> Manifest   # never raises; base is not changed
    merge(base, layers) -> Manifest                        # layers: [(path, data or None)]
    project_layer_path(user_data, project_dir) -> str or None

Order: the base manifest (the shipped one, or an install's), then the user layer
(``manifest.user_layer_path()``), then the project layer (``<project>/.hookmux/manifest.json``).
A layer is written like a manifest; its ``hooks_root`` defaults to the layer's own folder,
so ``"script": "checks/mine.py"`` sits beside the layer file. Rules (docs/install.md):

- A later layer **adds** rows: after the earlier rows of that event; an event no earlier
  layer has comes with the layer's ``settings_matcher``/``settings_timeout``.
- It **turns rows off by name**: ``"disabled": ["name", ...]`` at the top (every event), or a
  row ``{"name": "x", "enabled": false}`` in an event (that event only). A name that turns
  nothing off is a warning. A row of its own with ``"enabled": false`` is simply off.
- It **never replaces** a row: a name already taken in that event (by an earlier layer, or
  earlier in the same layer) is an error, unless the layers turned that row off first
  (``disabled`` + a row of the same name is an explicit replacement); the earlier row stays, the later one is left out.
  ``hookmux validate`` and ``status`` report it; the dispatcher goes on (fails open).
- **Trust**: a project's manifest runs code from the repository, so it is read only when
  the user layer's ``"trusted_projects"`` lists the project folder (or a folder above it).
  The project is ``CLAUDE_PROJECT_DIR`` when the host sets it, else the payload's ``cwd``;
  paths are compared as written (normalised, no symlink resolution: no ``stat`` per part).

Imported only when the user layer exists. Standard library only.
"""
import os

from . import event as _event
from . import manifest as _manifest

PROJECT_LAYER = os.path.join(".hookmux", "manifest.json")


def merge_over(base, user_path, project_dir):
    """``base`` with the user layer at ``user_path`` and, when trusted, ``project_dir``'s layer."""
    user = read(user_path)
    layers = [(user_path, user)]
    project_path = project_layer_path(user, project_dir)
    if project_path is not None:
        try:
            os.stat(project_path)
        except (OSError, ValueError):
            project_path = None
    if project_path is not None:
        layers.append((project_path, read(project_path)))
    return merge(base, layers)


def read(path):
    """The layer's JSON, or an ``Unreadable`` standing for why it cannot be used."""
    try:
        with open(path, encoding="utf-8") as handle:
            return _event.loads(handle.read())
    except (OSError, ValueError, RecursionError) as exc:
        return Unreadable(type(exc).__name__)


class Unreadable:
    __slots__ = ("why",)

    def __init__(self, why):
        self.why = why


def project_layer_path(user_data, project_dir):
    """``<T>/.hookmux/manifest.json`` for the longest trusted folder T holding ``project_dir``; else None."""
    if not isinstance(user_data, dict) or not isinstance(project_dir, str) or not os.path.isabs(project_dir):
        return None
    trusted = user_data.get("trusted_projects")
    if not isinstance(trusted, list):
        return None
    project = os.path.normpath(project_dir)
    best = None
    for entry in trusted:
        if not isinstance(entry, str) or not entry:
            continue
        folder = os.path.normpath(os.path.expanduser(entry))
        if not os.path.isabs(folder):
            continue
        inside = project == folder or project.startswith(folder.rstrip(os.sep) + os.sep)
        if inside and (best is None or len(folder) > len(best)):
            best = folder
    return os.path.join(best, PROJECT_LAYER) if best is not None else None


def merge(base, layers):
    """A new Manifest: ``base``'s events and rows (rows turned off carry the reason as their
    ``problem``) followed by each usable layer's rows; ``problems`` lists what was refused."""
    problems = list(base.problems)
    events = {name: [_clone(row) for row in entry.rows] for name, entry in base.events.items()}
    settings = {name: (entry.settings_matcher, entry.settings_timeout) for name, entry in base.events.items()}
    used = []
    for path, data in layers:
        if isinstance(data, Unreadable):
            problems.append(("error", "%s: cannot read: %s; layer left out" % (path, data.why)))
            continue
        if not isinstance(data, dict):
            problems.append(("error", "%s: the layer is not a JSON object; layer left out" % path))
            continue
        try:
            root = _manifest.resolve_hooks_root(data, path) if "hooks_root" in data else os.path.dirname(path)
        except _manifest.ManifestError:
            root = os.path.dirname(path)
        used.append(path)
        _apply_disabled(path, data.get("disabled"), events, problems)
        raw_events = data.get("events")
        for name, raw in (raw_events.items() if isinstance(raw_events, dict) else ()):
            raw = raw if isinstance(raw, dict) else {}
            if name not in events:
                matcher = raw.get("settings_matcher")
                settings[name] = (matcher if isinstance(matcher, str) else None,
                                  _manifest._positive(raw.get("settings_timeout"), None))
                events[name] = []
            checks = raw.get("checks")
            for index, row in enumerate(checks if isinstance(checks, list) else ()):
                _add_row(path, root, name, index, row, events[name], problems)
    entries = {name: _manifest.EventEntry(name, settings[name][0], settings[name][1], rows)
               for name, rows in events.items()}
    return _manifest.Manifest(base.path, base.hooks_root, entries, base.data, list(base.layers) + used, problems)


def _apply_disabled(path, names, events, problems):
    if names is None:
        return
    if not isinstance(names, list):
        problems.append(("error", "%s: disabled: not a list of row names; ignored" % path))
        return
    for name in names:
        if not isinstance(name, str) or not _turn_off(path, name, [row for rows in events.values() for row in rows]):
            problems.append(("warning", "%s: disabled: %r names no earlier row" % (path, name)))


def _add_row(path, root, event, index, raw, rows, problems):
    ref = "%s: events.%s.checks[%d]" % (path, event, index)
    name = raw.get("name") if isinstance(raw, dict) else None
    if isinstance(name, str):
        ref += "(name=%r)" % name
        if raw.get("enabled") is False and "script" not in raw:
            if not _turn_off(path, name, rows):
                problems.append(("warning", "%s: enabled: false names no earlier row of %s" % (ref, event)))
            return
        taken = [row for row in rows if row.name == name and not (row.problem or "").startswith("turned off")]
        if taken:
            where = taken[0].layer or "the shipped manifest"
            problems.append(("error", "%s: the name is taken by a row of %s in %s; a layer adds rows and may turn "
                                      "one off (\"enabled\": false), never replaces one: kept the earlier row, "
                                      "left this one out" % (ref, event, where)))
            return
    row = _manifest.Row(event, len(rows), raw, root, path)
    if isinstance(raw, dict) and raw.get("enabled") is False:
        row.problem = "enabled: false"
    rows.append(row)


def _turn_off(path, name, rows):
    found = False
    for row in rows:
        if row.name == name and row.problem is None:
            row.problem = "turned off by %s" % path
            found = True
        elif row.name == name:
            found = True
    return found


def _clone(row):
    copy = _manifest.Row.__new__(_manifest.Row)
    for slot in _manifest.Row.__slots__:
        setattr(copy, slot, getattr(row, slot))
    return copy
