"""The gate's Codex branch: ``spawn_agent`` naming a skill is told to read that skill's SKILL.md.

Codex CLI has no skill tool: skills are files listed to the model, which reads them itself;
agents run through ``spawn_agent`` with ``agent_type``. PreToolUse fires for ``spawn_agent``
before Codex checks the name, so a call whose ``agent_type`` is a skill of this Codex
(``$CODEX_HOME/skills`` with its bundled ``.system``, and ``.agents/skills`` / ``.codex/skills``
in every folder from the cwd up to the repository root) and not an agent (the built-in roles,
``$CODEX_HOME/agents/*.toml`` by file name or ``name =``) is denied with the path to read.
Codex reads the nested deny only (any other key fails the hook): exit 0 always.

Standard library only; runs from skill_redirect.py when its command line says ``--host codex``.
"""
import os

import fast_json

BUILTIN_AGENTS = ("default", "explorer", "worker")
PROJECT_SKILL_DIRS = (".agents/skills", ".codex/skills")
MAX_PARENTS = 64
MAX_ENTRIES = 2000  # folder entries looked at before giving up (then the call passes)
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:_.-")


def codex_home(environ):
    return environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")


def project_dirs(cwd):
    """cwd and its parents up to the one holding ``.git``; just cwd outside a repository."""
    found, folder = [], cwd
    for _ in range(MAX_PARENTS):
        found.append(folder)
        if os.path.exists(os.path.join(folder, ".git")):
            return found
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return [cwd]


def skill_roots(cwd, environ):
    home = os.path.join(codex_home(environ), "skills")
    roots = [home, os.path.join(home, ".system")]
    for folder in project_dirs(cwd):
        roots += [os.path.join(folder, relative) for relative in PROJECT_SKILL_DIRS]
    return roots


class _Budget:
    def __init__(self):
        self.left = MAX_ENTRIES

    def spend(self, count):
        self.left -= count
        return self.left >= 0


def _frontmatter_name(path):
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096).decode("utf-8", "replace")
    except OSError:
        return None
    lines = head.splitlines()
    if not lines or lines[0].strip() != "---":
        return None
    for line in lines[1:]:
        if line.strip() == "---":
            break
        key, sep, value = line.partition(":")
        if sep and key.strip() == "name":
            return value.strip().strip("\"'") or None
    return None


def find_skill(name, roots, budget):
    """The SKILL.md path of skill ``name`` (by folder name or frontmatter ``name``), or None;
    raises LookupError when the budget ran out first."""
    for root in roots:
        try:
            entries = [entry for entry in os.scandir(root) if entry.is_dir() and entry.name != ".system"]
        except OSError:
            continue
        if not budget.spend(len(entries)):
            raise LookupError(root)
        for entry in sorted(entries, key=lambda e: e.name != name):
            skill = os.path.join(entry.path, "SKILL.md")
            if not os.path.isfile(skill):
                continue
            if entry.name == name or _frontmatter_name(skill) == name:
                return skill
    return None


def _toml_name(path):
    try:
        with open(path, "rb") as handle:
            text = handle.read(8192).decode("utf-8", "replace")
    except OSError:
        return None
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "name":
            return value.strip().strip("\"'") or None
        if line.startswith("["):
            break
    return None


def is_agent(name, environ):
    if name in BUILTIN_AGENTS:
        return True
    folder = os.path.join(codex_home(environ), "agents")
    if os.path.isfile(os.path.join(folder, name + ".toml")):
        return True
    try:
        files = [entry.path for entry in os.scandir(folder) if entry.name.endswith(".toml")]
    except OSError:
        return False
    return any(_toml_name(path) == name for path in files[:MAX_ENTRIES])


def message(name, skill_md):
    return (
        '"{name}" is a skill, not an agent, so spawn_agent cannot start it. '
        "Use it as a skill instead: read {path} and follow its instructions yourself. "
        'Do not retry "{name}" as an agent_type.'
    ).format(name=name, path=skill_md)


def decide(payload, environ):
    """The deny line for this payload, or ""."""
    if not isinstance(payload, dict) or payload.get("hook_event_name") != "PreToolUse":
        return ""
    if payload.get("tool_name") != "spawn_agent":
        return ""
    tool_input = payload.get("tool_input")
    name = tool_input.get("agent_type") if isinstance(tool_input, dict) else None
    if not isinstance(name, str) or not name or any(char not in _SAFE for char in name) or len(name) > 64:
        return ""
    if is_agent(name, environ):
        return ""
    cwd = payload.get("cwd")
    if not (isinstance(cwd, str) and os.path.isabs(cwd)):
        cwd = os.getcwd()
    try:
        skill_md = find_skill(name, skill_roots(cwd, environ), _Budget())
    except LookupError:
        return ""
    if skill_md is None:
        return ""
    return fast_json.dumps({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": message(name, skill_md),
    }}) + "\n"


def main(data):
    """Decide for the raw payload bytes and write the answer; always 0."""
    try:
        out = decide(fast_json.loads(data), os.environ)
    except Exception:
        return 0
    if out:
        encoded = out.encode("utf-8")
        while encoded:
            encoded = encoded[os.write(1, encoded):]
    return 0
