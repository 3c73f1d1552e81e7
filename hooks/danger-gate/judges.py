"""Would this simple command really lose something? One judge per ``loses`` value of a row.

    JUDGES[name](argv, where) -> [what would be lost, ...]   ([] : nothing, or not known)

``where`` is the call's ``Where``: the folder the command runs in, the environment it sees,
the protected places, and the bounded git questions. A judge that cannot tell (git did
not answer, an operand it cannot resolve) finds nothing: the gate fails open and the
advisory still speaks.
"""
import os

import targets

_BLOCK_DEVICE_PREFIXES = (
    "/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/disk", "/dev/rdisk",
    "/dev/md", "/dev/dm-", "/dev/mapper/", "/dev/root",
)
# Options of git itself that take a value as the next word.
_GIT_VALUE_OPTIONS = ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env")
# find's words that do not narrow what -delete deletes.
_FIND_NEUTRAL = frozenset(("-delete", "-depth", "-xdev", "-mount", "-print", "-print0", "-ignore_readdir_race",
                           "-noleaf", "-daystart", "-follow"))
_FIND_NEUTRAL_VALUE = frozenset(("-mindepth", "-maxdepth"))


class Where:
    """What the judges of one simple command need."""

    __slots__ = ("cwd", "env", "places", "git")

    def __init__(self, cwd, env, places, git):
        self.cwd = cwd
        self.env = env
        self.places = places
        self.git = git


def operands(argv, value_options=()):
    """The words after the program that are not options (everything after ``--``)."""
    found, index, words = [], 1, argv
    while index < len(words):
        word = words[index]
        if word == "--":
            found.extend(words[index + 1:])
            break
        if word in value_options:
            index += 2
            continue
        if not (word.startswith("-") and len(word) > 1):
            found.append(word)
        index += 1
    return found


def paths(argv, where):
    """A recursive delete: each operand that reaches a protected place."""
    lost = []
    for operand in operands(argv):
        for path in targets.reach(operand, where.cwd, where.env):
            why = targets.protected(path, where.places)
            if why and why not in lost:
                lost.append(why)
    return lost


def find_delete(argv, where):
    """``find PATH... -delete`` with no test that narrows it: its start folders are deleted whole."""
    if "-delete" not in argv:
        return []
    starts, index = [], 1
    while index < len(argv) and not argv[index].startswith(("-", "(", "!")):
        starts.append(argv[index])
        index += 1
    expression = argv[index:]
    skip = False
    for word in expression:
        if skip:
            skip = False
            continue
        if word in _FIND_NEUTRAL_VALUE:
            skip = True
        elif word not in _FIND_NEUTRAL and not word.startswith(("-H", "-L", "-P")):
            return []
    lost = []
    for start in starts or ["."]:
        for path in targets.reach(start, where.cwd, where.env):
            why = targets.protected(path, where.places)
            if why and why not in lost:
                lost.append(why)
    return lost


def _is_block_device(path):
    return isinstance(path, str) and path.startswith(_BLOCK_DEVICE_PREFIXES)


def device_of(argv, where):
    """``dd of=DEVICE``."""
    return ["the disk device %s" % word[3:] for word in argv[1:] if word.startswith("of=") and _is_block_device(word[3:])]


def device_operand(argv, where):
    """mkfs, wipefs, shred ... given a disk device."""
    return ["the disk device %s" % word for word in operands(argv, ("-t", "-n", "-L", "-o", "-b")) if _is_block_device(word)]


def git_parts(argv, cwd):
    """(the folder git works in, its subcommand, the subcommand's words) for a ``git`` argv."""
    index = 1
    while index < len(argv):
        word = argv[index]
        if word in _GIT_VALUE_OPTIONS:
            if word == "-C" and index + 1 < len(argv):
                cwd = os.path.join(cwd, argv[index + 1])
            index += 2
        elif word.startswith("-"):
            index += 1
        else:
            return cwd, word, argv[index + 1:]
    return cwd, "", []


def _changes(where, cwd, paths=(), index_too=True):
    found = where.git.changes(cwd, paths, index_too)
    return [found] if found else []


def git_changes(argv, where):
    """reset --hard, switch -f: any uncommitted change to a tracked file."""
    cwd, _, _ = git_parts(argv, where.cwd)
    return _changes(where, cwd)


def git_checkout(argv, where):
    """``checkout -f`` (everything), ``checkout [COMMIT] -- PATHS`` and ``checkout .`` (those paths)."""
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
    return []


def git_restore(argv, where):
    """``restore`` of the work tree (the default; ``--staged`` alone touches the index only)."""
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


def git_clean(argv, where):
    """``clean -f``: what git's own dry run of the same command lists."""
    cwd, _, words = git_parts(argv, where.cwd)
    if any(w in ("-n", "--dry-run") or (w[:1] == "-" and w[1:2] != "-" and "n" in w[1:]) for w in words):
        return []
    found = where.git.cleanable(cwd, words)
    return [found] if found else []


def git_stash(argv, where):
    """``stash clear`` (every entry) and ``stash drop [ENTRY]`` (that one, the latest by default)."""
    cwd, _, words = git_parts(argv, where.cwd)
    if not words or words[0] not in ("clear", "drop"):
        return []
    if words[0] == "clear":
        found = where.git.stashes(cwd)
    else:
        named = [w for w in words[1:] if not w.startswith("-")]
        found = where.git.stashes(cwd, named[0] if named else "stash@{0}")
    return [found] if found else []


def always(argv, where):
    """A user's row that blocks whenever it matches."""
    return ["what this row protects"]


JUDGES = {
    "paths": paths,
    "find-delete": find_delete,
    "device-of": device_of,
    "device-operand": device_operand,
    "git-changes": git_changes,
    "git-checkout": git_checkout,
    "git-restore": git_restore,
    "git-clean": git_clean,
    "git-stash": git_stash,
    "always": always,
}
