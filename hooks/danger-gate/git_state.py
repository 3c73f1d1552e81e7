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
        import subprocess

        try:
            # A session of its own: on a timeout the whole group goes (a wrapper's child
            # holding the pipe would keep communicate() waiting).
            proc = subprocess.Popen(
                ["git", "-c", "core.fsmonitor=false", "-c", "core.quotepath=off", *args],
                cwd=cwd, env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, start_new_session=True,
            )
        except (OSError, ValueError, subprocess.SubprocessError):
            return None
        try:
            out, _ = proc.communicate(timeout=left)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            return None
        if proc.returncode != 0:
            return None
        return out

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
