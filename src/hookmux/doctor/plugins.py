"""Where each host that has the hookmux plugin on really runs its hooks from (docs/e2e.md, "Plugins").

    roots(home, project, codex_homes) -> [PluginRoot]

``plugin_installs`` says which host turns the plugin on; this module follows that host's own
records to the folder whose ``hooks/hooks.json`` it loads, and says what the host puts in a
plugin hook's environment (Claude Code 2.1.332, Copilot CLI 1.0.102, Codex 0.171.0):

- Claude Code: the marketplace in ``~/.claude/plugins/known_marketplaces.json`` (else the
  enabling settings' ``extraKnownMarketplaces``). From a local (``directory``) marketplace it runs
  the hooks **from the marketplace folder** (``installLocation``, then the plugin's ``source`` in
  its ``.claude-plugin/marketplace.json``), although ``installed_plugins.json`` names a cache copy;
  from any other marketplace, that ``installPath``.
- Copilot CLI: copies nothing; a ``directory`` marketplace in ``~/.copilot/settings.json`` is
  loaded live from its folder.
- Codex CLI: ``$CODEX_HOME/plugins/cache/<marketplace>/<plugin>/<version>``, the version being
  the marketplace's ``plugin.json`` one (what ``codex plugin add`` copied).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from hookmux import plugin, plugin_installs

CLAUDE, COPILOT, CODEX = plugin_installs.CLAUDE, plugin_installs.COPILOT, plugin_installs.CODEX
ROOT_VARIABLE = plugin.ROOT_VARIABLE
_TABLE = re.compile(r'^\s*\[marketplaces\.(?:"([^"]+)"|([A-Za-z0-9_-]+))\]\s*$')
_STRING = re.compile(r'^\s*([A-Za-z_]+)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(#.*)?$')


@dataclass
class PluginRoot:
    host: str
    plugin_id: str  # hookmux@<marketplace>
    where: str  # the file that turns it on
    root: str | None  # the folder the host runs the plugin's hooks from; None: not known
    how: str  # how that was found, in words
    problem: str | None = None  # the root is gone, or cannot be found
    fix: str | None = None
    warning: bool = False  # the problem is a doubt, not a hook that surely does nothing

    @property
    def marketplace(self) -> str:
        return self.plugin_id.split("@", 1)[1]

    @property
    def hooks_file(self) -> str | None:
        return os.path.join(self.root, "hooks", "hooks.json") if self.root else None

    def uninstall_command(self) -> str:
        return plugin_installs.PluginInstall(self.host, self.plugin_id, Path(self.where)).uninstall_command()

    def reinstall_hint(self) -> str:
        if self.host == CLAUDE:
            return f"`claude plugin uninstall {self.plugin_id}`, then `claude plugin install {self.plugin_id}`"
        if self.host == COPILOT:
            return f"`copilot plugin uninstall {self.plugin_id}`, then `copilot plugin install {self.plugin_id}`"
        return f"`codex plugin add {self.plugin_id}`, then `hookmux trust codex`"

    def env(self, data: str, project: str) -> dict[str, str]:
        """What the host puts in a plugin hook's environment (``data``: a stand-in data folder)."""
        env = {"CLAUDE_PLUGIN_ROOT": self.root or "", "CLAUDE_PLUGIN_DATA": data}
        if self.host == COPILOT:
            env.update(COPILOT_PLUGIN_ROOT=self.root or "", COPILOT_PLUGIN_DATA=data, PLUGIN_ROOT=self.root or "",
                       COPILOT_PROJECT_DIR=project)
        if self.host == CODEX:
            env.update(PLUGIN_ROOT=self.root or "", PLUGIN_DATA=data)
        return env

    def as_dict(self) -> dict:
        return {"host": self.host, "plugin_id": self.plugin_id, "where": self.where, "root": self.root,
                "how": self.how, "problem": self.problem}


def _json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def plugin_source(marketplace: str, name: str = plugin.NAME) -> str | None:
    """The plugin's folder inside a local marketplace folder (its ``source`` in marketplace.json)."""
    listed = _json(Path(marketplace, ".claude-plugin", "marketplace.json")).get("plugins")
    for item in listed if isinstance(listed, list) else []:
        if isinstance(item, dict) and item.get("name") == name and isinstance(item.get("source"), str):
            return os.path.normpath(os.path.join(marketplace, item["source"]))
    return None


def _gone(item: PluginRoot, fix: str) -> PluginRoot:
    if item.root and not os.path.isfile(item.hooks_file):
        item.problem = (f"the plugin root {item.root} ({item.how}) has no hooks/hooks.json: {item.host} runs none "
                        "of the plugin's hooks, without a word")
        item.fix = fix
    return item


