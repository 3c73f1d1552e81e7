"""Would this simple command really lose something? One judge per ``loses`` value of a row.

    JUDGES[name](command, where) -> [what would be lost, ...]   ([] : nothing, or not known)

``command`` is one simple command of the shell reader (``argv``, and ``words``: each word's
parts, so a quoted ``~`` or ``*`` stays literal); ``where`` is the call's ``Where``: the folder the command runs in, the environment it sees,
the protected places, and the bounded git questions. A judge that cannot tell (git did
not answer, an operand it cannot resolve) finds nothing: the gate fails open and the
advisory still speaks.
"""
import os

import data_judges
import targets
from _common.shell_rules import GLOBAL_VALUE_OPTIONS, regenerable, regenerable_path

_BLOCK_DEVICE_PREFIXES = (
    "/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/disk", "/dev/rdisk",
    "/dev/md", "/dev/dm-", "/dev/mapper/", "/dev/root",
)
# Options of git itself that take a value as the next word (the rows' own table).
_GIT_VALUE_OPTIONS = GLOBAL_VALUE_OPTIONS["git"]
# find's words that do not narrow what -delete deletes.
_FIND_NEUTRAL = frozenset(("-delete", "-depth", "-xdev", "-mount", "-print", "-print0", "-ignore_readdir_race",
                           "-noleaf", "-daystart", "-follow"))
_FIND_NEUTRAL_VALUE = frozenset(("-mindepth", "-maxdepth", "-type", "-xtype"))
_FIND_EXEC = frozenset(("-exec", "-execdir", "-ok", "-okdir"))


class Where:
    """What the judges of one simple command need."""

    __slots__ = ("cwd", "env", "places", "git", "saved", "program_env", "stash_before", "feeder", "carried")

    def __init__(self, cwd, env, places, git, saved=None, program_env=None, stash_before=None, feeder=None,
                 carried=()):
        self.cwd = cwd
        #: the variables the shell expands the command's words with
        self.env = env
        #: the environment the program starts with (the command's prefix assignments over ``env``)
        self.program_env = env if program_env is None else program_env
        self.places = places
        self.git = git
        #: projects (``allowances.project_root``) whose tracked changes an earlier command of the
        #: same call saved (``git stash``, ``git commit -a``): a later discard there loses nothing
        self.saved = saved or {}
        #: (project, "apply" | "pop", entry) of the ``git stash`` that must succeed for this
        #: command to run (``git stash apply && git stash drop``: ``stash_step``), or None
        self.stash_before = stash_before
        #: the simple command whose output is this one's stdin (``cat .env | nc host``), or None
        self.feeder = feeder
        #: what earlier commands of the call moved or linked (``targets.carries``)
        self.carried = carried


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
    return targets.reach_parts(parts, where.cwd, where.env, where.carried)


def _library_call(command):
    """Whether the command is a library call of a one-liner (origin ``python3 -c shutil.rmtree``)."""
    return bool(command.origin) and len(command.origin[-1].split()) == 3


#: At most this many folders of one rm are asked about (the git questions share one deadline).
MAX_WORKTREE_QUESTIONS = 4


def judge(row, command, where, operands=None):
    """The row's judge on ``command``: ``operands`` (operands.py, from the row's data) picks the
    words a ``paths`` or ``emptied`` judge asks about; without it, every operand (``rm``)."""
    if operands is None:
        return JUDGES[row["loses"]](command, where)
    return JUDGES[row["loses"]](command, where, operands)


def _targets(command, where, operands):
    """(word index or None, [paths]) of each word the command destroys."""
    if operands is not None:
        return operands.targets(command, where)
    return [(index, reached(command, index, where)) for index in operand_indexes(command.argv)]


def paths(command, where, operands=None):
    """A recursive delete: each operand that reaches a protected place that is there, and the
    uncommitted changes to tracked files below an operand in a git work tree (``rm -rf src``
    loses them as ``git checkout -- src`` would; committed files come back from git)."""
    found = _targets(command, where, operands)
    reached_paths = [path for _, paths_reached in found for path in paths_reached]
    lost = _protected(reached_paths, where)
    lost += _worktree_changes(reached_paths[:MAX_WORKTREE_QUESTIONS], where)
    lost += [why for why in _repository_lost(reached_paths[:MAX_WORKTREE_QUESTIONS], where) if why not in lost]
    if operands is not None and operands.files:  # tar, zip: a file named is judged as rm judges it
        lost += [why for why in _files_lost(command, where, operands, found) if why not in lost]
    return lost


