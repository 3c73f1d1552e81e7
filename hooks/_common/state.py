"""Where checks keep state, and how they change it without races or torn files.

Locking: ``fcntl.flock`` on POSIX (the standard library, and the same mechanism
the ``filelock`` package uses there). Where ``fcntl`` is missing (Windows) the
``filelock`` package is imported if the interpreter can see it, else
``msvcrt.locking`` from the standard library is used. Hooks run as
``python -S``, so the standard-library paths are the ones that matter.
"""
import os
import time

try:
    import fcntl as _fcntl
except ImportError:  # Windows
    _fcntl = None

LOCK_TIMEOUT = 5.0
SEEN_VERSION = 1
MAX_SEEN_ENTRIES = 1000
TEMP_GRACE = 60.0
# A folder of per-session files is swept at most this often (by all processes together).
PRUNE_EVERY = 60.0
PRUNE_MARK = ".pruned"
FUTURE_SLACK = 60.0


# Opens of state files never follow a link (0 where the platform has no such flag).
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class LockTimeout(OSError):
    """The lock was still held by someone else when the timeout ran out."""


class UntrustedState(OSError):
    """The state folder is not this user's alone: another user could read or forge its files."""


def state_dir():
    """``HOOKMUX_STATE_DIR`` (``~`` expanded), else ``$XDG_STATE_HOME/hookmux``, else ``~/.local/state/hookmux``.

    The one definition for hooks and installer alike (the CLI loads this file through
    ``hookmux.resources.runtime("state")``), so install locks and pending records land
    where the hooks look. Raises ``UntrustedState`` when another user could change what is
    in it (``untrusted()``): every hook treats that as no state (it advises, writes nothing).
    """
    root = configured_state_dir()
    if root not in _TRUSTED:
        why = untrusted(root)
        if why:
            raise UntrustedState("hookmux: state folder %s refused: %s" % (root, why))
        if os.path.isdir(root):  # a verdict holds for good: nobody else can change those folders
            _TRUSTED.add(root)
    return root


_TRUSTED = set()


def configured_state_dir():
    """Where the state folder is configured to be, checked or not."""
    explicit = os.environ.get("HOOKMUX_STATE_DIR")
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    xdg = os.environ.get("XDG_STATE_HOME")
    if xdg and os.path.isabs(xdg):  # the XDG spec says to ignore a relative value
        return os.path.join(xdg, "hookmux")
    return os.path.join(os.path.expanduser("~"), ".local", "state", "hookmux")


def untrusted(folder, resolved=False):
    """Why another user could change what ``folder`` holds, or None when nobody can.

    Trusted: the folder (where it exists) is this user's and writable by nobody else, and each
    folder above it is this user's or root's and writable by nobody else, or sticky (``/tmp``:
    others cannot move what they do not own). A link on the way is resolved first. A part not made yet
    is judged by the folder it will be made in (``_make_dir`` checks again once it is made).
    """
    uid = os.getuid() if hasattr(os, "getuid") else None
    if uid is None:
        return None  # Windows: no owners to compare (ACLs are out of scope)
    parts = [part for part in os.path.abspath(folder).split(os.sep) if part]
    path, last = os.sep, None
    for depth in range(len(parts) + 1):
        if depth:
            path = os.path.join(path, parts[depth - 1])
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            break
        except OSError as exc:
            return "%s: %s" % (path, exc.strerror)
        last = (path, info, depth == len(parts))
        if info.st_mode & 0o170000 == 0o120000:  # a link: judge where it leads (realpath is slow: only now)
            return "%s is a link" % path if resolved else untrusted(os.path.realpath(folder), True)
        if not _S_ISDIR(info.st_mode):
            return "%s is not a folder" % path
        if info.st_uid not in (uid, 0):
            return "%s belongs to uid %d" % (path, info.st_uid)
        if info.st_mode & 0o022 and not (info.st_mode & 0o1000 and depth < len(parts)):
            return "%s is writable by other users (mode %o)" % (path, info.st_mode & 0o7777)
    if last is not None and last[2] and last[1].st_uid != uid:
        return "%s belongs to uid %d, not to this user" % (last[0], last[1].st_uid)
    return None


