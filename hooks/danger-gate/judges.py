"""Would this simple command really lose something? One judge per ``loses`` value of a row.

    JUDGES[name](command, where) -> [what would be lost, ...]   ([] : nothing, or not known)

``command`` is one simple command of the shell reader (``argv``, and ``words``: each word's
parts, so a quoted ``~`` or ``*`` stays literal); ``where`` is the call's ``Where``: the folder the command runs in, the environment it sees,
the protected places, and the bounded git questions. A judge that cannot tell (git did
not answer, an operand it cannot resolve) finds nothing: the gate fails open and the
advisory still speaks.
"""
import os

import targets
from _common.shell_rules import GLOBAL_VALUE_OPTIONS

_BLOCK_DEVICE_PREFIXES = (
    "/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/disk", "/dev/rdisk",
    "/dev/md", "/dev/dm-", "/dev/mapper/", "/dev/root",
)
# Options of git itself that take a value as the next word (the rows' own table).
_GIT_VALUE_OPTIONS = GLOBAL_VALUE_OPTIONS["git"]
# find's words that do not narrow what -delete deletes.
_FIND_NEUTRAL = frozenset(("-delete", "-depth", "-xdev", "-mount", "-print", "-print0", "-ignore_readdir_race",
                           "-noleaf", "-daystart", "-follow"))
_FIND_NEUTRAL_VALUE = frozenset(("-mindepth", "-maxdepth"))
_FIND_EXEC = frozenset(("-exec", "-execdir", "-ok", "-okdir"))


class Where:
    """What the judges of one simple command need."""

    __slots__ = ("cwd", "env", "places", "git", "saved")

    def __init__(self, cwd, env, places, git, saved=None):
        self.cwd = cwd
        self.env = env
        self.places = places
        self.git = git
        #: projects (``allowances.project_root``) whose tracked changes an earlier command of the
        #: same call saved (``git stash``, ``git commit -a``): a later discard there loses nothing
        self.saved = saved or {}


def operand_indexes(argv, value_options=()):
    """Where the words after the program that are not options are (everything after ``--``)."""
    found, index = [], 1
    while index < len(argv):
        word = argv[index]
        if word == "--":
            found.extend(range(index + 1, len(argv)))
            break
        if word in value_options:
            index += 2
            continue
        if not (word.startswith("-") and len(word) > 1):
            found.append(index)
        index += 1
    return found


def operands(argv, value_options=()):
    """The words after the program that are not options (everything after ``--``)."""
    return [argv[index] for index in operand_indexes(argv, value_options)]


def reached(command, index, where):
    """The paths word ``index`` of ``command`` names, judged by its parts when the reader gave them."""
    parts = command.words[index]
    first = parts[0][1] if parts and parts[0][0] == "q" else ""
    if (first == "~" or first.startswith("~/")) and _library_call(command):
        # shutil.rmtree(os.path.expanduser('~/x')): the reader cannot see the expansion; take it.
        parts = (("tilde", ""), ("q", parts[0][1][1:])) + tuple(parts[1:])
    return targets.reach_parts(parts, where.cwd, where.env)


def _library_call(command):
    """Whether the command is a library call of a one-liner (origin ``python3 -c shutil.rmtree``)."""
    return bool(command.origin) and len(command.origin[-1].split()) == 3


def paths(command, where):
    """A recursive delete: each operand that reaches a protected place that is there."""
    return _protected([path for index in operand_indexes(command.argv) for path in reached(command, index, where)],
                      where)


def _protected(paths_reached, where):
    lost = []
    for path in paths_reached:
        why = targets.protected(path, where.places)
        if why and why not in lost and os.path.lexists(path):  # nothing there, nothing lost
            lost.append(why)
    return lost