def _worktree_changes(reached_paths, where):
    import allowances

    lost = []
    for path in reached_paths:
        if not os.path.isdir(path) or os.path.islink(path):
            continue
        root = allowances.project_root(path)
        resolved = targets.real(path)
        if not os.path.exists(os.path.join(root, ".git")) or resolved == os.path.join(root, ".git") \
                or not (resolved + "/").startswith(root + "/") or _repository_of(resolved):
            continue  # a repository or its .git removed whole: _repository_lost
        if where.saved and root in where.saved:
            continue  # `git stash && rm -rf src`: saved first
        found = where.git.changes(Repo(root, "", [], (), None), [os.path.relpath(resolved, root) or "."])
        if found and found not in lost:
            lost.append(found)
    return lost


def _repository_of(resolved):
    """(the work tree, whether it goes too) when removing the folder ``resolved`` removes a
    repository whole (it holds a ``.git`` folder) or its ``.git`` folder; None otherwise."""
    if os.path.basename(resolved) == ".git" and os.path.isfile(os.path.join(resolved, "HEAD")):
        return os.path.dirname(resolved), False
    if os.path.isdir(os.path.join(resolved, ".git")) and not os.path.islink(os.path.join(resolved, ".git")):
        return resolved, True
    return None


def _repository_lost(reached_paths, where):
    """Removing a repository whole or its ``.git`` (issue 39): the stash entries and the commits
    on no remote go with it; the repository whole takes its uncommitted changes and untracked
    files (less regenerable output) too."""
    lost = []
    for path in reached_paths:
        if not os.path.isdir(path) or os.path.islink(path):
            continue
        found = _repository_of(targets.real(path))
        if found is None or where.saved and found[0] in where.saved:
            continue
        tree, whole = found
        repo = Repo(tree, "", [], (), None)
        answers = [where.git.unpushed(repo), where.git.stashes(repo)]
        if whole:
            answers.append(where.git.unsaved(repo, lambda name: _regenerable_below(tree, name)))
        lost += ["%s in %s" % (answer, tree) for answer in answers if answer]
    return lost


def emptied(command, where, operands=None):
    """Any ``rm`` (or what ``truncate``, ``shred``, ``cp`` empty or overwrite): a glob that takes
    everything in a protected folder (``~/.ssh/*``, ``/etc/*``), or a precious file (``~/.ssh/id_ed25519``)."""
    found = _targets(command, where, operands)
    lost = []
    for index, reached_paths in found:
        for why in _emptied(command, index, reached_paths, where):
            if why not in lost:
                lost.append(why)
    if operands is not None and operands.uncommitted:
        lost += [why for why in _file_changes(operands.unsaved(command, where, found), where) if why not in lost]
    return lost


def _files_lost(command, where, operands, found):
    """``emptied``'s answer for the picked operands that are files (a private key, changes)."""
    files = [(index, [path for path in paths if os.path.isfile(path)]) for index, paths in found]
    lost = [why for _, paths in files for path in paths for why in [targets.precious(path, where.places)] if why]
    if operands.uncommitted:
        lost += _file_changes([path for _, paths in files for path in paths], where)
    return lost


def _file_changes(files, where):
    """The uncommitted changes in the work tree of the tracked ``files`` (one git question a
    repository, at most ``MAX_WORKTREE_QUESTIONS``): what emptying them loses. Staged changes
    stay in the index, untracked files are not judged (as ``rm FILE`` is not)."""
    import allowances

    by_root = {}
    for path in files:
        resolved = targets.real(path)
        root = allowances.project_root(os.path.dirname(resolved))
        if not os.path.exists(os.path.join(root, ".git")) or not (resolved + "/").startswith(root + "/") \
                or "/.git/" in resolved[len(root):] + "/":
            continue
        if where.saved and root in where.saved:
            continue  # `git stash && : > f`: saved first
        by_root.setdefault(root, []).append(os.path.relpath(resolved, root))
    lost = []
    for root in list(by_root)[:MAX_WORKTREE_QUESTIONS]:
        found = where.git.changes(Repo(root, "", [], (), None), by_root[root], index_too=False)
        if found and found not in lost:
            lost.append(found)
    return lost


