"""The guard's own ground: what makes hookmux a guard here, and the tool calls that would change it.

    ground = Ground(env, cwd, hooks_root)
    ground.shell(simple, here, scope) -> [what it would change]   # one simple command of a shell call
    ground.files(paths) -> [what it would change]                  # the paths a file tool writes

The places (one list): the hooks tree the gate runs from; hookmux's state folder (allowances,
their signing key, the denials ``hookmux allow --last`` offers); the user's hookmux configuration
(``manifest.json``, ``dangers.json``); the project's ``.hookmux/``; every file and folder a host
reads its hooks, settings and plugins from (``hosts.GUARD_FILES``). A tool call that writes one,
or deletes, moves or changes the mode of a folder holding one, is denied with "ask the user":
the agent the gate guards must not be able to switch it off or approve itself. So is running
hookmux's own commands that weaken it (``allow``, ``uninstall``, ``install``, ``trust``,
``adopt``), in any spelling the shell reader sees, and reading the allowances' key.

What it cannot see is not judged: a script file written by one call and run by another, a
program that writes on its own. Those are the limits docs/danger-gate.md names, with the
managed install for a real boundary.
"""
import os

from _common import hosts, manifest, shell, state

import targets

#: hookmux's subcommands that weaken the guard: run from a tool call, they are the user's to run.
WEAKENING = frozenset(("allow", "uninstall", "install", "trust", "adopt"))
#: Programs that change every operand (delete, move away, overwrite, truncate, mode, owner).
_ALL_OPERANDS = frozenset(("rm", "rmdir", "unlink", "shred", "truncate", "chmod", "chown", "chgrp", "mv", "tee",
                           "touch", "chattr", "setfacl", "srm", "trash", "trash-put", "gio", "sponge"))
#: Of those, the ones whose change to a folder reaches what it holds (``rm -r ~/.claude``).
_WHOLE = frozenset(("rm", "rmdir", "mv", "chmod", "chown", "chgrp", "chattr", "setfacl", "srm", "trash",
                    "trash-put", "gio"))
#: Programs that write their destination: the last operand, or ``-t DIR``; into a folder, its
#: ``folder/<name of each source>``.
_DESTINATION = frozenset(("cp", "mv", "install", "ln", "link", "rsync", "scp"))
#: Programs that rewrite their file operands with ``-i``.
_IN_PLACE = frozenset(("sed", "gsed", "perl", "ruby"))
#: Programs whose code can write any file: their words are searched for the ground's names.
_INTERPRETERS = frozenset(("python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun",
                           "perl", "ruby", "php", "lua", "awk", "gawk", "mawk", "nawk", "osascript", "Rscript"))
#: Words of code that writes, moves or deletes (searched only in code that names the ground).
_WRITING_CODE = ("write", "'w", '"w', "'a'", '"a"', "'r+", '"r+', "'x'", '"x"', "unlink", "remove", "rmtree",
                 "rename", "replace(", "move(", "copy", "symlink", "chmod", "chown", "truncate", "rmSync", "rm(",
                 "rm_", "rmdir", "dump(", ">", "system(", "spawn", "exec")
#: Programs that start hookmux (``uvx hookmux``, ``python3 -m hookmux``, ``pipx run hookmux``).
_LAUNCHERS = frozenset(("uvx", "uv", "pipx", "poetry", "pdm", "hatch", "rye", "pixi", "conda", "mamba",
                        "micromamba", "pip-run"))
KEY_NAME = "allowances.key"  # allowances.KEY


class Place:
    __slots__ = ("path", "what", "folder")

    def __init__(self, path, what, folder):
        self.path = path
        self.what = what
        self.folder = folder


