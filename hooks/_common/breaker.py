"""The dispatcher's circuit breaker: a row that timed out or crashed on N consecutive calls is
skipped for a cool-down instead of costing its timeout on every call.

    held = load(hooks_root)     # None when switched off; one small read, none of it parsed as JSON
    to_run = held.admit(jobs)   # the jobs whose breaker is open are marked and left out
    held.record(to_run)         # after the run: writes only when a count or a state changed

One small file per hooks tree in the state folder, ``<state_dir>/breaker/<digest>.tsv``
(the digest is of the tree's absolute path): a header line naming the tree, then one line per
row that failed recently, tab-separated::

    hookmux-breaker 1   /home/u/.claude/hooks
    PreToolUse  0  /home/u/.claude/hooks/slow/check.py  slow/check  3  60  1764583200.5  <stamp>

(event, row index, script path, row name, consecutive failures, the cool-down last applied in
seconds, open until (epoch seconds, 0 when closed), the script's ``mtime_ns:size:inode``). A
row with no line is closed; most calls find no file at all. ``timeout`` and ``error`` (an
exception, an import error, a worker that died) count as failures; ``ok`` and ``exit`` (the
check ran and chose its status) re-arm it, and so does any change of the script's stamp.
When the cool-down is over the row runs again once: a success removes its line, a failure
opens the breaker again for twice the cool-down (capped).

Settings (environment): ``HOOKMUX_BREAKER=0`` (or off/false/no) turns it off;
``HOOKMUX_BREAKER_AFTER`` consecutive failures open it (default 3); ``HOOKMUX_BREAKER_COOLDOWN``
the first cool-down in seconds (default 60), doubling on each failed retry up to
``HOOKMUX_BREAKER_MAX_COOLDOWN`` (default 3600).

Writes take the folder's lock, read the file again, and replace it atomically; a lock not got
within ``LOCK_TIMEOUT`` skips the write (the breaker is best-effort, never a hold-up). Reading
never follows a symbolic link. Standard library only; the CLI (``hookmux status``, ``log``,
``doctor``) reads the same files through ``entries_of`` / ``all_trees``.
"""
import os
import time

VERSION = 1
HEADER = "hookmux-breaker"
FOLDER = "breaker"
SUFFIX = ".tsv"
SWITCH = "HOOKMUX_BREAKER"
DEFAULT_AFTER = 3
DEFAULT_COOLDOWN = 60.0
DEFAULT_MAX_COOLDOWN = 3600.0
FAILURES = ("timeout", "error")
SKIPPED = "breaker"  # the kind of a job the breaker left out (ledger code "breaker-open")
MAX_BYTES = 1 << 16
LOCK_TIMEOUT = 0.5
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class Entry:
    """One row's line."""

    __slots__ = ("event", "index", "path", "name", "failures", "cooldown", "until", "stamp")

    def __init__(self, event, index, path, name, failures=0, cooldown=0.0, until=0.0, stamp="-"):
        self.event, self.index, self.path, self.name = event, index, path, name
        self.failures, self.cooldown, self.until, self.stamp = failures, cooldown, until, stamp

    @property
    def key(self):
        return (self.event, self.index, self.path)

    def is_open(self, now):
        return now < self.until

    def line(self):
        return "\t".join((self.event, str(self.index), self.path, self.name, str(self.failures),
                          repr(float(self.cooldown)), repr(float(self.until)), self.stamp))


def switched_off():
    return os.environ.get(SWITCH, "").strip().lower() in ("0", "off", "false", "no")


def settings():
    """(failures that open it, first cool-down, cap) from the environment."""
    after = _number("HOOKMUX_BREAKER_AFTER", DEFAULT_AFTER, int)
    cooldown = _number("HOOKMUX_BREAKER_COOLDOWN", DEFAULT_COOLDOWN, float)
    cap = max(cooldown, _number("HOOKMUX_BREAKER_MAX_COOLDOWN", DEFAULT_MAX_COOLDOWN, float))
    return max(1, after), cooldown, cap


def _number(name, default, kind):
    text = os.environ.get(name)
    if not text:
        return default
    try:
        value = kind(text)
    except ValueError:
        return default
    return value if value > 0 and value == value and value != float("inf") else default


