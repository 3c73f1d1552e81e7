"""Every host file that wires hookmux, the hooks in it, and the hooks a host would run twice.

Where each host reads hooks (docs/install.md, /work/shared/host-contract.md):

- Claude Code: ``~/.claude/settings.json``, ``~/.claude/settings.local.json``, and the project's
  ``.claude/settings.json`` / ``.claude/settings.local.json``;
- Copilot CLI: ``~/.copilot/hooks/*.json``, the repository's ``.github/hooks/*.json``, and the
  repository's Claude-format ``.claude/settings.json`` (so that file is loaded by two hosts);
- Codex CLI: ``$CODEX_HOME/hooks.json`` (``~/.codex``) and the project's ``.codex/hooks.json``;
- Gemini CLI: ``$GEMINI_CLI_HOME/.gemini/settings.json`` (``~/.gemini``), the project's
  ``.gemini/settings.json`` (Gemini reads it in a trusted folder only), and the hookmux extension's
  ``hooks/hooks.json`` where Gemini runs it from (``installer.gemini_extension``), with
  ``${extensionPath}`` put in as Gemini puts it in, and only Gemini's events of that shared file;
- the hookmux plugin's ``hooks/hooks.json``, where each host that has it on runs it from
  (``doctor.plugins``): ``plugin_files()``. Its commands name ``${CLAUDE_PLUGIN_ROOT}`` and a
  ``python3`` on PATH; they are recognised with that root and that python put in.

Files given on the command line (``--settings``, ``--copilot-hooks-dir``, ``--codex-home``,
``--gemini-home``) and
the files an install record says it wired are looked at too. One file reached twice (a
symlink, ``~/x`` and ``/home/u/x``) is looked at once.
"""
from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from hookmux import resources
from hookmux.doctor import plugins as plugin_roots
from hookmux.installer import commands, gemini_extension, gemini_hooks, jsonfile, merge
from hookmux.installer.jsonfile import JsonFileError
from hookmux.wiring import split_prefilter

_hosts = resources.runtime("hosts")
CLAUDE, COPILOT, CODEX, GEMINI, CURSOR = _hosts.CLAUDE, _hosts.COPILOT, _hosts.CODEX, _hosts.GEMINI, _hosts.CURSOR
QWEN = _hosts.QWEN
PLUGIN = "plugin"
DIALECTS = {CLAUDE: merge.CLAUDE, COPILOT: merge.COPILOT, CODEX: merge.CLAUDE, PLUGIN: merge.CLAUDE,
            GEMINI: merge.CLAUDE, CURSOR: merge.CURSOR, QWEN: merge.CLAUDE}


@dataclass
class Hook:
    """One hookmux entry of one wired file."""

    file: str
    format: str  # claude | copilot | codex | gemini | plugin: how the file is written, and so its payloads
    event: str  # as written (Copilot: camelCase)
    canonical: str  # the dispatcher's name for it
    matcher: str | None
    command: str
    timeout: float | None
    parsed: commands.HookmuxCommand
    #: the plugin's hooks: host -> where that host runs them from (shared by the file's hooks)
    plugin: dict = field(default_factory=dict)
    #: the Gemini extension's hooks: the extension (``gemini_extension.GeminiExtension``)
    extension: object = None

    @property
    def role(self) -> str:
        return self.parsed.role

    @property
    def target(self) -> str:
        return os.path.realpath(self.parsed.target) if self.parsed.target else ""

    @property
    def http(self) -> bool:
        return self.command.startswith("http")

    def label(self) -> str:
        return f"{self.file}: {self.event} {self.role}"


@dataclass
class Wiring:
    """One host file: who loads it and the hookmux entries in it."""

    file: str
    format: str
    loaded_by: tuple[str, ...]
    exists: bool = False
    error: str | None = None
    hooks: list[Hook] = field(default_factory=list)
    #: (event, command) of entries that name a hookmux script in a form hookmux does not run
    unrecognised: list[tuple[str, str]] = field(default_factory=list)
    plugin: dict = field(default_factory=dict)  # host -> plugins.PluginRoot, for the plugin's file
    extension: object = None  # gemini_extension.GeminiExtension, for the extension's file


