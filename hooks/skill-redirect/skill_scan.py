"""The skills a host runs: its built-ins, the SKILL.md files (and Claude Code's commands)
in the folders it loads, or the folders given by --skills-dir / HOOKMUX_SKILLS_PATH."""
import os

import folder_walk
from runtime import hosts


def override_roots(cli_dirs, environ):
    """--skills-dir dirs, else HOOKMUX_SKILLS_PATH, else None (the host's own folders)."""
    listed = cli_dirs or [part for part in (environ.get("HOOKMUX_SKILLS_PATH") or "").split(os.pathsep) if part]
    return [os.path.abspath(path) for path in listed] or None


def skill_folders(host, places, environ):
    folders = places.folders(hosts.SKILL_DIRS[host], wide=True)
    amplihack = environ.get("AMPLIHACK_HOME")
    if amplihack:
        folders.append(os.path.join(amplihack, "amplifier-bundle", "skills"))
    return folders


def skills(host, places, budget, roots):
    """Yield ``(name, where)`` for every skill of host; a skill may yield two names.

    Measured: Claude Code loads ``<root>/<dir>/SKILL.md`` one level deep and runs it by
    the folder name and by its frontmatter ``name:``; Copilot loads ``SKILL.md`` at any
    depth and runs it by its ``name:`` only (the folder name when there is none).
    """
    for name in hosts.BUILTIN_SKILLS[host]:
        yield name, "built-in"
    claude = host == hosts.CLAUDE
    for root in roots:
        walk = folder_walk.walk(root, budget, 1, False) if claude else folder_walk.walk(root, budget)
        for parts, entry in walk:
            if entry.name != "SKILL.md" or (claude and len(parts) != 1):
                continue
            folder_name = parts[-1] if parts else os.path.basename(root)
            if claude:
                yield folder_name, entry.path
            data = folder_walk.read_head(entry.path, budget)
            if data is None:
                continue
            name = folder_walk.frontmatter(data).get("name")
            if name and name != folder_name:
                yield name, entry.path
            elif not claude:
                yield folder_name, entry.path
    for folder in places.folders(hosts.COMMAND_DIRS[host], wide=True):
        for _parts, entry in folder_walk.walk(folder, budget, 0, False):
            if entry.name.endswith(".md") and len(entry.name) > 3:
                yield entry.name[:-3], entry.path


def find(wanted, host, places, budget, roots):
    """The wanted names that are skills of host (stops once all are found)."""
    wanted = set(wanted)
    found = set()
    for name, _where in skills(host, places, budget, roots):
        if name in wanted:
            found.add(name)
            if found == wanted:
                break
    return found