def _emptied(command, index, reached_paths, where):
    """What deleting ``reached_paths`` (word ``index``) loses below a protected folder: all that a
    glob left in it (hidden names aside, as sh), or a precious file."""
    lost = [targets.precious(path, where.places) for path in reached_paths if os.path.isfile(path)]
    lost = [why for why in lost if why]
    globbed = index is not None and any(kind == "lit" and "*" in value for kind, value in command.words[index])
    if globbed and reached_paths and all(os.path.lexists(path) for path in reached_paths):
        folder = os.path.dirname(reached_paths[0])
        if all(os.path.dirname(path) == folder for path in reached_paths):
            why = targets.holder(targets.real(folder), where.places)  # `rm -r link/*` empties what it points to
            try:
                names = [name for name in os.listdir(folder) if not name.startswith(".")]
            except OSError:
                names = None
            if why and names and set(os.path.join(folder, name) for name in names) <= set(reached_paths):
                lost.append("everything in %s" % why)
    return lost


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
    """mkfs, wipefs, shred, blkdiscard ... given a disk device; a ``wipefs`` that only lists the
    signatures (no ``-a``/``--all``/``-o``/``--offset``, or ``-n``/``--no-act``) loses nothing."""
    if command.argv[0] == "wipefs" and not _wipefs_erases(command.argv[1:]):
        return []
    return _devices(operands(command.argv, ("-t", "-n", "-L", "-o", "-b")), where)


def _wipefs_erases(words):
    erases = False
    for word in words:
        if word == "--":
            break
        if word in ("-n", "--no-act") or word.startswith("-") and not word.startswith("--") and "n" in word[1:]:
            return False
        if word in ("--all", "--offset") or word.startswith("--offset=") or word.startswith("--") and \
                len(word) > 3 and ("--all".startswith(word) or "--offset".startswith(word)):
            erases = True
        elif word.startswith("-") and not word.startswith("--") and ("a" in word[1:] or "o" in word[1:]):
            erases = True
    return erases


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


class Unjudgeable(Exception):
    """The command names a repository, an option or a setting the gate cannot ask git about
    without running the command's own words: it is denied ("cannot judge this safely")."""


# git's own options that change nothing of what a discard loses (passed on: each is read-only
# for the questions), and those that only change output or prompts (dropped).
_GIT_PATHSPEC_OPTIONS = frozenset(("--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs",
                                   "--icase-pathspecs"))
_GIT_NEUTRAL_OPTIONS = frozenset(("-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--no-lazy-fetch",
                                  "--no-optional-locks", "--no-advice"))
# ``-c KEY=VALUE`` settings that cannot change which files a discard touches.
_GIT_NEUTRAL_SETTINGS = ("user.", "color.", "advice.", "pager.", "core.pager", "core.quotepath", "core.editor",
                         "commit.", "gpg.", "i18n.", "log.", "format.", "credential.", "http.", "protocol.",
                         "init.", "push.", "fetch.", "pull.", "merge.", "diff.", "gc.", "maintenance.")
# ``-c`` settings a judge reads itself (``git -c clean.requireForce=false clean -dx`` deletes).
_GIT_READ_SETTINGS = ("clean.requireforce",)
# Variables of the program's environment that pick the repository: taken at their value.
_GIT_REPO_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")
# Variables that do not change what is lost; any other GIT_* the command sets is not judged.
_GIT_NEUTRAL_VARIABLES = ("GIT_PAGER", "GIT_TERMINAL_PROMPT", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_AUTHOR_",
                          "GIT_COMMITTER_", "GIT_TRACE", "GIT_SSH", "GIT_ASKPASS", "GIT_OPTIONAL_LOCKS",
                          "GIT_ADVICE", "GIT_FLUSH", "GIT_PROGRESS_DELAY", "GIT_MERGE_VERBOSITY")