@dataclass(frozen=True)
class Places:
    home: Path
    project: Path
    settings: tuple[Path, ...] = ()
    copilot_dirs: tuple[Path, ...] = ()
    codex_homes: tuple[Path, ...] = ()
    gemini_homes: tuple[Path, ...] = ()


def plugin_files(places: Places, found: list | None = None) -> list[tuple[Path, tuple[str, ...]]]:
    """The hookmux plugin's ``hooks/hooks.json`` each host that has it on loads, with those hosts
    (``found``: ``plugins.roots()`` already asked)."""
    if found is None:
        found = plugin_roots.roots(places.home, places.project, places.codex_homes)
    out: dict[str, tuple[Path, tuple[str, ...]]] = {}
    for item in found:
        if item.hooks_file and os.path.isfile(item.hooks_file):
            real = os.path.realpath(item.hooks_file)
            path, hosts = out.get(real, (Path(item.hooks_file), ()))
            out[real] = (path, tuple(dict.fromkeys(hosts + (item.host,))))
    return list(out.values())


PYTHON_ON_PATH = "/python3-not-on-PATH"


def plugin_resolver(root: str):
    """The plugin command as its host runs it, for recognising it: the root put in, and
    ``python3`` the one on PATH (a stand-in path that is gone when there is none)."""
    python = shutil.which(plugin_roots.plugin.PYTHON) or PYTHON_ON_PATH

    def resolve(command):
        if not isinstance(command, str):
            return command
        head, text = split_prefilter(command.replace(plugin_roots.ROOT_VARIABLE, root))  # issue 42's filter stays
        prefix = plugin_roots.plugin.PYTHON + " "
        return head + (python + " " + text[len(prefix):] if text.startswith(prefix) else text)
    return resolve


def candidates(places: Places) -> list[tuple[Path, str, tuple[str, ...]]]:
    """(file, format, hosts that load it) of every place a host reads hooks from."""
    home, project = places.home, places.project
    out: list[tuple[Path, str, tuple[str, ...]]] = [
        (home / ".claude" / "settings.json", CLAUDE, (CLAUDE,)),
        (home / ".claude" / "settings.local.json", CLAUDE, (CLAUDE,)),
        (project / ".claude" / "settings.json", CLAUDE, (CLAUDE, COPILOT)),
        (project / ".claude" / "settings.local.json", CLAUDE, (CLAUDE,)),
    ]
    out += [(Path(path), CLAUDE, (CLAUDE,)) for path in places.settings]
    for folder in (home / ".copilot" / "hooks", project / ".github" / "hooks", *places.copilot_dirs):
        try:
            names = sorted(name for name in os.listdir(folder) if name.endswith(".json"))
        except OSError:
            names = []
        out += [(Path(folder) / name, COPILOT, (COPILOT,)) for name in names]
    codex_home = Path(os.environ.get("CODEX_HOME") or home / ".codex")
    for folder in (codex_home, project / ".codex", *places.codex_homes):
        out.append((Path(folder) / "hooks.json", CODEX, (CODEX,)))
    for folder in (gemini_extension.gemini_dir(home), project / ".gemini", *places.gemini_homes):
        out.append((gemini_hooks.settings_file(folder), GEMINI, (GEMINI,)))
    out += [(folder / ".cursor" / "hooks.json", CURSOR, (CURSOR,)) for folder in (home, project)]
    out += [(folder / ".qwen" / "settings.json", QWEN, (QWEN,)) for folder in (home, project)]
    return out


def extension_resolver(root: str, project: str):
    """(hydrate, resolve) for the Gemini extension's commands: ``hydrate`` puts in what Gemini puts
    in before it runs one (``${extensionPath}``, ``${workspacePath}``, ``${/}``, ``${pathSeparator}``;
    another ``${name}`` stays as written); ``resolve`` also puts the ``python3`` on PATH in, for
    recognising the command (as ``plugin_resolver`` does)."""
    values = {"extensionPath": root, "workspacePath": project, "/": os.sep, "pathSeparator": os.sep}

    def hydrate(command):
        if not isinstance(command, str):
            return command
        return re.sub(r"\$\{(.*?)\}", lambda found: values.get(found.group(1), found.group(0)), command)
    return hydrate, plugin_resolver(root)