def path_for(hooks_root, directory=None):
    """The tree's file: named by a 64-bit FNV-1a of its absolute path (no hash module to import:
    a name only has to differ between the trees of one user)."""
    key = os.path.abspath(hooks_root)
    digest = _DIGESTS.get(key)
    if digest is None:  # a serve worker asks for every request
        digest = 0xCBF29CE484222325
        for byte in key.encode("utf-8", "surrogatepass"):
            digest = ((digest ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        digest = _DIGESTS[key] = "%016x" % digest
    return os.path.join(directory or os.path.join(_state().state_dir(), FOLDER), digest + SUFFIX)


_DIGESTS = {}


def stamp_of(path):
    """The script's ``warm.stamp_of`` (inode, ctime, size) as ``ino:ctime_ns:size``, ``-`` when it
    is missing: the one file stamp of the hooks."""
    from . import warm

    try:
        return "%d:%d:%d" % warm.stamp_of(os.stat(path))
    except (OSError, ValueError):
        return "-"


def read(path):
    """(hooks root named in the header, {key: Entry}); ("", {}) when missing or unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    except OSError:
        return "", {}
    try:
        data = os.read(fd, MAX_BYTES)
    except OSError:
        return "", {}
    finally:
        os.close(fd)
    return parse(data.decode("utf-8", "surrogateescape"))


def parse(text):
    lines = text.split("\n")
    head = lines[0].split("\t")
    if len(head) != 3 or head[0] != HEADER or head[1] != str(VERSION):
        return "", {}
    entries = {}
    for line in lines[1:]:
        fields = line.split("\t")
        if len(fields) != 8:
            continue
        event, index, path, name, failures, cooldown, until, stamp = fields
        try:
            entry = Entry(event, int(index), path, name, int(failures), float(cooldown), float(until), stamp)
        except ValueError:
            continue
        entries[entry.key] = entry
    return head[2], entries


def render(hooks_root, entries):
    lines = ["\t".join((HEADER, str(VERSION), hooks_root))]
    lines += [entry.line() for entry in entries]
    return "\n".join(lines) + "\n"


def load(hooks_root):
    """The breaker of the tree at ``hooks_root`` for one dispatch, or None when it is off."""
    if switched_off():
        return None
    return Breaker(hooks_root)


class Breaker:
    def __init__(self, hooks_root, now=None):
        self.hooks_root = os.path.abspath(hooks_root)
        self.path = path_for(self.hooks_root)
        self.now = time.time() if now is None else now
        self.after, self.cooldown, self.cap = settings()
        self.entries = read(self.path)[1]
        self.rearmed = set()

    def admit(self, jobs):
        """The jobs to run; each one whose breaker is open is marked skipped instead."""
        if not self.entries:
            return jobs
        admitted = []
        for job in jobs:
            entry = self.entries.get(_key(job.row))
            if entry is not None and entry.stamp != stamp_of(job.row.path):
                self.rearmed.add(entry.key)  # the script was edited: counting starts again
                entry = None
            if entry is not None and entry.is_open(self.now) and entry.until - self.now <= self.cap + 60:
                job.kind = SKIPPED
                job.detail = "breaker open: %d failures in a row, %s cool-down left" % (
                    entry.failures, span(entry.until - self.now, entry.cooldown))
                continue
            admitted.append(job)
        return admitted

    def record(self, jobs):
        """Count the run jobs' failures and successes; write the file only when something changed."""
        changes = {}
        for job in jobs:
            key = _key(job.row)
            if key is None:
                continue
            known = self.entries.get(key)
            if job.kind in FAILURES:
                changes[key] = job.row
            elif job.kind is not None and (known is not None or key in self.rearmed):
                changes[key] = None
        if changes:
            try:
                self._write(changes)
            except Exception:
                pass  # best-effort: the next failure tries again

    def _write(self, changes):
        directory = os.path.dirname(self.path)
        with _state().file_lock(os.path.join(directory, ".lock"), timeout=LOCK_TIMEOUT):
            entries = read(self.path)[1]
            now = time.time()
            for key, row in changes.items():
                entry = entries.pop(key, None)
                if row is None:
                    continue
                stamp = stamp_of(row.path)
                if entry is None or entry.stamp != stamp:
                    entry = Entry(row.event, row.index, row.path, _clean(row.name or "?"), stamp=stamp)
                entry.failures += 1
                if entry.failures >= self.after and not entry.is_open(now):
                    entry.cooldown = self.cooldown if not entry.cooldown else min(entry.cooldown * 2, self.cap)
                    entry.until = now + entry.cooldown
                entries[key] = entry
            if entries:
                _state().atomic_write_text(self.path, render(self.hooks_root, entries.values()))
            else:
                try:
                    os.unlink(self.path)
                except FileNotFoundError:
                    pass


def _state():
    """state.py as the ledger loaded it (by path, once per process): no second copy."""
    from . import ledger

    return ledger._state()


def _key(row):
    """The row's key, or None for a row the file cannot name (a tab or newline in it)."""
    path = row.path or ""
    if not path or any(bad in text for text in (row.event, path) for bad in ("\t", "\n", "\r")):
        return None
    return (row.event, row.index, path)


def _clean(text):
    return "".join(" " if char in "\t\r\n" else char for char in text)[:64]


def span(left, total):
    """``52 s of 60 s``, ``12 min of 16 min``, ``0.5 h of 1.0 h``: both in the cool-down's unit."""
    left = max(0.0, left)
    if total >= 7200:
        return "%.1f h of %.1f h" % (left / 3600, total / 3600)
    if total >= 600:
        return "%d min of %d min" % (-(-left // 60), total // 60)
    return "%d s of %d s" % (-(-left // 1), total)


# ---------------------------------------------------------------- for the CLI


def entries_of(hooks_root, now=None):
    """Every row of the tree with a failure count, as dicts (``open``: skipped now)."""
    now = time.time() if now is None else now
    root, entries = read(path_for(hooks_root))
    return [_as_dict(entry, now) for entry in entries.values()]


def all_trees(now=None):
    """{hooks root: [entry dicts]} for every tree with a breaker file in the state folder."""
    now = time.time() if now is None else now
    folder = os.path.join(_state().state_dir(), FOLDER)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return {}
    trees = {}
    for name in names:
        if name.endswith(SUFFIX) and not name.startswith("."):
            root, entries = read(os.path.join(folder, name))
            if root:
                trees[root] = [_as_dict(entry, now) for entry in entries.values()]
    return trees


def _as_dict(entry, now):
    changed = entry.stamp != stamp_of(entry.path)
    return {"event": entry.event, "index": entry.index, "name": entry.name, "script": entry.path,
            "failures": entry.failures, "open": entry.is_open(now) and not changed,
            "retry": not changed and not entry.is_open(now) and entry.failures >= settings()[0],
            "cooldown_s": entry.cooldown, "until": entry.until or None,
            "left_s": round(max(0.0, entry.until - now), 1), "script_changed": changed}
