"""Which of some names are skills: a bounded scan of SKILL.md frontmatter under the skill roots.

A skill is a regular file named SKILL.md; its name is the frontmatter ``name:``
(BOM, CRLF and quotes tolerated), or its folder's name when there is none.
No symlink below a root is followed, and every limit below ends the scan early.
"""
import os
import stat

MAX_DEPTH = 8
MAX_SKILL_FILES = 10000
MAX_ENTRIES = 200000
MAX_READ = 64 * 1024

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def skill_roots(cli_dirs, environ, host="claude-code"):
    """--skills-dir dirs, else HOOKMUX_SKILLS_PATH, else the folders this host loads skills from.

    Measured with the real binaries (docs/e2e.md): Claude Code 2.1.328 loads
    ~/.claude/skills and <project>/.claude/skills only; Copilot CLI 1.0.102 loads
    ~/.copilot/skills, ~/.agents/skills and the project's .github/, .claude/ and
    .agents/skills, but not ~/.claude/skills.
    """
    if cli_dirs:
        return _unique(cli_dirs)
    listed = environ.get("HOOKMUX_SKILLS_PATH")
    if listed:
        return _unique(part for part in listed.split(os.pathsep) if part)
    cwd = os.getcwd()
    project = environ.get("CLAUDE_PROJECT_DIR") or cwd
    home = os.path.expanduser("~")
    if host == "copilot":
        roots = [
            os.path.join(home, ".copilot", "skills"),
            os.path.join(home, ".agents", "skills"),
            os.path.join(cwd, ".github", "skills"),
            os.path.join(project, ".claude", "skills"),
            os.path.join(cwd, ".agents", "skills"),
        ]
    else:
        roots = [
            os.path.join(project, ".claude", "skills"),
            os.path.join(home, ".claude", "skills"),
        ]
    amplihack = environ.get("AMPLIHACK_HOME")
    if amplihack:
        roots.append(os.path.join(amplihack, "amplifier-bundle", "skills"))
    return _unique(roots)


def _unique(paths):
    seen = []
    for path in paths:
        path = os.path.abspath(path)
        if path not in seen:
            seen.append(path)
    return seen


def find_skills(wanted, roots):
    """(the wanted names that are skills, whether the scan was complete).

    An incomplete scan (a limit hit) cannot prove a name is not a skill.
    """
    wanted = set(wanted)
    found = set()
    entries = 0
    skill_files = 0
    for root in roots:
        stack = [(root, 0)]
        while stack:
            directory, depth = stack.pop()
            try:
                with os.scandir(directory) as listing:
                    children = []
                    for entry in listing:
                        entries += 1
                        if entries > MAX_ENTRIES:
                            return found, False
                        if entry.name == "SKILL.md":
                            if not entry.is_file(follow_symlinks=False):
                                continue
                            skill_files += 1
                            if skill_files > MAX_SKILL_FILES:
                                return found, False
                            name = skill_name(entry.path, os.path.basename(directory))
                            if name in wanted:
                                found.add(name)
                                if found == wanted:
                                    return found, True
                        elif depth < MAX_DEPTH and entry.is_dir(follow_symlinks=False):
                            children.append((entry.path, depth + 1))
            except OSError:
                continue
            stack.extend(children)
    return found, True


def skill_name(path, folder_name):
    """The skill name of the SKILL.md at path; None if it cannot be read as a regular file."""
    try:
        handle = os.open(path, _OPEN_FLAGS)
    except OSError:
        return None
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode):
            return None
        chunks = []
        remaining = min(status.st_size, MAX_READ)
        while remaining > 0:
            chunk = os.read(handle, remaining)
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError:
        return None
    finally:
        os.close(handle)
    name = frontmatter_name(b"".join(chunks))
    return name if name else folder_name


def frontmatter_name(data):
    """The top-level ``name:`` of a leading ``---`` frontmatter block, or None."""
    text = data.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not lines or lines[0].rstrip() != "---":
        return None
    for line in lines[1:]:
        if line.rstrip() in ("---", "..."):
            return None
        if line.startswith("name:"):
            return _scalar(line[5:].strip())
    return None


def _scalar(value):
    if value[:1] in ("'", '"'):
        end = value.find(value[0], 1)
        return value[1:end] if end > 0 else None
    return value.split(" #", 1)[0].strip()
