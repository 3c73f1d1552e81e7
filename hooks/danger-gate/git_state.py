"""Ask git, bounded in time, whether a discard would lose anything.

Each question runs one read-only git command in the folder the discard would run in and
answers a short description of what would be lost, "" for nothing, or None when git did
not answer (not a repository, no git, slower than the time left, any error): the caller
passes the call then. Git runs with optional locks off (a status never takes the index
lock another git holds), no pager, no prompts, and ``core.fsmonitor`` off (a repository's
config cannot start a program through the gate).
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


class Git:
    """The questions of one call, sharing one deadline."""

    def __init__(self, budget=BUDGET, env=None):
        self.deadline = time.monotonic() + budget
        base = dict(os.environ if env is None else env)
        base.update(_ENV)
        self.env = base

    def run(self, cwd, args):
        """git's stdout (bytes), or None when it failed or ran out of time."""
        left = self.deadline - time.monotonic()
        if left <= 0.05 or not cwd or not os.path.isdir(cwd):
            return None
        argv = ["git", "-C", cwd, "-c", "core.fsmonitor=false", "-c", "core.quotepath=off", *args]
        try:
            return _spawned(argv, self.env, left)
        except (AttributeError, NotImplementedError, TypeError):
            return _subprocess(argv, self.env, left)  # no posix_spawn with setsid here
        except (OSError, ValueError):
            return None

    # ---------------------------------------------------------------- questions

    def changes(self, cwd, paths=(), index_too=True):
        """Uncommitted changes to tracked files (in ``paths`` when given). ``index_too``: staged
        changes count as well (a reset or a checkout from a commit loses them)."""
        args = ["status", "--porcelain=v1", "-z", "--untracked-files=no", "--ignore-submodules=dirty"]
        if paths:
            args += ["--", *paths]
        out = self.run(cwd, args)
        if out is None:
            return None
        lost = []
        for entry in _porcelain(out):
            staged, unstaged, name = entry
            if unstaged not in " ?!" or (index_too and staged not in " ?!"):
                lost.append(name)
        return _describe(lost, "uncommitted change", "to")

    def cleanable(self, cwd, clean_args):
        """What ``git clean`` with these arguments would delete (its own dry run)."""
        args = ["clean", "--dry-run"]
        for arg in clean_args:
            if arg in ("-i", "--interactive", "-q", "--quiet"):
                continue
            if arg[:1] == "-" and arg[:2] not in ("--", "-e") and len(arg) > 2:
                arg = "-" + "".join(flag for flag in arg[1:] if flag not in "iq")
                if arg == "-":
                    continue
            args.append(arg)
        out = self.run(cwd, args)
        if out is None:
            return None
        names = [line[len(b"Would remove "):].decode("utf-8", "replace")
                 for line in out.splitlines() if line.startswith(b"Would remove ")]
        return _describe(names, "untracked file or folder", "")

    def stashes(self, cwd, which=None):
        """The stash entries a clear (``which`` None) or a drop of ``which`` would lose."""
        out = self.run(cwd, ["stash", "list", "--format=%gd %s"])
        if out is None:
            return None
        entries = [line.decode("utf-8", "replace") for line in out.splitlines() if line.strip()]
        if which is not None:
            wanted = which if which.startswith("stash@{") else "stash@{%s}" % which
            entries = [entry for entry in entries if entry.split(" ", 1)[0] == wanted]
        return _describe(entries, "stash entry", "")


def _spawned(argv, env, timeout):
    """stdout of ``argv`` started with ``posix_spawnp`` in a session of its own (the subprocess
    module costs about as much to import as the rest of the gate); None on a failure or when
    it outlives ``timeout`` (its whole process group is killed then)."""
    import select

    read_end, write_end = os.pipe()
    try:
        null = os.open(os.devnull, os.O_RDWR)
        try:
            pid = os.posix_spawnp(argv[0], argv, env, setsid=True, file_actions=[
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