def find(places: Places, recorded: dict[str, str] | None = None, plugins: list | None = None,
         extensions: list | None = None) -> list[Wiring]:
    """Every candidate file that exists (or was named or recorded), with its hookmux entries
    (``plugins``: ``plugins.roots()``, whose files are read as the plugin's; ``extensions``:
    ``gemini_extension.found()``, whose files, where on, are read as the Gemini extension's)."""
    named = {os.path.realpath(p) for p in (*places.settings, *places.codex_homes)}
    named |= {os.path.realpath(Path(p) / "hookmux.json") for p in places.copilot_dirs}
    named |= {os.path.realpath(gemini_hooks.settings_file(p)) for p in places.gemini_homes}
    listed = candidates(places)
    plugins = plugin_roots.roots(places.home, places.project, places.codex_homes) if plugins is None else plugins
    listed += [(path, PLUGIN, hosts) for path, hosts in plugin_files(places, plugins)]
    for file, host in (recorded or {}).items():
        fmt = {"copilot": COPILOT, "codex": CODEX, "gemini": GEMINI, "cursor": CURSOR, "qwen": QWEN}.get(host, CLAUDE)
        listed.append((Path(file), fmt, (fmt,)))
    seen: dict[str, Wiring] = {}
    out = []
    for item in extensions if extensions is not None else gemini_extension.found(places.home, places.project):
        if item.enabled and os.path.isfile(item.hooks_file):  # one the shared plugin file may also be: a key of its own
            wiring = read(Path(item.hooks_file), GEMINI, (GEMINI,), *extension_resolver(item.root, str(places.project)))
            wiring.extension = item
            for hook in wiring.hooks:
                hook.extension = item
            seen["extension:" + os.path.realpath(item.hooks_file)] = wiring
            out.append(wiring)
    for path, fmt, hosts in listed:
        real = os.path.realpath(path)
        if real in seen:
            known = seen[real]
            known.loaded_by = tuple(dict.fromkeys(known.loaded_by + hosts))
            continue
        if not os.path.exists(real) and real not in named:
            continue
        if fmt == PLUGIN:
            by_host = {item.host: item for item in plugins
                       if item.hooks_file and os.path.realpath(item.hooks_file) == real}
            root = next(iter(by_host.values())).root
            wiring = read(path, fmt, hosts, resolve=plugin_resolver(root))
            wiring.plugin.update(by_host)
            for hook in wiring.hooks:
                hook.plugin = wiring.plugin
        else:
            wiring = read(path, fmt, hosts)
        seen[real] = wiring
        out.append(wiring)
    return out


GEMINI_ONLY_EVENTS = frozenset(_hosts.EVENTS[_hosts.GEMINI]) - frozenset(_hosts.EVENTS[CLAUDE])


def read(path: Path, fmt: str, hosts: tuple[str, ...], hydrate=None, resolve=None) -> Wiring:
    """``hydrate``: what the host puts into a command before it runs it (the Gemini extension's
    variables; the command is kept so); ``resolve``: more put in only to recognise it."""
    wiring = Wiring(str(path), fmt, hosts, exists=path.exists())
    if not wiring.exists:
        return wiring
    try:
        data = jsonfile.load(path).data
    except JsonFileError as exc:
        wiring.error = str(exc)
        return wiring
    dialect = DIALECTS[fmt]
    events = _hosts.EVENTS[COPILOT if fmt == COPILOT else CLAUDE if fmt == PLUGIN else fmt]
    for event, _, hook, group in merge.entries_of(data, dialect):
        if fmt == PLUGIN and event in GEMINI_ONLY_EVENTS:
            continue  # the Gemini extension's entries in the shared file: no plugin host loads them
        if fmt == GEMINI and event not in _hosts.EVENTS[GEMINI]:
            continue  # Claude's events in the extension's file (the plugin's): Gemini skips them
        command = merge.text(hook, dialect)
        command = hydrate(command) if hydrate else command
        parsed = commands.parse(resolve(command) if resolve else command)
        if parsed is None:
            if isinstance(command, str) and any("/".join(tail) in command for tail in commands.ROLES.values()):
                wiring.unrecognised.append((event, command))
            continue
        matcher = (group or {}).get("matcher") if dialect.grouped else hook.get("matcher")
        timeout = hook.get(dialect.timeout_key)
        wiring.hooks.append(Hook(str(path), fmt, event, events.get(event, event),
                                 matcher if isinstance(matcher, str) else None, command,
                                 float(timeout) if isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
                                 else None, parsed))
    return wiring


