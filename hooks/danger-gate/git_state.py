"""Ask git, bounded in time, whether a discard would lose anything.

Each question is one fixed read-only git command that hookmux builds from its model of the
discard (``judges.Repo``: the folder, ``--git-dir``/``--work-tree`` as git would resolve them,
the pathspecs) — never the command's own options passed through. It answers a short
description of what would be lost, "" for nothing, or None when git did not answer (not a
repository, no git, slower than the time left, any error): the caller passes the call then.

Git is the one of a trusted folder (``TRUSTED_BIN``; not the PATH an agent can write), started
with an environment of hookmux's own: no ``GIT_*`` of the host's or the command's (the
repository comes in as arguments), optional locks off (a status never takes the index lock
another git holds), no pager, no prompts, ``core.fsmonitor``, hooks and ``log.showSignature`` (the
stash list would start ``gpg.program`` on a signed entry) off, and every filter driver the
repository's configuration names emptied for a status (``Git._filters_off``): a repository's
config cannot start a program through the gate.
"""
import os
import time

#: Seconds all questions of one call may take together.
BUDGET = 2.0
#: Bytes of git output read at most (a listing past it is not judged).
MAX_OUTPUT = 4 << 20
_ENV = {
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "LC_ALL": "C",
}


#: The folders git is taken from, first found first; ``HOOKMUX_TRUSTED_BIN`` (``:``-separated) in
#: the hook's own environment (set by whoever starts the host, not by a command) replaces them.
TRUSTED_BIN = ("/usr/bin", "/bin", "/usr/local/bin", "/opt/homebrew/bin", "/run/current-system/sw/bin")


def trusted_git(env):
    """The absolute path of git in a trusted folder, or None."""
    folders = env.get("HOOKMUX_TRUSTED_BIN")
    for folder in folders.split(os.pathsep) if folders else TRUSTED_BIN:
        path = os.path.join(folder, "git")
        if os.path.isabs(path) and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