class Repo:
    """The repository one git command works on, as fixed arguments of hookmux's own questions."""

    __slots__ = ("cwd", "sub", "words", "args", "index_file", "settings")

    def __init__(self, cwd, sub, words, args, index_file, settings=None):
        self.cwd = cwd
        self.sub = sub
        self.words = words
        #: ``--git-dir=ABS``, ``--work-tree=ABS`` and pathspec options, in git's own order
        self.args = tuple(args)
        #: the absolute GIT_INDEX_FILE, or None
        self.index_file = index_file
        #: the command's own ``-c`` settings a judge reads (``_GIT_READ_SETTINGS``, lower-case
        #: key -> value; None for a ``--config-env`` one, whose value is not known)
        self.settings = settings or {}


def git_repo(command, where):
    """The Repo of a ``git`` command as git would see it: ``-C`` moves first, then ``--git-dir``/
    ``--work-tree`` and the program's GIT_DIR/GIT_WORK_TREE/GIT_INDEX_FILE (the command's prefix
    assignments included) pick the repository. Raises Unjudgeable for an option or setting it
    does not know, a repository it cannot resolve; None when there is no folder to ask in."""
    argv = command.argv
    cwd = where.cwd
    given = {}
    passed = []
    settings = {}
    index = 1
    while index < len(argv):
        word = argv[index]
        name, eq, value = word.partition("=")
        if not word.startswith("-"):
            break
        if name in ("-C", "-c", "--git-dir", "--work-tree", "--config-env") and not eq:
            if index + 1 >= len(argv):
                raise Unjudgeable(word)
            value = argv[index + 1]
            index += 2
        elif name in ("--git-dir", "--work-tree", "--config-env") or word in _GIT_PATHSPEC_OPTIONS \
                or word in _GIT_NEUTRAL_OPTIONS:
            index += 1
        else:
            raise Unjudgeable(word)
        if name == "-C":
            target = _one_path(value, cwd, where)
            cwd = target
        elif name in ("-c", "--config-env"):
            key = value.split("=", 1)[0].lower()
            if key in _GIT_READ_SETTINGS:
                settings[key] = value.split("=", 1)[1] if name == "-c" and "=" in value else None
            elif not key.startswith(_GIT_NEUTRAL_SETTINGS):
                raise Unjudgeable("%s %s" % (name, value.split("=", 1)[0]))
        elif name == "--git-dir":
            given["GIT_DIR"] = _one_path(value, cwd, where)
        elif name == "--work-tree":
            given["GIT_WORK_TREE"] = _one_path(value, cwd, where)
        elif word in _GIT_PATHSPEC_OPTIONS:
            passed.append(word)
    if index >= len(argv) or not cwd:
        return None
    for variable, value in sorted(command.assigns.items()):
        if variable.startswith("GIT_") and variable not in _GIT_REPO_VARIABLES \
                and not variable.startswith(_GIT_NEUTRAL_VARIABLES):
            raise Unjudgeable(variable)
    for variable in _GIT_REPO_VARIABLES:
        value = where.program_env.get(variable)
        if value and variable not in given:
            given[variable] = _one_path(value, cwd, where)
    args = []
    if "GIT_DIR" in given:
        args.append("--git-dir=" + given["GIT_DIR"])
    if "GIT_WORK_TREE" in given:
        args.append("--work-tree=" + given["GIT_WORK_TREE"])
    return Repo(cwd, argv[index], list(argv[index + 1:]), args + passed, given.get("GIT_INDEX_FILE"), settings)


def _one_path(value, cwd, where):
    """The one absolute path a repository word names (``~``, ``$VAR`` resolved), else Unjudgeable."""
    if "$(" in value or "`" in value or not cwd:
        raise Unjudgeable(value)
    text = targets.expand(value, where.env) if ("$" in value or value.startswith("~")) else value
    if not text or "$" in text:
        raise Unjudgeable(value)
    return os.path.normpath(os.path.join(cwd, text))


def cannot_judge(what):
    return ["what it touches: hookmux cannot judge `%s` safely here (ask the user, or run the command "
            "without it)" % what]


