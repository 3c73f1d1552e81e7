"""hookmux's plugin for opencode and its extension for Pi (``hookmux install --opencode`` / ``--pi``).

    plugin_file(host, environ=None) -> Path        # where the host loads it from
    render(host, python, target, created=()) -> bytes
    install(host, python, target) -> (Path, changed)
    uninstall(host) -> Path or None                 # the file taken out, None when there was none
    status(host, environ=None) -> dict

Neither host runs command hooks: each loads JavaScript. The file hookmux writes is one
self-contained module (no npm package, no import but ``node:child_process``) that hands each
tool call to the installed hooks as a subprocess, with a payload in the host's own words
(``hosts.EVENTS``: the plugin event as ``hook_event_name``), and maps their answer (Claude Code's
``hookSpecificOutput``): a deny blocks the call with the gate's reason, advice is added to the
tool's output after the call. Where the hosts load them from (measured, docs/e2e.md):

- opencode 1.18.33: every ``*.js``/``*.ts`` in ``$XDG_CONFIG_HOME/opencode/plugin/`` (else
  ``~/.config/opencode/plugin/``) is a plugin, no config entry needed; each exported function is one;
- Pi 1.6.0: every ``*.js``/``*.ts`` in ``$PI_CODING_AGENT_DIR/extensions/`` (else
  ``~/.pi/agent/extensions/``); the default export is the extension.

The file's first line marks it as hookmux's; a file of that name without it is the user's, and
install refuses to replace it. The file also lists the folders install made for it, so that
uninstall takes those out again (when they are empty) and leaves the host's folder as it was.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from hookmux import resources, wiring
from hookmux.errors import InstallError
from hookmux.installer import atomic
from hookmux.installer.entries import DEFAULT_TIMEOUT, GATE_TIMEOUT

_hosts = resources.runtime("hosts")

HOSTS = (_hosts.OPENCODE, _hosts.PI)
NAME = "hookmux.js"
MARKER = "// hookmux plugin for {host}: written by `hookmux install --{host}`; `hookmux uninstall --{host}` removes it."
CREATED = "// hookmux created: "
_SOURCES = Path(__file__).with_name("host_plugins")
_PARTS = {_hosts.OPENCODE: "opencode.js", _hosts.PI: "pi.js"}


def host_dir(host: str, environ=None) -> Path:
    """The folder the host keeps its user configuration in."""
    environ = os.environ if environ is None else environ
    home = environ.get("HOME") or os.path.expanduser("~")
    if host == _hosts.OPENCODE:
        config = environ.get("XDG_CONFIG_HOME")
        return Path(config if config and os.path.isabs(config) else os.path.join(home, ".config")) / "opencode"
    if host == _hosts.PI:
        agent = environ.get("PI_CODING_AGENT_DIR")
        return Path(agent) if agent and os.path.isabs(agent) else Path(home) / ".pi" / "agent"
    raise ValueError(f"not a plugin host: {host}")


def plugin_file(host: str, environ=None) -> Path:
    """``<opencode config>/plugin/hookmux.js`` or ``<pi agent dir>/extensions/hookmux.js``."""
    return host_dir(host, environ) / ("plugin" if host == _hosts.OPENCODE else "extensions") / NAME


def render(host: str, python: str, target: os.PathLike | str, created: tuple[str, ...] = ()) -> bytes:
    """The plugin's text: the marker, the folders install made, the shared runner, the settings
    (interpreter, scripts, timeouts) and the host's part."""
    config = {
        "host": host,
        "python": str(python),
        "python_flags": list(wiring.PYTHON_FLAGS),
        "gate": str(Path(target).joinpath(*wiring.DANGER_SCRIPT)),
        "dispatch": str(Path(target).joinpath(*wiring.DISPATCH_SCRIPT)),
        "gate_timeout_ms": int(GATE_TIMEOUT * 1000),
        "dispatch_timeout_ms": int(DEFAULT_TIMEOUT * 1000),
    }
    lines = [MARKER.format(host=host)] + [CREATED + json.dumps(folder) for folder in created]
    text = "\n".join(lines) + "\n"
    text += (_SOURCES / "hookmux_hooks.js").read_text(encoding="utf-8")
    text += "\nconst HOOKMUX = " + json.dumps(config, indent=2) + ";\n\n"
    text += (_SOURCES / _PARTS[host]).read_text(encoding="utf-8")
    return text.encode("utf-8")


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise InstallError(f"{path}: cannot read it: {exc}") from exc