def _claude(install, home: Path) -> PluginRoot:
    market = install.plugin_id.split("@", 1)[1]
    plugins = home / ".claude" / "plugins"
    entry = _json(plugins / "known_marketplaces.json").get(market)
    if not isinstance(entry, dict):
        entry = (_json(Path(install.where)).get("extraKnownMarketplaces") or {}).get(market)
    source = entry.get("source") if isinstance(entry, dict) else None
    item = PluginRoot(CLAUDE, install.plugin_id, str(install.where), None, "")
    if isinstance(source, dict) and source.get("source") == "directory":
        folder = entry.get("installLocation") or source.get("path")
        if isinstance(folder, str):
            item.root = plugin_source(folder) or folder
            item.how = f"the local marketplace {folder}, which Claude Code runs the hooks from"
            return _gone(item, f"put the marketplace folder {folder} back, or add the marketplace again "
                               f"(`claude plugin marketplace add DIR`) and run {item.reinstall_hint()}")
    installed = (_json(plugins / "installed_plugins.json").get("plugins") or {}).get(install.plugin_id)
    paths = [e["installPath"] for e in installed if isinstance(e, dict) and isinstance(e.get("installPath"), str)] \
        if isinstance(installed, list) else []
    if not paths:
        item.problem = (f"Claude Code has {install.plugin_id} on ({install.where}) but "
                        f"{plugins / 'installed_plugins.json'} names no installed copy: it runs none of its hooks")
        item.fix = f"run `claude plugin install {install.plugin_id}`"
        return item
    item.root = next((p for p in paths if os.path.isdir(p)), paths[0])
    item.how = "installPath in ~/.claude/plugins/installed_plugins.json"
    return _gone(item, f"run {item.reinstall_hint()} (the cached version folder is gone)")


def _copilot(install, home: Path) -> PluginRoot:
    market = install.plugin_id.split("@", 1)[1]
    entry = (_json(Path(install.where)).get("extraKnownMarketplaces") or {}).get(market)
    source = entry.get("source") if isinstance(entry, dict) else None
    item = PluginRoot(COPILOT, install.plugin_id, str(install.where), None, "")
    if isinstance(source, dict) and source.get("source") == "directory" and isinstance(source.get("path"), str):
        item.root = plugin_source(source["path"]) or source["path"]
        item.how = f"the local marketplace {source['path']}, which Copilot loads live"
        return _gone(item, f"put the marketplace folder {source['path']} back, or add it again "
                           f"(`copilot plugin marketplace add DIR`) and run {item.reinstall_hint()}")
    item.problem = (f"cannot tell where Copilot keeps {install.plugin_id} (its marketplace is not a local "
                    "folder; only those were measured): its hooks are not checked")
    item.fix = "install the plugin from a local marketplace folder, or check it by hand in Copilot"
    item.warning = True
    return item


def _codex_marketplaces(config: Path) -> dict[str, dict[str, str]]:
    try:
        lines = config.read_text(encoding="utf-8").splitlines()
    except (OSError, ValueError):
        return {}
    out: dict[str, dict[str, str]] = {}
    current = None
    for line in lines:
        table = _TABLE.match(line)
        if table:
            current = out.setdefault(table.group(1) or table.group(2), {})
            continue
        if line.lstrip().startswith("["):
            current = None
            continue
        pair = _STRING.match(line)
        if current is not None and pair:
            current[pair.group(1)] = pair.group(2).replace('\\"', '"').replace("\\\\", "\\")
    return out


def _version_key(name: str) -> tuple:
    return tuple(int(part) if part.isdigit() else -1 for part in re.split(r"[.+-]", name))


def _codex(install) -> PluginRoot:
    market = install.plugin_id.split("@", 1)[1]
    codex_home = Path(install.where).parent
    cache = codex_home / "plugins" / "cache" / market / plugin.NAME
    item = PluginRoot(CODEX, install.plugin_id, str(install.where), None, "")
    source = _codex_marketplaces(Path(install.where)).get(market, {}).get("source")
    folder = plugin_source(source) if source else None
    version = _json(Path(folder, ".claude-plugin", "plugin.json")).get("version") if folder else None
    fix = f"run {item.reinstall_hint()}"
    if isinstance(version, str) and (cache / version).is_dir():
        item.root, item.how = str(cache / version), f"the cached copy of version {version} (the marketplace's)"
        return _gone(item, fix)
    try:
        versions = sorted((p.name for p in cache.iterdir() if p.is_dir()), key=_version_key)
    except OSError:
        versions = []
    if not versions:
        item.root = str(cache / version) if isinstance(version, str) else str(cache)
        item.how = "the cached copy under $CODEX_HOME/plugins/cache"
        item.problem = (f"Codex has {install.plugin_id} on ({install.where}) but its cached copy "
                        f"{item.root} is gone: Codex runs none of the plugin's hooks")
        item.fix = fix
        return item
    item.root, item.how = str(cache / versions[-1]), f"the newest cached copy ({versions[-1]})"
    if isinstance(version, str):
        item.how += f"; the marketplace has {version}, not added yet"
    return _gone(item, fix)


def roots(home: Path, project: Path | None, codex_homes: tuple[Path, ...] = ()) -> list[PluginRoot]:
    """Every host that has the hookmux plugin on, with the folder it runs the plugin's hooks from."""
    installs = plugin_installs.found(home=home, project=project)
    for codex_home in codex_homes:
        installs += [item for item in plugin_installs.found(home=home, codex_home=codex_home) if item.host == CODEX]
    out, seen = [], set()
    for install in installs:
        key = (install.host, install.plugin_id, os.path.realpath(install.where))
        if key in seen:
            continue
        seen.add(key)
        if install.host == CLAUDE:
            out.append(_claude(install, Path(home)))
        elif install.host == COPILOT:
            out.append(_copilot(install, Path(home)))
        else:
            out.append(_codex(install))
    return out