class Git:
    """The questions of one call, sharing one deadline."""

    def __init__(self, budget=BUDGET, env=None):
        self.deadline = time.monotonic() + budget
        source = os.environ if env is None else env
        self.git = trusted_git(source)
        base = {name: value for name, value in source.items() if not name.startswith("GIT_")}
        base.update(_ENV)
        base["PATH"] = os.pathsep.join(TRUSTED_BIN)
        self.env = base
        self._filters = {}

    def run(self, repo, args):
        """git's stdout (bytes) for ``args`` asked of ``repo`` (a ``judges.Repo``), or None when it
        failed or ran out of time."""
        left = self.deadline - time.monotonic()
        cwd = repo.cwd
        if left <= 0.05 or not cwd or not os.path.isdir(cwd) or self.git is None:
            return None
        argv = [self.git, "-C", cwd, "-c", "core.fsmonitor=false", "-c", "core.quotepath=off",
                "-c", "core.hooksPath=" + os.devnull, "-c", "log.showSignature=false", *repo.args]
        env = self.env
        if repo.index_file:
            env = dict(env, GIT_INDEX_FILE=repo.index_file)
        if args[0] == "status":  # it may hash work-tree files through the repository's filters
            off = self._filters_off(argv, env)
            if off is None:
                return None
            argv += off
        return self._ask(argv + list(args), env)

    def _ask(self, argv, env):
        left = self.deadline - time.monotonic()
        if left <= 0.05:
            return None
        try:
            return _spawned(argv, env, left)
        except (AttributeError, NotImplementedError, TypeError):
            return _subprocess(argv, env, left)  # no posix_spawn with setsid here
        except (OSError, ValueError):
            return None

    def _filters_off(self, base, env):
        """``-c`` settings that empty every filter driver the repository's configuration names
        (``filter.NAME.clean``/``smudge``/``process``: programs a status runs on a file it hashes),
        so no question runs a program a repository, or an agent writing its configuration, chose;
        None when git did not list its configuration or a driver's name cannot be spelled in ``-c``."""
        key = tuple(base[2:]) + (env.get("GIT_INDEX_FILE", ""),)
        known = self._filters.get(key)
        if known is not None:
            return known
        out = self._ask(base + ["config", "--null", "--name-only", "--list"], env)
        if out is None:
            return None
        drivers = []
        for name in out.decode("utf-8", "surrogateescape").split("\0"):
            if name[:7].lower() == "filter." and name.count(".") >= 2:
                driver = name[7:name.rindex(".")]
                if "=" in driver or "\n" in driver:
                    return None
                if driver not in drivers:
                    drivers.append(driver)
        off = []
        for driver in drivers:
            off += ["-c", "filter.%s.clean=" % driver, "-c", "filter.%s.smudge=" % driver,
                    "-c", "filter.%s.process=" % driver, "-c", "filter.%s.required=false" % driver]
        self._filters[key] = off
        return off

    # ---------------------------------------------------------------- questions

    def changes(self, repo, paths=(), index_too=True):
        """Uncommitted changes to tracked files (in ``paths`` when given). ``index_too``: staged
        changes count as well (a reset or a checkout from a commit loses them)."""
        args = ["status", "--porcelain=v1", "-z", "--untracked-files=no", "--ignore-submodules=dirty"]
        if paths:
            args += ["--", *paths]
        out = self.run(repo, args)
        if out is None:
            return None
        lost = []
        for entry in _porcelain(out):
            staged, unstaged, name = entry
            if unstaged not in " ?!" or (index_too and staged not in " ?!"):
                lost.append(name)
        return _describe(lost, "uncommitted change", "to")

    def cleanable(self, repo, question, spared=None):
        """What hookmux's dry run ``question`` (``judges.clean_question``: ``clean --dry-run …``)
        lists, less the paths ``spared(path)`` lets go (regenerable output). Refuses any question
        that is not a dry run of its own form."""
        if question[:2] != ["clean", "--dry-run"] or "--" not in question \
                or any(w not in ("-d", "-f", "-x", "-X") and not w.startswith("--exclude=") for w in question[2:question.index("--")]):
            return None
        out = self.run(repo, question)
        if out is None:
            return None
        names = [line[len(b"Would remove "):].decode("utf-8", "replace")
                 for line in out.splitlines() if line.startswith(b"Would remove ")]
        return _describe([name for name in names if spared is None or not spared(name)], "untracked file or folder", "")

    def stashes(self, repo, which=None):
        """The stash entries a clear (``which`` None) or a drop of ``which`` would lose."""
        out = self.run(repo, ["stash", "list", "--format=%gd %s"])
        if out is None:
            return None
        entries = [line.decode("utf-8", "replace") for line in out.splitlines() if line.strip()]
        if which is not None:
            wanted = which if which.startswith("stash@{") else "stash@{%s}" % which
            entries = [entry for entry in entries if entry.split(" ", 1)[0] == wanted]
        return _describe(entries, "stash entry", "")

    def unpushed(self, repo):
        """The commits of the local branches that no remote-tracking branch holds (every one where
        there is no remote): what removing the repository's ``.git`` loses. A lone first commit is
        not counted (a scaffold's "Initial commit": the work tree still holds what it recorded)."""
        out = self.run(repo, ["log", "--branches", "--not", "--remotes", "--format=%h %P", "--max-count=1001"])
        if out is None:
            return None
        commits = [line.decode("utf-8", "replace").split() for line in out.splitlines() if line.strip()]
        if not commits or len(commits) == 1 and len(commits[0]) == 1:
            return ""
        if len(commits) > 1000:
            return "more than 1000 commits on no remote (%s, ...)" % ", ".join(c[0] for c in commits[:3])
        return _describe([c[0] for c in commits], "commit", "on no remote:")

    def unsaved(self, repo, spared=None):
        """What removing ``repo``'s work tree whole loses: uncommitted changes to tracked files
        and untracked files (less those ``spared(path)`` lets go: regenerable output)."""
        out = self.run(repo, ["status", "--porcelain=v1", "-z", "--untracked-files=normal",
                              "--ignore-submodules=dirty"])
        if out is None:
            return None
        changed, untracked = [], []
        for staged, unstaged, name in _porcelain(out):
            if staged == "?":
                if spared is None or not spared(name):
                    untracked.append(name)
            elif staged != "!" and (staged != " " or unstaged != " "):
                changed.append(name)
        found = [_describe(changed, "uncommitted change", "to"), _describe(untracked, "untracked file or folder", "")]
        return "; ".join(part for part in found if part)

    def worktrees(self, repo):
        """The absolute paths of the repository's work trees, the main one first; None when git
        did not answer."""
        out = self.run(repo, ["worktree", "list", "--porcelain"])
        if out is None:
            return None
        return [line[len(b"worktree "):].decode("utf-8", "surrogateescape")
                for line in out.splitlines() if line.startswith(b"worktree ")]

    def config_false(self, repo, key):
        """Whether git's configuration (the user's and the repository's, as the command's git
        reads it) sets the boolean ``key`` to false; False when unset or unknown."""
        out = self.run(repo, ["config", "--type=bool", "--get", key])
        return out is not None and out.strip() == b"false"