def is_ours(text: str | None, host: str) -> bool:
    return text is not None and text.split("\n", 1)[0] == MARKER.format(host=host)


def created_folders(text: str) -> tuple[str, ...]:
    """The folders the install that wrote ``text`` made (outermost first)."""
    found = []
    for line in text.splitlines()[1:]:
        if not line.startswith(CREATED):
            break
        try:
            folder = json.loads(line[len(CREATED):])
        except ValueError:
            continue
        if isinstance(folder, str) and os.path.isabs(folder):
            found.append(folder)
    return tuple(found)


def _missing_parents(folder: Path) -> list[Path]:
    missing = []
    while not folder.exists():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    return list(reversed(missing))


def plan(host: str, python: str, target: os.PathLike | str, environ=None) -> tuple[Path, bytes, bool]:
    """(the file, its new bytes, whether they differ from what is there). ``InstallError``
    naming the file when a file of that name is not hookmux's."""
    path = plugin_file(host, environ)
    old = _read(path)
    if old is not None and not is_ours(old, host):
        raise InstallError(f"{path}: a file of this name is there and is not hookmux's; move it away, "
                           f"then run the install again")
    created = created_folders(old) if old is not None else tuple(str(p) for p in _missing_parents(path.parent))
    new = render(host, python, target, created)
    return path, new, old is None or old.encode("utf-8") != new


def install(host: str, python: str, target: os.PathLike | str, environ=None) -> tuple[Path, bool]:
    """Write the plugin (atomically, the folders it needs made); (its path, whether it changed)."""
    path, new, changed = plan(host, python, target, environ)
    if changed:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_atomic(path, new, mode=0o644)
    return path, changed


def runs_from(host: str, target: os.PathLike | str, environ=None) -> bool:
    """Whether hookmux's plugin for ``host`` runs the hooks tree ``target`` (so that a plain
    ``hookmux uninstall`` of that tree takes the plugin out too)."""
    try:
        text = _read(plugin_file(host, environ))
    except InstallError:
        return False
    if not is_ours(text, host):
        return False
    gate = _config(text).get("gate")
    return isinstance(gate, str) and gate == str(Path(target).joinpath(*wiring.DANGER_SCRIPT))


def uninstall(host: str, environ=None, dry_run: bool = False) -> Path | None:
    """Take hookmux's plugin out, and the folders its install made when they are empty again."""
    path = plugin_file(host, environ)
    old = _read(path)
    if not is_ours(old, host):
        return None
    if dry_run:
        return path
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise InstallError(f"{path}: cannot remove it: {exc}") from exc
    for folder in reversed(created_folders(old)):
        try:
            os.rmdir(folder)
        except OSError:
            break  # not empty (the user's or the host's files), or gone: it and its parents stay
    return path


def status(host: str, environ=None) -> dict:
    """Whether hookmux's plugin is where the host loads it, and whether what it runs is there."""
    path = plugin_file(host, environ)
    try:
        text = _read(path)
    except InstallError as exc:
        return {"host": host, "file": str(path), "installed": False, "problems": [str(exc)]}
    if text is None:
        return {"host": host, "file": str(path), "installed": False, "problems": []}
    if not is_ours(text, host):
        return {"host": host, "file": str(path), "installed": False,
                "problems": [f"{path} is not hookmux's plugin (a file of the user's of the same name)"]}
    problems = []
    config = _config(text)
    for key, what in (("python", "interpreter"), ("gate", "danger gate"), ("dispatch", "dispatcher")):
        value = config.get(key)
        if not isinstance(value, str) or not os.path.exists(value):
            problems.append(f"{path}: the {what} it runs ({value}) is gone: {host} runs no hookmux hook "
                            f"(every call runs); run `hookmux install --{host}` again")
    return {"host": host, "file": str(path), "installed": True, "python": config.get("python"),
            "gate": config.get("gate"), "dispatch": config.get("dispatch"), "problems": problems}


def _config(text: str) -> dict:
    start = text.find("\nconst HOOKMUX = ")
    end = text.find("\n};\n", start)
    if start < 0 or end < 0:
        return {}
    try:
        data = json.loads(text[start + len("\nconst HOOKMUX = "):end + 2])
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def render_status(report: dict) -> str:
    lines = []
    for item in report.get("host_plugins", []):
        state = "installed" if item["installed"] else "not installed"
        lines.append(f"{item['host']} plugin: {state} ({item['file']})")
    return "\n".join(lines) + "\n" if lines else ""
