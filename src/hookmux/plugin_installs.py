"""Where the hookmux plugin is turned on, read from each host's own files (docs/install.md).

    found(home=None, project=None, codex_home=None) -> [PluginInstall]
    refusal(installs, host) -> str or None    # install's message when it would wire a host twice

A host runs a plugin's hooks beside the ones in its settings and does not deduplicate
identical commands, so hookmux installed both ways runs every hook twice. ``install`` and
``status`` ask here. What each host records (Claude Code 2.1.332, Copilot CLI 1.0.102, Codex
0.171.0; tests/e2e/test_e2e_plugin.py):

- Claude Code: ``enabledPlugins: {"hookmux@<marketplace>": true}`` in ``~/.claude/settings.json``
  (``plugin install``, user scope) or in a project's ``.claude/settings.json`` /
  ``.claude/settings.local.json`` (a team pins it there).
- Copilot CLI: ``enabledPlugins`` in ``~/.copilot/settings.json``.
- Codex CLI: ``[plugins."hookmux@<marketplace>"] enabled = true`` in ``$CODEX_HOME/config.toml``.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from hookmux import plugin

CLAUDE, COPILOT, CODEX = "claude", "copilot", "codex"
_UNINSTALL = {CLAUDE: "claude plugin uninstall {id}", COPILOT: "copilot plugin uninstall {id}",
              CODEX: "codex plugin remove {id}"}
_CODEX_TABLE = re.compile(r'^\s*\[plugins\."(' + re.escape(plugin.NAME) + r'@[^"]+)"\]\s*$')
_CODEX_ENABLED = re.compile(r"^\s*enabled\s*=\s*(true|false)\s*(#.*)?$")
PLUGIN_SCRIPTS = ("/hooks/_dispatch/dispatch.py", "/hooks/skill-redirect/skill_redirect.py")


@dataclass(frozen=True)
class PluginInstall:
    host: str  # claude, copilot or codex
    plugin_id: str  # hookmux@<marketplace>
    where: Path  # the file that turns it on

    def uninstall_command(self) -> str:
        return _UNINSTALL[self.host].format(id=self.plugin_id)


def is_plugin_hook(hook) -> bool:
    """A Codex hook (``codex_trust.CodexHook``) of the hookmux plugin: its key names the plugin,
    its command runs the plugin's dispatcher or gate."""
    plugin_id = hook.key.split(":", 1)[0]
    return plugin_id.startswith(plugin.NAME + "@") and any(script in (hook.command or "") for script in PLUGIN_SCRIPTS)


def _enabled_in_json(path: Path) -> list[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    enabled = data.get("enabledPlugins") if isinstance(data, dict) else None
    if not isinstance(enabled, dict):
        return []
    return [key for key, value in enabled.items() if isinstance(key, str) and key.startswith(plugin.NAME + "@")
            and value is True]


def _enabled_in_codex(path: Path) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, ValueError):
        return []
    found, current = [], None
    for line in lines:
        table = _CODEX_TABLE.match(line)
        if table:
            current = table.group(1)
            continue
        if line.lstrip().startswith("["):
            current = None
            continue
        enabled = _CODEX_ENABLED.match(line)
        if current and enabled and enabled.group(1) == "true":
            found.append(current)
    return found


def found(home: os.PathLike | str | None = None, project: os.PathLike | str | None = None,
          codex_home: os.PathLike | str | None = None, claude_settings: os.PathLike | str | None = None
          ) -> list[PluginInstall]:
    """Every file that turns the hookmux plugin on for ``home``'s user (``project``: also that
    project's Claude settings; ``claude_settings``: a settings file install was given)."""
    home = Path(os.path.expanduser(str(home or "~")))
    codex = Path(codex_home) if codex_home else Path(os.environ.get("CODEX_HOME") or home / ".codex")
    claude_files = [home / ".claude" / "settings.json"]
    if project:
        claude_files += [Path(project) / ".claude" / "settings.json", Path(project) / ".claude" / "settings.local.json"]
    if claude_settings:
        claude_files.append(Path(claude_settings))
    out: list[PluginInstall] = []
    seen: set[str] = set()
    for path in claude_files:
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        out += [PluginInstall(CLAUDE, key, path) for key in _enabled_in_json(path)]
    out += [PluginInstall(COPILOT, key, home / ".copilot" / "settings.json")
            for key in _enabled_in_json(home / ".copilot" / "settings.json")]
    out += [PluginInstall(CODEX, key, codex / "config.toml") for key in _enabled_in_codex(codex / "config.toml")]
    return out