class Ground:
    """The places of one call (computed once per call)."""

    def __init__(self, env, cwd, hooks_root):
        home = env.get("HOME") or os.path.expanduser("~")
        project = _project(cwd)
        state_dir = state.configured_state_dir()
        self.key = os.path.join(state_dir, "danger-gate", KEY_NAME)
        found = [
            (hooks_root, "hookmux's hooks tree", True),
            (state_dir, "hookmux's state (allowances)", True),
            (os.path.dirname(manifest.user_layer_path(env)), "your hookmux configuration", True),
            (os.path.join(_config_home(env, home), "hookmux"), "your hookmux configuration", True),
            (os.path.join(home, ".config", "hookmux"), "your hookmux configuration", True),
            (os.path.join(project, ".hookmux"), "the project's hookmux configuration", True),
        ]
        homes = {
            "{claude_home}": _absolute(env.get("CLAUDE_CONFIG_DIR")) or os.path.join(home, ".claude"),
            "{copilot_home}": _absolute(env.get("COPILOT_HOME")) or os.path.join(home, ".copilot"),
            "{codex_home}": _absolute(env.get("CODEX_HOME")) or os.path.join(home, ".codex"),
            "{gemini_home}": os.path.join(home, ".gemini"),
            "{cursor_home}": os.path.join(home, ".cursor"),
            "{opencode_home}": os.path.join(_config_home(env, home), "opencode"),
            "{pi_home}": _absolute(env.get("PI_CODING_AGENT_DIR")) or os.path.join(home, ".pi", "agent"),
            "{qwen_home}": os.path.join(home, ".qwen"),
            "{project}": project,
        }
        for host in hosts.HOSTS:
            for template in hosts.GUARD_FILES.get(host, ()):
                path = template
                for name, value in homes.items():
                    path = path.replace(name, value)
                found.append((path.rstrip("/"), "%s's hook settings" % host, template.endswith("/")))
        self.places = []
        seen = set()
        for path, what, folder in found:
            for variant in dict.fromkeys((os.path.normpath(path), targets.real(path))):
                if variant not in seen:
                    seen.add(variant)
                    self.places.append(Place(variant, what, folder))
        #: Names the ground goes by in code (``Path.home() / ".claude"``): each place's folder name
        #: under home, and its paths.
        names = {".claude", ".copilot", ".codex", ".gemini", ".cursor", "opencode", ".opencode", ".pi", ".qwen", "hookmux",
                 "danger-gate"}
        for place in self.places:
            names.add(place.path)
            if home and place.path.startswith(home.rstrip("/") + "/"):
                names.add(place.path[len(home.rstrip("/")) + 1:].split("/", 1)[0])
        self.names = tuple(sorted(name for name in names if name))

    def holding(self, path, whole=False):
        """The place ``path`` is or lies in (or, with ``whole``, one that ``path`` holds), or None."""
        for candidate in dict.fromkeys((path, _resolved(path))):
            for place in self.places:
                if candidate == place.path or place.folder and candidate.startswith(place.path + "/"):
                    return place
            if whole:
                prefix = candidate.rstrip("/") + "/"
                for place in self.places:
                    if place.path.startswith(prefix) and os.path.lexists(place.path):
                        return place
        return None

    def files(self, paths):
        out = []
        for path in paths:
            place = self.holding(os.path.normpath(path))
            if place is not None:
                out.append("%s (%s)" % (path, place.what))
        return out

    def shell(self, simple, here, scope):
        """What ``simple`` would change of the ground, or what weakens the guard: [] for nothing."""
        argv = simple.argv
        out = []
        sub = hookmux_subcommand(argv)
        if sub in WEAKENING:
            out.append("`hookmux %s`, which weakens the guard itself" % sub)
        for index, word in enumerate(argv):
            if "allowances" in word or any(char in word for char in "*?["):
                if self.key in targets.reach_parts(simple.words[index], here, scope):
                    out.append("the allowances' signing key %s (reading it lets anyone sign an allowance)" % self.key)
                    break
        written = [(parts, False) for parts in simple.write_words]
        program = argv[0] if argv else ""
        operands = _operands(argv)
        if program in _ALL_OPERANDS or program in _IN_PLACE and _in_place(argv):
            written += [(simple.words[i], program in _WHOLE) for i in operands]
        if program in _DESTINATION and operands:
            written += self._destinations(simple, operands, here, scope)
        if program == "dd":
            written += [(_literal(word[3:]), False) for word in argv[1:] if word.startswith("of=")]
        for parts, whole in written:
            for path in targets.reach_parts(parts, here, scope):
                place = self.holding(path, whole)
                if place is not None:
                    out.append("%s (%s)" % (path, place.what))
        if program in _INTERPRETERS or program.startswith("python"):
            code = " ".join(_code(argv))
            named = [name for name in self.names if name in code]
            if named and any(token in code for token in _WRITING_CODE):
                out.append("code that names %s and writes" % named[0])
            if "hookmux" in code and any(sub in code for sub in WEAKENING):
                out.append("code that runs hookmux's own commands")
        return list(dict.fromkeys(out))

    def _destinations(self, simple, operands, here, scope):
        argv = simple.argv
        target = _target_directory(argv)
        if target is not None:
            folder, sources = _literal(target), operands
        elif len(operands) >= 2:
            folder, sources = simple.words[operands[-1]], operands[:-1]
        else:
            return []
        out = [(folder, False)]
        for path in targets.reach_parts(folder, here, scope):
            if os.path.isdir(path) or argv[-1].endswith("/"):
                for index in sources:
                    name = os.path.basename(argv[index].rstrip("/"))
                    if name and argv[0] != "rsync" or not argv[index].endswith("/"):
                        out.append((_literal(os.path.join(path, name)), True))
                    else:
                        out.append((_literal(path), True))  # rsync src/ DEST: into DEST itself
        return out