def _S_ISDIR(mode):
    return mode & 0o170000 == 0o040000


def _make_dir(directory):
    if not os.path.isdir(directory):
        os.makedirs(directory, mode=0o700, exist_ok=True)
        root = configured_state_dir()
        if root not in _TRUSTED and (directory + os.sep).startswith(root + os.sep):
            state_dir()  # made now: someone else may have made it first (raises UntrustedState)


def atomic_write_text(path, text, encoding="utf-8", fsync=False):
    """Write ``text`` to a temporary file beside ``path`` and rename it over ``path``.

    Concurrent readers see the old content or the new one. ``fsync`` adds
    durability across a power cut; callers that treat a lost file as empty
    state do not need it.
    """
    directory = os.path.dirname(os.path.abspath(path))
    _make_dir(directory)
    temp = os.path.join(directory, ".%s.%d.%s.tmp" % (os.path.basename(path), os.getpid(), os.urandom(4).hex()))
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "w", encoding=encoding) as handle:
            handle.write(text)
            if fsync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def atomic_write_json(path, obj, fsync=False):
    import json  # here, not at the top: the dispatch ledger uses this module on every call

    atomic_write_text(path, json.dumps(obj, sort_keys=True, separators=(",", ":")) + "\n", fsync=fsync)


def read_json(path, default=None):
    """The JSON in ``path``, or ``default`` when it is missing, unreadable or not JSON."""
    import json

    try:
        with open(os.open(path, os.O_RDONLY | NOFOLLOW), "r", encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return default


class file_lock:
    """An exclusive inter-process lock on ``path`` (created if missing) for a with-block.

    Polls until ``timeout`` seconds have passed, then raises ``LockTimeout``, so a
    stuck holder cannot hang a hook. Never delete a lock file that others may use:
    a process still waiting on the old inode would not exclude the next one.
    """

    def __init__(self, path, timeout=LOCK_TIMEOUT):
        self.path = path
        self.timeout = timeout
        self._fd = None
        self._filelock = None

    def __enter__(self):
        if _fcntl is None:
            _make_dir(os.path.dirname(os.path.abspath(self.path)))
            if self._enter_filelock():
                return self
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | NOFOLLOW, 0o600)
        except FileNotFoundError:  # its folder is made on first use only
            _make_dir(os.path.dirname(os.path.abspath(self.path)))
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | NOFOLLOW, 0o600)
        try:
            self._poll(fd, time.monotonic() + self.timeout)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return self

    def __exit__(self, *exc):
        if self._filelock is not None:
            self._filelock.release()
            self._filelock = None
            return False
        fd, self._fd = self._fd, None
        try:
            _unlock(fd)
        finally:
            os.close(fd)
        return False

    def _enter_filelock(self):
        try:
            import filelock
        except ImportError:
            return False
        lock = filelock.FileLock(self.path + ".filelock", timeout=self.timeout)
        try:
            lock.acquire()
        except filelock.Timeout:
            raise LockTimeout(self.path) from None
        self._filelock = lock
        return True

    def _poll(self, fd, deadline):
        delay = 0.001
        while not _try_lock(fd):
            if time.monotonic() >= deadline:
                raise LockTimeout(self.path)
            time.sleep(delay)
            delay = min(delay * 2, 0.02)


def _try_lock(fd):
    if _fcntl is not None:
        try:
            _fcntl.flock(fd, _fcntl.LOCK_EX | _fcntl.LOCK_NB)
        except (BlockingIOError, PermissionError):
            return False
        return True
    import msvcrt

    os.lseek(fd, 0, os.SEEK_SET)
    try:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


def _unlock(fd):
    if _fcntl is not None:
        _fcntl.flock(fd, _fcntl.LOCK_UN)
        return
    import msvcrt

    os.lseek(fd, 0, os.SEEK_SET)
    msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)


def session_file(namespace, session_id):
    """The seen-map file of one session: named by a digest, never by the raw id."""
    digest = _sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return os.path.join(state_dir(), namespace, "seen-%s.json" % digest)