def _spawned(argv, env, timeout):
    """stdout of ``argv`` started with ``posix_spawn`` in a session of its own (the subprocess
    module costs about as much to import as the rest of the gate); None on a failure or when
    it outlives ``timeout`` (its whole process group is killed then)."""
    import select

    read_end, write_end = os.pipe()
    try:
        null = os.open(os.devnull, os.O_RDWR)
        try:
            pid = os.posix_spawn(argv[0], argv, env, setsid=True, file_actions=[
                (os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, write_end, 1), (os.POSIX_SPAWN_DUP2, null, 2),
                (os.POSIX_SPAWN_CLOSE, read_end)])
        finally:
            os.close(null)
    except BaseException:
        os.close(read_end)
        os.close(write_end)
        raise
    os.close(write_end)
    deadline = time.monotonic() + timeout
    chunks = []
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read_end], [], [], left)[0]:
                _kill(pid)
                return None
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            if sum(map(len, chunks)) > MAX_OUTPUT:
                _kill(pid)
                return None
    finally:
        os.close(read_end)
    _, status = os.waitpid(pid, 0)
    return b"".join(chunks) if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else None


def _kill(pid):
    import _signal

    try:
        os.killpg(pid, _signal.SIGKILL)
    except OSError:
        pass
    try:
        os.waitpid(pid, 0)
    except OSError:
        pass


def _subprocess(argv, env, timeout):
    import subprocess

    try:
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, start_new_session=True)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return None
    return out if proc.returncode == 0 else None


def _kill_group(proc):
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        proc.communicate(timeout=1)
    except Exception:
        pass


def _porcelain(out):
    """(X, Y, path) per entry of ``status --porcelain=v1 -z`` (a rename's source skipped)."""
    fields = out.split(b"\0")
    index = 0
    while index < len(fields):
        field = fields[index]
        index += 1
        if len(field) < 4:
            continue
        staged, unstaged = chr(field[0]), chr(field[1])
        if staged in "RC":
            index += 1  # the next field is the rename's source
        yield staged, unstaged, field[3:].decode("utf-8", "replace")


def _describe(items, noun, preposition):
    if not items:
        return ""
    shown = ", ".join(items[:3]) + (", ..." if len(items) > 3 else "")
    plural = noun if len(items) == 1 else (noun[:-5] + "entries" if noun.endswith("entry") else noun + "s")
    if preposition:
        return "%d %s %s %s" % (len(items), plural, preposition, shown)
    return "%d %s (%s)" % (len(items), plural, shown)