def find_delete(command, where):
    """``find PATH... -delete`` (or ``-exec rm -r … {} ;|+``) with no test that narrows it: its
    start folders are deleted whole."""
    argv = command.argv
    index = 1
    while index < len(argv) and argv[index] in ("-H", "-L", "-P", "-E", "-X", "-d", "-s", "-x"):
        index += 1  # find's own options before the start folders (GNU, BSD)
    starts = []
    while index < len(argv) and not argv[index].startswith(("-", "(", "!")):
        starts.append(index)
        index += 1
    expression = argv[index:]
    skip, deletes, position = False, False, 0
    while position < len(expression):
        word = expression[position]
        position += 1
        if skip:
            skip = False
        elif word in _FIND_NEUTRAL_VALUE:
            skip = True
        elif word in _FIND_EXEC:
            end = position
            while end < len(expression) and expression[end] not in (";", "+"):
                end += 1
            if not _removes_recursively(expression[position:end]):
                return []
            deletes, position = True, end + 1
        elif word == "-delete":
            deletes = True
        elif word not in _FIND_NEUTRAL and not word.startswith(("-H", "-L", "-P")):
            return []
    if not deletes:
        return []
    if not starts:  # find with no folder: the current one
        return _protected(targets.reach(".", where.cwd, where.env), where)
    return _protected([path for index in starts for path in reached(command, index, where)], where)


def _removes_recursively(inner):
    """Whether the command of a find ``-exec`` is ``rm -r … {}``."""
    if not inner or inner[0].rsplit("/", 1)[-1] != "rm" or "{}" not in inner:
        return False
    return any(w == "--recursive" or w[:1] == "-" and w[1:2] != "-" and ("r" in w or "R" in w) for w in inner[1:])


def _is_block_device(path):
    return isinstance(path, str) and path.startswith(_BLOCK_DEVICE_PREFIXES)


def _devices(words, where):
    """The words that name a disk device, a ``$VAR`` the command or the host set taken at its value."""
    found = []
    for word in words:
        if "$" in word:
            word = targets.expand(word, where.env) or word
        if _is_block_device(word) and word not in found:
            found.append(word)
    return ["the disk device %s" % word for word in found]


def device_of(command, where):
    """``dd of=DEVICE``."""
    return _devices([word[3:] for word in command.argv[1:] if word.startswith("of=")], where)


def device_operand(command, where):
    """mkfs, wipefs, shred, blkdiscard ... given a disk device."""
    return _devices(operands(command.argv, ("-t", "-n", "-L", "-o", "-b")), where)


def device_written(command, where):
    """Output sent into a disk device: ``> /dev/sdb``, ``tee /dev/sdb``, ``cp IMAGE /dev/sdb``."""
    argv = command.argv
    written = list(command.writes)
    if argv[0] == "tee":
        written += operands(argv)
    elif argv[0] in ("cp", "install") and len(operands(argv)) >= 2:
        written.append(operands(argv)[-1])
    return _devices(written, where)


def git_parts(argv, cwd):
    """(the folder git works in, its subcommand, the subcommand's words) for a ``git`` argv."""
    index = 1
    while index < len(argv):
        word = argv[index]
        if word in _GIT_VALUE_OPTIONS:
            if word == "-C" and index + 1 < len(argv):
                target = argv[index + 1]
                cwd = os.path.join(cwd, target) if cwd or target.startswith("/") else None
            index += 2
        elif word.startswith("-"):
            index += 1
        else:
            return cwd, word, argv[index + 1:]
    return cwd, "", []


def _changes(where, cwd, paths=(), index_too=True):
    if where.saved and _project(cwd) in where.saved:
        return []  # `git stash && git reset --hard`: the changes were saved first
    found = where.git.changes(cwd, paths, index_too)
    return [found] if found else []


def _project(cwd):
    import allowances

    return allowances.project_root(cwd)


def saves(argv, cwd):
    """(folder, "stash" | "commit") when this git command saves the folder's tracked changes whole
    (``git stash``, ``stash push``/``save`` without a pathspec or ``--patch``/``--staged``/
    ``--keep-index``; ``commit -a``), (folder, "") when it brings them back (``stash pop``/``apply``),
    else None."""
    folder, sub, words = git_parts(argv, cwd)
    if not folder:
        return None
    if sub == "stash" and words and words[0] in ("pop", "apply"):
        return folder, ""
    return (folder, sub) if _saving(sub, words) else None