def duplicates(wirings: list[Wiring]) -> list[dict]:
    """Problems for each host that would run one hookmux hook twice for one call."""
    problems = []
    for host in (CLAUDE, COPILOT, CODEX, GEMINI, CURSOR, QWEN):
        slots: dict[tuple[str, str], list[Hook]] = {}
        for wiring in wirings:
            if host not in wiring.loaded_by:
                continue
            for hook in wiring.hooks:
                slots.setdefault((hook.canonical, hook.role), []).append(hook)
        for (event, role), hooks in slots.items():
            if len(hooks) < 2:
                continue
            plugin_hooks = [hook for hook in hooks if hook.format == PLUGIN]
            if plugin_hooks and len(plugin_hooks) < len(hooks):
                item = plugin_hooks[0].plugin[host]
                others = sorted({hook.file for hook in hooks if hook.format != PLUGIN})
                problems.append({
                    "where": "; ".join(hook.label() for hook in hooks),
                    "problem": f"{host} runs the {role} {len(hooks)} times on each {event} call: the hookmux plugin "
                               f"({item.plugin_id}, on in {item.where}) and the settings install ({', '.join(others)}); "
                               "hosts do not deduplicate plugin hooks",
                    "fix": f"keep one: remove the settings install (`hookmux uninstall`, with --settings / "
                           f"--copilot-hooks-dir / --codex-home for that file; the plugin stays), or the plugin: "
                           f"`{item.uninstall_command()}`",
                })
                continue
            extension = next((hook.extension for hook in hooks if hook.extension is not None), None)
            if extension is not None and any(hook.extension is None for hook in hooks):
                others = sorted({hook.file for hook in hooks if hook.extension is None})
                problems.append({
                    "where": "; ".join(hook.label() for hook in hooks),
                    "problem": f"gemini runs the {role} {len(hooks)} times on each {hooks[0].event} call: the hookmux extension "
                               f"({extension.how()}) and the settings install ({', '.join(others)}); Gemini does not "
                               "deduplicate them",
                    "fix": f"keep one: `{gemini_extension.UNINSTALL}` (the settings install stays), or take hookmux's "
                           "entries out of that file (`hookmux uninstall`, then `hookmux install` again without "
                           "--gemini-home: the extension stays)",
                })
                continue
            spellings = sorted({hook.parsed.target for hook in hooks})
            targets = sorted({hook.target for hook in hooks})
            how = ("one hooks folder spelled two ways (" + ", ".join(spellings) + ")"
                   if len(targets) == 1 and len(spellings) > 1 else
                   "two hookmux installs (" + ", ".join(targets) + ")" if len(targets) > 1 else
                   "one hooks folder wired in " + ("two files" if len({h.file for h in hooks}) > 1 else "one file twice"))
            problems.append({
                "where": "; ".join(hook.label() for hook in hooks),
                "problem": f"{host} runs the {role} {len(hooks)} times on each {event} call: {how}",
                "fix": "keep one entry: `hookmux uninstall --settings FILE` (or --copilot-hooks-dir / "
                       "--codex-home / --gemini-home) for the file that should not wire it, or delete the extra "
                       "entry by hand",
            })
    return problems