def hookmux_subcommand(argv):
    """The subcommand when ``argv`` runs hookmux (in any launcher the reader keeps), else ""."""
    for index, word in enumerate(argv[:8]):
        name = shell.program_name(word)
        if (name == "hookmux" or name.startswith(("hookmux.", "hookmux==", "hookmux@"))) and \
                (index == 0 or _runs_hookmux(argv, index)):
            for rest in argv[index + 1:]:
                if not rest.startswith("-") and shell.program_name(rest) != "hookmux":
                    return rest
            return ""
        if index == 0 and not (name in _LAUNCHERS or name.startswith(("python", "pypy"))):
            return ""
    return ""


def _runs_hookmux(argv, index):
    """Whether ``argv[index]`` is the program a launcher starts: after ``python -m``, or a word of
    ``uvx``/``uv run``/``pipx run``... (not a script's argument: ``python3 x.py hookmux``)."""
    if argv[0].startswith(("python", "pypy")):
        return argv[index - 1] == "-m"
    return True


def _code(argv):
    """The code words of an interpreter's command line (``-c``/``-e``/``--eval`` values, awk's
    program): not a script file's arguments (``python3 x.py hookmux install``)."""
    out = []
    awk = argv[0].endswith("awk")
    for index in range(1, len(argv) - 1):
        word = argv[index]
        if word in ("-c", "-e", "-E", "--eval", "-p", "--print", "-r") or \
                word.startswith("-") and not word.startswith("--") and word.endswith("e") and len(word) > 2:
            out.append(argv[index + 1])
    if awk:
        operands = [argv[i] for i in _operands(argv)]
        out += operands[:1]
    return out


def _operands(argv):
    """Indexes of the words after the program that are not options (all of them after ``--``)."""
    out, options = [], True
    for index in range(1, len(argv)):
        word = argv[index]
        if options and word == "--":
            options = False
        elif options and word.startswith("-") and word != "-":
            continue
        else:
            out.append(index)
    return out


def _in_place(argv):
    return any(word == "--in-place" or word.startswith("--in-place=") or
               word.startswith("-") and not word.startswith("--") and "i" in word for word in argv[1:])


def _target_directory(argv):
    for index, word in enumerate(argv[1:], 1):
        if word.startswith("--target-directory="):
            return word.split("=", 1)[1]
        if word in ("-t", "--target-directory") and index + 1 < len(argv):
            return argv[index + 1]
    return None


def _literal(text):
    """A word of ``text`` as the reader's parts: a leading ``~`` expands, the rest as written."""
    if text.startswith("~/") or text == "~":
        return (("tilde", ""), ("lit", text[1:]))
    return (("lit", text),)


def _resolved(path):
    parent, name = os.path.split(path)
    return os.path.join(targets.real(parent), name) if name else targets.real(path)


def _absolute(value):
    return value if value and os.path.isabs(value) else ""


def _config_home(env, home):
    return _absolute(env.get("XDG_CONFIG_HOME")) or os.path.join(home, ".config")


def _project(cwd):
    import allowances

    return allowances.project_root(cwd)