def refusal(installs: list[PluginInstall], host: str, wiring: str) -> str | None:
    """Why ``install`` must not wire ``host`` (``wiring``: the file it would write), or None."""
    mine = [item for item in installs if item.host == host]
    if not mine:
        return None
    item = mine[0]
    return (f"{wiring}: the hookmux plugin is already on for {host} ({item.plugin_id} in {item.where}); wiring "
            f"hookmux into the settings too would run every hook twice (hosts do not deduplicate plugin hooks). "
            f"Keep the plugin (your own rows go to the user layer: hookmux new-check), or switch to the settings "
            f"install: `{item.uninstall_command()}`, then run this install again")


def annotate_status(report: dict, installs: list[PluginInstall], codex_bin: str | None = None,
                    codex_home: os.PathLike | str | None = None) -> None:
    """``hookmux status``: add ``plugin`` (where it is on; Codex: each plugin hook's trust) and
    its problems: a host wired both ways, a Codex plugin hook Codex would skip. With the plugin on
    and no settings install at the target, the target being empty is no problem."""
    report["plugin"] = [{"host": item.host, "plugin_id": item.plugin_id, "where": str(item.where)}
                        for item in installs]
    if not installs:
        return
    if not report.get("installed"):
        report["problems"] = [problem for problem in report["problems"] if "hookmux is not installed here" not in problem]
    for item in installs:
        wired = [entry for wiring in report.get("wired", []) if wiring.get("host") == item.host
                 for entry in wiring.get("entries", [])]
        if wired:
            report["problems"].append(
                f"hookmux runs twice on {item.host}: the plugin ({item.plugin_id} in {item.where}) and "
                f"{len(wired)} settings entr{'y' if len(wired) == 1 else 'ies'}; keep one: `hookmux uninstall` "
                f"(keeps the plugin) or `{item.uninstall_command()}`")
    codex = [item for item in installs if item.host == CODEX]
    if codex and codex_bin:
        _codex_trust(report, codex_bin, codex_home or codex[0].where.parent)


def _codex_trust(report: dict, codex_bin: str, codex_home: os.PathLike | str) -> None:
    from hookmux.installer import codex_trust

    try:
        with codex_trust.AppServer(codex_bin, codex_home) as server:
            hooks = [hook for hook in server.hooks() if is_plugin_hook(hook)]
    except codex_trust.CodexTrustError as exc:
        report["problems"].append(f"codex: cannot ask for the plugin's trust: {exc}")
        return
    report["plugin_codex_trust"] = {hook.key: hook.trust_status for hook in hooks}
    untrusted = [hook.key for hook in hooks if not hook.trusted]
    if untrusted:
        report["problems"].append(f"codex skips {len(untrusted)} hook(s) of the plugin until trusted "
                                  f"({untrusted[0]}, …): run `hookmux trust codex`")


def render_status(report: dict) -> str:
    lines = [f"plugin:    {item['plugin_id']} on for {item['host']} ({item['where']})" for item in report.get("plugin", [])]
    lines += [f"  codex trust: {key}: {state}" for key, state in report.get("plugin_codex_trust", {}).items()]
    return "\n".join(lines) + "\n" if lines else ""


def install_refusal(settings: os.PathLike | str, copilot_dir: os.PathLike | str | None,
                    codex_home: os.PathLike | str | None) -> str | None:
    """``hookmux install``'s refusal when the plugin is on for a host it would wire (Claude Code:
    for the user, in ``settings`` or in the project of the cwd), or None."""
    installs = found(project=os.getcwd(), codex_home=codex_home, claude_settings=settings)
    wanted = [(CLAUDE, settings)] + ([(COPILOT, copilot_dir)] if copilot_dir else []) + \
        ([(CODEX, codex_home)] if codex_home else [])
    for host, wiring in wanted:
        message = refusal(installs, host, str(wiring))
        if message:
            return message
    return None