def _saving(sub, words):
    if sub == "stash":
        if words and words[0] not in ("push", "save", "-u", "--include-untracked", "-q", "--quiet", "-m", "--message"):
            return None
        partial = ("-p", "--patch", "-S", "--staged", "-k", "--keep-index", "--")
        return not any(w in partial or w.startswith("--pathspec") for w in words)
    return sub == "commit" and any(w in ("-a", "--all") or w[:1] == "-" and w[1:2] != "-" and "a" in w[1:]
                                   and not w[1:2].isdigit() for w in words)


def git_changes(command, where):
    """reset --hard, switch -f: any uncommitted change to a tracked file."""
    argv = command.argv
    cwd, _, _ = git_parts(argv, where.cwd)
    return _changes(where, cwd)


def git_checkout(command, where):
    """``checkout -f`` (everything), ``checkout [COMMIT] -- PATHS`` and ``checkout .`` (those paths)."""
    argv = command.argv
    cwd, _, words = git_parts(argv, where.cwd)
    if any(word in ("-f", "--force") or (word[:1] == "-" and word[1:2] != "-" and "f" in word[1:])
           for word in words if word != "--"):
        if "--" not in words and "-b" not in words and "-B" not in words:
            return _changes(where, cwd)
    if "--" in words:
        cut = words.index("--")
        pathspecs, before = words[cut + 1:], [w for w in words[:cut] if not w.startswith("-")]
        return _changes(where, cwd, pathspecs or ["."], index_too=bool(before)) if pathspecs else []
    if words and all(not w.startswith("-") for w in words) and words[-1] in (".", "./", ":/"):
        return _changes(where, cwd, [words[-1]], index_too=len(words) > 1)
    # ``checkout [COMMIT] FILE…`` without ``--``: the words that are files there are pathspecs
    # (a branch name is not a file: ``git checkout main`` switches and keeps the changes).
    plain = [w for w in words if not w.startswith("-")]
    if cwd and plain and len(plain) == len(words) and not any(w in ("-b", "-B", "--orphan") for w in words):
        files = [w for w in plain if os.path.lexists(os.path.join(cwd, w))]
        from_commit = plain[0] not in files
        if files and len(files) == len(plain) - from_commit:
            return _changes(where, cwd, files, index_too=from_commit)
    return []


def git_restore(command, where):
    """``restore`` of the work tree (the default; ``--staged`` alone touches the index only)."""
    argv = command.argv
    cwd, _, words = git_parts(argv, where.cwd)
    staged = any(w in ("--staged", "-S") for w in words)
    worktree = any(w in ("--worktree", "-W") for w in words)
    if staged and not worktree:
        return []
    source = any(w.startswith(("--source", "-s")) for w in words)
    pathspecs = operands(["restore", *words], ("--source", "-s", "--pathspec-from-file"))
    if not pathspecs:
        return []
    return _changes(where, cwd, pathspecs, index_too=source)


def git_clean(command, where):
    """``clean -f``: what git's own dry run of the same command lists."""
    argv = command.argv
    cwd, _, words = git_parts(argv, where.cwd)
    if any(w in ("-n", "--dry-run") or (w[:1] == "-" and w[1:2] != "-" and "n" in w[1:]) for w in words):
        return []
    found = where.git.cleanable(cwd, words)
    return [found] if found else []


def git_stash(command, where):
    """``stash clear`` (every entry) and ``stash drop [ENTRY]`` (that one, the latest by default)."""
    argv = command.argv
    cwd, _, words = git_parts(argv, where.cwd)
    if not words or words[0] not in ("clear", "drop"):
        return []
    if where.saved and where.saved.get(_project(cwd)) == "stash" and where.git.changes(cwd):
        return ["the changes an earlier `git stash` of this command saves"]
    if words[0] == "clear":
        found = where.git.stashes(cwd)
    else:
        named = [w for w in words[1:] if not w.startswith("-")]
        found = where.git.stashes(cwd, named[0] if named else "stash@{0}")
    return [found] if found else []


def always(command, where):
    """A user's row that blocks whenever it matches."""
    return ["what this row protects"]


JUDGES = {
    "paths": paths,
    "find-delete": find_delete,
    "device-of": device_of,
    "device-operand": device_operand,
    "device-written": device_written,
    "git-changes": git_changes,
    "git-checkout": git_checkout,
    "git-restore": git_restore,
    "git-clean": git_clean,
    "git-stash": git_stash,
    "always": always,
}
