"""This repository as a plugin: the ``hooks/hooks.json`` the hosts' plugin loaders run.

    hooks_json(manifest) -> dict      # what hooks/hooks.json must hold for the shipped manifest
    command(script, event) -> str     # one plugin hook command line
    gemini_groups(manifest) -> dict   # the Gemini extension's events, added to the same file
    PLUGIN_FILES                      # what a plugin folder needs, relative to the repo root

Claude Code, Copilot CLI and Codex CLI all load ``hooks/hooks.json`` (Claude's format) from
a plugin's root and set ``CLAUDE_PLUGIN_ROOT`` in the hook's environment (Claude Code also
substitutes it in the command). The entries are install's Claude Code entries
(``installer.entries.claude_entries``: the manifest's events with their settings matchers,
the gate on PreToolUse and PostToolBatch; the gate's PreToolUse matcher also names Codex's
``spawn_agent``, which no other host has), with a command a plugin can carry: no absolute
interpreter (unknown when the plugin is built), so ``python3`` on PATH, and the hooks tree
from the plugin root::

    python3 -S -E "${CLAUDE_PLUGIN_ROOT}/hooks/_dispatch/dispatch.py" --hooks-root "${CLAUDE_PLUGIN_ROOT}/hooks" PreToolUse || true

behind install's payload filter where install has one (UserPromptSubmit, PostToolBatch: issue 42).

Without a ``python3`` on PATH the shell prints ``python3: command not found`` on stderr and
exits 127; with the plugin folder gone CPython exits 2; ``|| true`` turns both into exit 0
with nothing on stdout, so the tool call goes on without hookmux (docs/install.md).
The same file is also the hooks file of the Gemini CLI extension (``gemini-extension.json``
at the root): Gemini reads ``<extension>/hooks/hooks.json`` and no other path, so its own
events (BeforeTool, AfterTool, BeforeAgent: ``installer.gemini_hooks.entries``, ms timeouts,
``--host gemini``, ``2>/dev/null || true``) sit beside Claude's, with ``${extensionPath}``
for the root. Each host ignores the other's event names (docs/e2e.md, "Gemini CLI 0.61.0" item 7).

``tests/plugin`` checks that the committed file is exactly ``hooks_json(shipped manifest)``;
after a change to install's entries (a new gate, say) regenerate it with
``python -m hookmux.plugin``.
"""
from __future__ import annotations

import json
from pathlib import Path

from hookmux import matchers, resources, wiring
from hookmux.installer import entries, gemini_hooks

ROOT_VARIABLE = "${CLAUDE_PLUGIN_ROOT}"
PYTHON = "python3"
NAME = "hookmux"
MARKETPLACE = "hookmux"
# Codex reads a matcher of letters, digits, _ and | as exact tool names; its agent tool
# (hooks/_common/hosts.py) starts the gate, which answers it with the mirror redirect.
CODEX_AGENT_TOOL = resources.runtime("hosts").AGENT_TOOL["codex"]
CODEX_EDIT_TOOL = "apply_patch"
GEMINI_ROOT = "${extensionPath}"
PLUGIN_FILES = (".claude-plugin/plugin.json", ".claude-plugin/marketplace.json", "hooks/hooks.json",
                "gemini-extension.json")
DESCRIPTION = ("hookmux: one dispatcher process per hook event (advice on risky shell commands), and the "
               "skill/agent redirect gate.")


def command(script: tuple[str, ...], event: str, options: tuple[str, ...] = ()) -> str:
    path = '"%s/hooks/%s"' % (ROOT_VARIABLE, "/".join(script))
    words = [PYTHON, *wiring.PYTHON_FLAGS, path, *options, event]
    return " ".join(words) + " " + wiring.FAIL_OPEN


def hooks_json(manifest: dict) -> dict:
    """``{"description", "hooks": {Event: [group, ...]}}``: one matcher group per entry, in install's order."""
    hooks: dict[str, list] = {}
    root_option = ("--hooks-root", '"%s/hooks"' % ROOT_VARIABLE)
    for entry in entries.claude_entries(manifest, "/", PYTHON):
        script = tuple(Path(entry.script).parts[1:])  # the tree-relative script of any role (dispatch, gates)
        line = wiring.split_prefilter(entry.command)[0] + command(
            script, entry.event, root_option if entry.role == "dispatch" else ())
        matcher = entry.matcher
        if entry.role == "gate" and entry.event == "PreToolUse" and matcher is not None:
            matcher += "|" + CODEX_AGENT_TOOL  # one file for all hosts: Codex's agent tool reaches the mirror
        if entry.role == "danger" and matcher is not None:  # and Codex's edits reach the guard's own ground
            matcher = matchers.with_mcp_shells("claude", entries.CLAUDE_DANGER_TOOLS + "|" + CODEX_EDIT_TOOL)
        group: dict = {"matcher": matcher} if matcher is not None else {}
        group["hooks"] = [{"type": "command", "command": line, "timeout": entry.timeout}]
        hooks.setdefault(entry.event, []).append(group)
    gemini = gemini_groups(manifest)
    shared = sorted(set(gemini) & set(hooks))
    if shared:  # one key, two hosts' commands: Gemini would run ${CLAUDE_PLUGIN_ROOT} lines, Claude ${extensionPath} ones
        raise ValueError("hooks/hooks.json cannot serve both hosts on %s" % ", ".join(shared))
    hooks.update(gemini)
    return {"description": DESCRIPTION, "hooks": hooks}


def gemini_groups(manifest: dict) -> dict[str, list]:
    """``hookmux install --gemini-home``'s entries with the extension root for the hooks tree."""
    hooks: dict[str, list] = {}
    tree = GEMINI_ROOT + "/hooks"
    for entry in gemini_hooks.entries(manifest, tree, PYTHON):
        options = ("--hooks-root", tree) if entry.role == "dispatch" else ()
        group: dict = {"matcher": entry.matcher} if entry.matcher is not None else {}
        group["hooks"] = [{"type": "command", "command": entry.command_with(options), "timeout": entry.timeout}]
        hooks.setdefault(entry.event, []).append(group)
    return hooks


def shipped_hooks_json() -> dict:
    manifest = json.loads(Path(resources.hooks_tree(), "_dispatch", "manifest.json").read_text(encoding="utf-8"))
    return hooks_json(manifest)


def render(data: dict) -> str:
    return json.dumps(data, indent=2) + "\n"


if __name__ == "__main__":
    target = Path(resources.hooks_tree()) / "hooks.json"
    target.write_text(render(shipped_hooks_json()), encoding="utf-8")
    print(f"wrote {target}")