def _changes(where, repo, paths=(), index_too=True):
    if where.saved and _project(repo.cwd) in where.saved and not repo.args:
        return []  # `git stash && git reset --hard`: the changes were saved first
    found = where.git.changes(repo, paths, index_too)
    return [found] if found else []


def _judged(judge):
    """A git judge given the command's Repo (None: no folder, nothing known); an option or a
    repository it cannot resolve is a finding of its own."""
    def run(command, where):
        try:
            repo = git_repo(command, where)
        except Unjudgeable as what:
            return cannot_judge(str(what))
        if repo is None:
            return []
        try:
            return judge(repo, where)
        except Unjudgeable as what:
            return cannot_judge(str(what))
    run.__name__ = judge.__name__
    run.__doc__ = judge.__doc__
    return run


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


@_judged
def git_changes(repo, where):
    """reset --hard, switch -f: any uncommitted change to a tracked file."""
    return _changes(where, repo)


@_judged
def git_checkout(repo, where):
    """``checkout -f`` (everything), ``checkout [COMMIT] -- PATHS`` and ``checkout .`` (those paths)."""
    cwd, words = repo.cwd, repo.words
    if any(word in ("-f", "--force") or (word[:1] == "-" and word[1:2] != "-" and "f" in word[1:])
           for word in words if word != "--"):
        if "--" not in words:  # `checkout -f [-b|-B|--orphan NAME] [COMMIT]`: the tree becomes COMMIT's
            return _changes(where, repo)
    if "--" in words:
        cut = words.index("--")
        pathspecs, before = words[cut + 1:], [w for w in words[:cut] if not w.startswith("-")]
        return _changes(where, repo, pathspecs or ["."], index_too=bool(before)) if pathspecs else []
    if words and all(not w.startswith("-") for w in words) and words[-1] in (".", "./", ":/"):
        return _changes(where, repo, [words[-1]], index_too=len(words) > 1)
    # ``checkout [COMMIT] FILE…`` without ``--``: the words that are files there are pathspecs
    # (a branch name is not a file: ``git checkout main`` switches and keeps the changes).
    plain = [w for w in words if not w.startswith("-")]
    if cwd and plain and len(plain) == len(words) and not any(w in ("-b", "-B", "--orphan") for w in words):
        files = [w for w in plain if os.path.lexists(os.path.join(cwd, w))]
        from_commit = plain[0] not in files
        if files and len(files) == len(plain) - from_commit:
            return _changes(where, repo, files, index_too=from_commit)
    return []


@_judged
def git_restore(repo, where):
    """``restore`` of the work tree (the default; ``--staged`` alone touches the index only)."""
    words = repo.words
    staged = any(w in ("--staged", "-S") for w in words)
    worktree = any(w in ("--worktree", "-W") for w in words)
    if staged and not worktree:
        return []
    source = any(w.startswith(("--source", "-s")) for w in words)
    pathspecs = operands(["restore", *words], ("--source", "-s", "--pathspec-from-file"))
    if not pathspecs:
        return []
    return _changes(where, repo, pathspecs, index_too=source)


# ``git clean``'s options, as hookmux asks about them (git's parse-options also takes any
# unambiguous prefix of a long option and ``--no-`` forms: those are not judged, so denied).
_CLEAN_LETTERS = frozenset("dfxXnqie")