def _sha256(data):
    # CPython's built-in SHA-256 gives the same digest as hashlib's without
    # loading OpenSSL (~2 ms); hashlib is the fallback elsewhere. Found once: a
    # failed import searches all of sys.path again each time (hookmux serve's
    # workers call this for every request).
    sha256 = _SHA256[0] if _SHA256 else None
    if sha256 is None:
        try:
            from _sha2 import sha256  # 3.12+
        except ImportError:
            try:
                from _sha256 import sha256  # 3.11 and older
            except ImportError:
                from hashlib import sha256
        _SHA256.append(sha256)
    return sha256(data)


_SHA256 = []


def mark_seen(namespace, session_id, ids, ttl, now=None):
    """Record ``ids`` for this session and return the ones that were new.

    An id is new when the session has not seen it within ``ttl`` seconds. When
    any id is new, every id in ``ids`` is stamped ``now`` and the map is written
    atomically; when none is, nothing is written. The read-check-write runs under
    the namespace's lock, so of many processes racing on the same ids exactly one
    gets them back as new. Missing or corrupt state counts as empty and is
    rewritten. Session files idle for longer than ``ttl`` are deleted. Only the
    ids and timestamps are stored.
    """
    ids = list(dict.fromkeys(ids))
    path = session_file(namespace, session_id)
    directory = os.path.dirname(path)
    now = time.time() if now is None else float(now)
    # Without the lock first: the map is replaced whole, and an id it holds stays until it
    # expires, so "all seen" read here is the answer (a repeat takes no lock and writes nothing).
    if ids and not _unseen(_load_seen(path), ids, now, ttl)[1]:
        return []
    with file_lock(os.path.join(directory, ".lock")):
        seen, new = _unseen(_load_seen(path), ids, now, ttl)
        if new:
            for key in ids:
                seen[key] = now
            if len(seen) > MAX_SEEN_ENTRIES:
                seen = dict(sorted(seen.items(), key=lambda item: item[1])[-MAX_SEEN_ENTRIES:])
            atomic_write_json(path, {"version": SEEN_VERSION, "seen": seen})
            if prune_due(directory, now):
                _prune(directory, now, ttl, keep=os.path.basename(path))
    return new


def _unseen(stamps, ids, now, ttl):
    """(the stamps still valid at ``now``, the ``ids`` not among them). A stamp from the future
    (the clock was set back) is not trusted."""
    seen = {key: stamp for key, stamp in stamps.items() if -FUTURE_SLACK <= now - stamp < ttl}
    return seen, [key for key in ids if key not in seen]


def _load_seen(path):
    data = read_json(path)
    seen = data.get("seen") if isinstance(data, dict) else None
    if not isinstance(seen, dict):
        return {}
    return {
        key: float(stamp)
        for key, stamp in seen.items()
        if isinstance(key, str) and isinstance(stamp, (int, float)) and not isinstance(stamp, bool)
        and stamp == stamp and abs(stamp) != float("inf")
    }


def prune_due(directory, now):
    """Whether the session files of ``directory`` are to be swept now: at most once in
    PRUNE_EVERY seconds, by whichever process comes first (the mark file's mtime says when the
    last sweep was; a mark from the future counts as old). A sweep stats every file of the
    folder, one per session: on each new session that cost grew with the number of sessions."""
    mark = os.path.join(directory, PRUNE_MARK)
    try:
        if 0 <= now - os.stat(mark).st_mtime < PRUNE_EVERY:
            return False
    except OSError:
        pass
    try:
        fd = os.open(mark, os.O_WRONLY | os.O_CREAT | NOFOLLOW, 0o600)
        try:
            os.utime(fd if os.utime in getattr(os, "supports_fd", ()) else mark, (now, now))
        finally:
            os.close(fd)
    except OSError:
        pass
    return True


def _prune(directory, now, ttl, keep):
    """Delete session files untouched for ``ttl`` (all their entries have expired) and stray temp files."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if name == keep:
            continue
        if name.startswith("seen-") and name.endswith(".json"):
            limit = ttl
        elif name.startswith(".seen-") and name.endswith(".tmp"):
            limit = TEMP_GRACE
        else:
            continue
        try:
            if now - entry.stat().st_mtime >= limit:
                os.unlink(entry.path)
        except OSError:
            pass
