"""The gate's Codex branch: ``spawn_agent`` naming a skill is told to read that skill's SKILL.md.

Codex CLI has no skill tool: skills are files listed to the model, which reads them itself;
agents run through ``spawn_agent`` with ``agent_type``. PreToolUse fires for ``spawn_agent``
before Codex checks the name, so a call whose ``agent_type`` is a skill of this Codex
(``$CODEX_HOME/skills`` with its bundled ``.system``, ``~/.agents/skills``, and ``.agents/skills``
/ ``.codex/skills`` in every folder from the cwd up to the repository root; at any depth) and not an agent (the built-in roles,
``$CODEX_HOME/agents/*.toml`` by file name or ``name =``) is denied with the path to read.
Codex reads the nested deny only (any other key fails the hook): exit 0 always.

Standard library only; runs from skill_redirect.py when its command line says ``--host codex``.
Folders and built-ins are ``hosts.py``'s Codex facts; payload and deny go through ``event.py``.
"""
import os

from runtime import event as event_module
from runtime import hosts
from places import project_dirs

CODEX = hosts.CODEX
MAX_DEPTH = 4  # folders below a skill root that may hold skills (``.system/<name>``, ``group/<name>``)
MAX_ENTRIES = 2000  # folder entries looked at before giving up (then the call passes)
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:_.-")


def codex_home(environ):
    return environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")


def _expand(template, cwd, environ):
    """The folders a ``hosts`` template names: ``{project}`` is cwd and each parent to the repo root."""
    if template.startswith("{project}"):
        return [template.replace("{project}", folder, 1) for folder in project_dirs(cwd)]
    return [os.path.expanduser(template.replace("{codex_home}", codex_home(environ)).replace("{cwd}", cwd))]


def skill_roots(cwd, environ):
    """Codex's skill folders (its bundled ``.system`` skills lie inside the first)."""
    return [root for template in hosts.SKILL_DIRS[CODEX] for root in _expand(template, cwd, environ)]


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
    """The SKILL.md path of skill ``name`` below any root (any depth up to MAX_DEPTH; by its
    frontmatter ``name``, as Codex lists it, or its folder name), or None. Raises LookupError
    when the budget ran out first: the scan was not complete, so the call passes."""
    for root in roots:
        found = _walk(name, root, budget, 0)
        if found:
            return found
    return None


def _walk(name, folder, budget, depth):
    try:
        entries = [entry for entry in os.scandir(folder) if entry.is_dir()]
    except OSError:
        return None
    if not budget.spend(len(entries)):
        raise LookupError(folder)
    for entry in sorted(entries, key=lambda e: e.name != name):
        skill = os.path.join(entry.path, "SKILL.md")
        if os.path.isfile(skill):
            if entry.name == name or _frontmatter_name(skill) == name:
                return skill
            continue  # a skill's own folder holds its files, not more skills
        if depth < MAX_DEPTH:
            found = _walk(name, entry.path, budget, depth + 1)
            if found:
                return found
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


def is_agent(name, cwd, environ):
    if name in hosts.BUILTIN_AGENTS[CODEX]:
        return True
    suffix = hosts.AGENT_SUFFIX[CODEX]
    for template in hosts.AGENT_DIRS[CODEX]:
        for folder in _expand(template, cwd, environ):
            if os.path.isfile(os.path.join(folder, name + suffix)):
                return True
            try:
                files = [entry.path for entry in os.scandir(folder) if entry.name.endswith(suffix)]
            except OSError:
                continue
            if any(_toml_name(path) == name for path in files[:MAX_ENTRIES]):
                return True
    return False


def message(name, skill_md):
    return (
        '"{name}" is a skill, not an agent, so spawn_agent cannot start it. '
        "Use it as a skill instead: read {path} and follow its instructions yourself. "
        'Do not retry "{name}" as an agent_type.'
    ).format(name=name, path=skill_md)


def decide(stdin, environ):
    """The deny line for this payload (text or bytes), or ""."""
    call = event_module.parse(stdin, host=CODEX)
    if call.name != "PreToolUse" or call.native_tool_name != hosts.AGENT_TOOL[CODEX]:
        return ""
    name = call.tool_input.get(hosts.AGENT_PARAM[CODEX])
    if not isinstance(name, str) or not name or any(char not in _SAFE for char in name) or len(name) > 64:
        return ""
    cwd = call.cwd if os.path.isabs(call.cwd) else os.getcwd()
    if is_agent(name, cwd, environ):
        return ""
    try:
        skill_md = find_skill(name, skill_roots(cwd, environ), _Budget())
    except LookupError:
        return ""
    if skill_md is None:
        return ""
    return event_module.render_deny(call, message(name, skill_md))


def main(data):
    """Decide for the raw payload bytes and write the answer; always 0."""
    try:
        out = decide(data, os.environ)
    except Exception:
        return 0
    if out:
        encoded = out.encode("utf-8")
        while encoded:
            encoded = encoded[os.write(1, encoded):]
    return 0