def clean_question(words):
    """hookmux's own dry run for ``git clean WORDS``: ``clean --dry-run`` with the options of
    the model (directories, force twice, ``-x``/``-X``, excludes) and the pathspecs after ``--``;
    None for a dry run of the user's (nothing is deleted). Raises Unjudgeable for any other option."""
    dirs, force, ignored, only_ignored, dry = False, 0, False, False, False
    excludes, pathspecs = [], []
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            pathspecs.extend(words[index:])
            break
        if word in ("--exclude", "-e"):
            if index >= len(words):
                raise Unjudgeable(word)
            excludes.append(words[index])
            index += 1
        elif word.startswith("--exclude="):
            excludes.append(word[len("--exclude="):])
        elif word == "--force":
            force += 1
        elif word == "--dry-run":
            dry = True
        elif word in ("--quiet", "--interactive"):
            pass
        elif word.startswith("--"):
            raise Unjudgeable(word)
        elif word.startswith("-") and len(word) > 1:
            letters = word[1:]
            for position, letter in enumerate(letters):
                if letter not in _CLEAN_LETTERS:
                    raise Unjudgeable(word)
                if letter == "e":
                    rest = letters[position + 1:]
                    if not rest:
                        if index >= len(words):
                            raise Unjudgeable(word)
                        rest = words[index]
                        index += 1
                    excludes.append(rest)
                    break
                dirs = dirs or letter == "d"
                force += letter == "f"
                ignored = ignored or letter == "x"
                only_ignored = only_ignored or letter == "X"
                dry = dry or letter == "n"
        else:
            pathspecs.append(word)
    if dry:
        return None
    args = ["clean", "--dry-run"]
    args += ["-d"] if dirs else []
    args += ["-f", "-f"] if force >= 2 else []  # twice: nested repositories too
    args += ["-x"] if ignored else []
    args += ["-X"] if only_ignored else []
    args += ["--exclude=" + pattern for pattern in excludes]
    return args + ["--", *pathspecs]


@_judged
def git_clean(repo, where):
    """``clean -f``: what hookmux's dry run of the same cleaning lists (``clean_question``),
    less regenerable output (``node_modules/``, ``dist/``, caches: ``shell_rules.REGENERABLE_NAMES``)."""
    question = clean_question(repo.words)
    if question is None:
        return []
    found = where.git.cleanable(repo, question, lambda path: _regenerable_below(repo.cwd, path))
    return [found] if found else []


def _regenerable_below(cwd, path, limit=2000):
    """Whether ``path`` (untracked, as git clean names it from ``cwd``) is regenerable output, or
    a folder holding some and nothing else, up to ``limit`` files looked at (``src/`` with only
    ``__pycache__/``). An empty folder is not: a named place counts even when empty, as for rm."""
    if regenerable_path(path, untracked=True):
        return True
    if not path.endswith("/"):
        return False
    top = os.path.join(cwd, path)
    seen, some = 0, False
    for folder, dirs, files in os.walk(top):
        below = os.path.relpath(folder, top)
        kept = [name for name in dirs if not regenerable(name, untracked=True)]
        some = some or len(kept) < len(dirs)
        dirs[:] = kept  # all of a regenerable folder goes, and all of it comes back
        for name in files:
            seen += 1
            if seen > limit or not regenerable_path(os.path.join(below, name), untracked=True):
                return False
            some = True
    return some


def stash_step(argv, cwd):
    """(project, "apply" | "pop", entry) for a ``git stash apply|pop [ENTRY]``, else None."""
    folder, sub, words = git_parts(argv, cwd)
    if not folder or sub != "stash" or not words or words[0] not in ("apply", "pop"):
        return None
    named = [w for w in words[1:] if not w.startswith("-")]
    return _project(folder), words[0], named[0] if named else "stash@{0}"


def _stash_index(entry):
    """N of ``stash@{N}`` or ``N``, else None (a commit id: not followed)."""
    if entry.startswith("stash@{") and entry.endswith("}"):
        entry = entry[len("stash@{"):-1]
    return int(entry) if entry.isdigit() else None


@_judged
def git_stash(repo, where):
    """``stash clear`` (every entry) and ``stash drop [ENTRY]`` (that one, the latest by default).
    A drop that runs only once a ``stash apply`` of the same entry succeeded loses nothing (its
    changes are in the work tree); after a ``stash pop`` (which dropped its entry) it takes the
    entry that moved into its place. A conflicted apply or pop fails, and git keeps the entry."""
    words = repo.words
    if not words or words[0] not in ("clear", "drop"):
        return []
    if where.saved and where.saved.get(_project(repo.cwd)) == "stash" and where.git.changes(repo):
        return ["the changes an earlier `git stash` of this command saves"]
    if words[0] == "clear":
        found = where.git.stashes(repo)
    else:
        named = [w for w in words[1:] if not w.startswith("-")]
        which = named[0] if named else "stash@{0}"
        step = where.stash_before
        if step and step[0] == _project(repo.cwd) and not repo.args:
            applied, dropped = _stash_index(step[2]), _stash_index(which)
            if applied is not None and dropped is not None:
                if step[1] == "apply" and dropped == applied:
                    return []  # `git stash apply && git stash drop`: applied, then dropped
                if step[1] == "pop":
                    which = "stash@{%d}" % (dropped if dropped < applied else dropped + 1)
        found = where.git.stashes(repo, which)
    return [found] if found else []


