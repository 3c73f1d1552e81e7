"""The agents a host can run: its built-ins and the agent files in the folders it loads.

Read when the gate decides (nothing is cached between calls), so an agent added
after ``hookmux install`` counts at once.
"""
import folder_walk
import known_agents
from runtime import hosts

_SUFFIXES = (".agent.md", ".md")


def agents(host, places, budget):
    """Yield ``(name, where)`` for every agent of host, built-ins first."""
    for name in hosts.BUILTIN_AGENTS[host]:
        yield name, "built-in"
    for name in known_agents.AGENTS:
        yield name, "hookmux install --agents-dir"
    for folder in places.folders(hosts.AGENT_DIRS[host]):
        for parts, entry in folder_walk.walk(folder, budget):
            if not entry.name.endswith(".md"):
                continue
            data = folder_walk.read_head(entry.path, budget)
            if data is not None:
                name = agent_name(host, parts, entry.name, folder_walk.frontmatter(data))
                if name:
                    yield name, entry.path


def agent_name(host, parts, filename, keys):
    """The name host lists an agent file under, or None when the host skips the file.

    Measured (Claude Code 2.1.328, Copilot CLI 1.0.102): Claude Code lists a ``*.md`` only
    when its frontmatter has ``name:`` and ``description:``, under that name. Copilot
    lists a ``*.md``/``*.agent.md`` whose frontmatter has ``description:``, under its
    ``name:``, else the path below the folder without the suffix, "/" written "--".
    """
    if not keys.get("description"):
        return None
    name = keys.get("name")
    if name or host == hosts.CLAUDE:
        return name or None
    for suffix in _SUFFIXES:
        if filename.endswith(suffix):
            stem = filename[: -len(suffix)]
            return "--".join(parts + (stem,)) if stem else None
    return None


def find(wanted, host, places, budget):
    """The wanted names that are agents of host (stops once all are found)."""
    wanted = set(wanted)
    found = set()
    for name, _where in agents(host, places, budget):
        if name in wanted:
            found.add(name)
            if found == wanted:
                break
    return found