def _options(words, letters, longs, values=()):
    """(the options of ``words`` as a set of their long or one-letter names, the operands): short
    options may be combined (``-af``), a long one may be abbreviated as git takes it (``--forc``)
    or carry ``=VALUE``; ``values`` take the next word (or ``=VALUE``), kept as ``NAME=VALUE``.
    Raises Unjudgeable for any other option: the model does not know what it does."""
    found, operands_found, index = set(), [], 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            operands_found.extend(words[index:])
            break
        if word.startswith("--"):
            name, eq, value = word.partition("=")
            full = [option for option in longs + values if option == name] or \
                [option for option in longs + values if len(name) > 3 and option.startswith(name)]
            if len(full) != 1:
                raise Unjudgeable(word)
            if full[0] in values:
                if not eq:
                    if index >= len(words):
                        raise Unjudgeable(word)
                    value, index = words[index], index + 1
                found.add(full[0] + "=" + value)
            elif eq:
                raise Unjudgeable(word)
            else:
                found.add(full[0])
        elif word.startswith("-") and len(word) > 1:
            for letter in word[1:]:
                if letter not in letters:
                    raise Unjudgeable(word)
                found.add("-" + letter)
        else:
            operands_found.append(word)
    return found, operands_found


def _valued(found, name):
    """The value of option ``name`` in ``_options``' set, or None."""
    for option in found:
        if option.startswith(name + "="):
            return option[len(name) + 1:]
    return None


@_judged
def git_read_tree(repo, where):
    """``read-tree -u --reset TREE``: the index and the work tree become TREE's, uncommitted
    changes to tracked files go (``-m -u`` refuses over them; ``-n`` only tries)."""
    found, _ = _options(repo.words, "muivnq", ("--reset", "--trivial", "--aggressive", "--dry-run", "--empty",
                                               "--no-sparse-checkout", "--quiet", "--recurse-submodules",
                                               "--no-recurse-submodules"),
                        ("--prefix", "--index-output", "--exclude-per-directory", "--super-prefix"))
    if "-u" not in found or "--reset" not in found or found & {"-n", "--dry-run"}:
        return []
    return _changes(where, repo)


@_judged
def git_checkout_index(repo, where):
    """``checkout-index -f (-a | --stdin | FILE…)``: the index's copy over the work tree's files,
    their unstaged changes go (without ``-f`` git keeps the files there; ``--temp`` and a
    ``--prefix`` elsewhere write other files)."""
    found, files = _options(repo.words, "afuqnz", ("--all", "--force", "--index", "--quiet", "--no-create", "--stdin",
                                                   "--temp", "--ignore-skip-worktree-bits"),
                            ("--prefix", "--stage"))
    prefix = _valued(found, "--prefix")
    if not found & {"-f", "--force"} or "--temp" in found or prefix not in (None, "", ".", "./"):
        return []
    if found & {"-a", "--all", "--stdin"}:
        files = []  # every file (--stdin: the list on stdin, which hookmux cannot read)
    elif not files:
        return []
    return _changes(where, repo, files, index_too=False)


@_judged
def git_rm(repo, where):
    """``rm -f PATHSPEC…``: tracked files go from the index and the disk, uncommitted changes to
    them with them (without ``-f`` git refuses; ``--cached`` keeps the files; committed content
    comes back from git)."""
    found, pathspecs = _options(repo.words, "frqn", ("--force", "--dry-run", "--cached", "--ignore-unmatch",
                                                     "--quiet", "--sparse", "--pathspec-file-nul"),
                                ("--pathspec-from-file",))
    if not found & {"-f", "--force"} or found & {"-n", "--dry-run", "--cached"}:
        return []
    if _valued(found, "--pathspec-from-file") is not None:
        pathspecs = []  # a list hookmux does not read: any change counts
    elif not pathspecs:
        return []
    return _changes(where, repo, pathspecs)


@_judged
def git_update_ref(repo, where):
    """``update-ref -d refs/stash``: the stash and its reflog, every entry (``--stdin``'s
    instructions are not read)."""
    words, index = [], 0
    while index < len(repo.words):  # -m REASON, -mREASON: the reflog's message
        word = repo.words[index]
        index += 2 if word == "-m" else 1
        if word == "--":
            words.extend(repo.words[index - 1:])
            break
        if not word.startswith("-m"):
            words.append(word)
    found, names = _options(words, "dz", ("--no-deref", "--create-reflog", "--stdin"))
    if "-d" not in found or not names or names[0] != "refs/stash":
        return []
    stashed = where.git.stashes(repo)
    return [stashed] if stashed else []


@_judged
def git_worktree_remove(repo, where):
    """``worktree remove --force WORKTREE``: the linked work tree's folder goes, with its
    uncommitted changes and untracked files (without ``--force`` git refuses over them)."""
    words = repo.words[1:] if repo.words[:1] == ["remove"] else repo.words
    found, named = _options(words, "f", ("--force",))
    if not found or len(named) != 1:
        return []
    trees = where.git.worktrees(repo)
    if not trees:
        return []
    tree = _worktree(named[0], trees[1:], repo.cwd, where)
    if tree is None:
        return []  # not one of the linked work trees: git refuses
    lost = where.git.unsaved(Repo(tree, "", [], (), None), lambda path: _regenerable_below(tree, path))
    return [lost + " in %s" % tree] if lost else []


def _worktree(named, trees, cwd, where):
    """The work tree of ``trees`` that ``named`` names, as git finds it: its path, or the last
    parts of its path when those are unique among them; None for none."""
    path = targets.real(_one_path(named, cwd, where))
    real = {targets.real(tree): tree for tree in trees}
    if path in real:
        return real[path]
    if named.startswith(("/", "~", "$")) or ".." in named.split("/"):
        return None
    tail = "/" + named.strip("/")
    matching = [tree for tree in trees if tree.rstrip("/").endswith(tail)]
    return matching[0] if len(matching) == 1 else None


_FALSE = ("false", "no", "off", "0")


@_judged
def git_clean_unforced(repo, where):
    """``clean`` without ``-f`` where git does not ask for it: ``-c clean.requireForce=false`` (or
    the user's configuration) makes ``git clean -dx`` delete as ``clean -f -dx`` would."""
    try:
        question = clean_question(["-f", *repo.words])
    except Unjudgeable as what:
        question = what
    if question is None:
        return []  # the user's own dry run: no question to git at all
    setting = repo.settings.get("clean.requireforce", "")
    if setting is None or setting.lower() in _FALSE:
        pass  # a value from the environment (--config-env) is not known: taken as false
    elif setting or not where.git.config_false(repo, "clean.requireForce"):
        return []  # git refuses: "clean.requireForce defaults to true"
    if isinstance(question, Unjudgeable):
        raise question
    found = where.git.cleanable(repo, question, lambda path: _regenerable_below(repo.cwd, path))
    return [found] if found else []


def always(command, where):
    """A user's row that blocks whenever it matches."""
    return ["what this row protects"]


JUDGES = {
    "paths": paths,
    "emptied": emptied,
    "find-delete": find_delete,
    "device-of": device_of,
    "device-operand": device_operand,
    "device-written": device_written,
    "git-changes": git_changes,
    "git-checkout": git_checkout,
    "git-restore": git_restore,
    "git-clean": git_clean,
    "git-stash": git_stash,
    "git-read-tree": git_read_tree,
    "git-checkout-index": git_checkout_index,
    "git-rm": git_rm,
    "git-update-ref": git_update_ref,
    "git-worktree-remove": git_worktree_remove,
    "git-clean-unforced": git_clean_unforced,
    "always": always,
    "docker-volumes": data_judges.docker_volumes,
    "database-target": data_judges.database_target,
    "iac-state": data_judges.iac_state,
    "secret-sent": data_judges.secret_sent,
}
