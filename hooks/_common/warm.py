"""What both warm paths stand on: the dispatcher's warm pool (hooks/_dispatch/dispatch_arbiter.py,
dispatch_worker.py, dispatch_isolated.py) and ``hookmux serve`` (src/hookmux/serve/, hooks/_serve/ensure.py).

    runtime_dir(), serve_root(), serve_folder() where their files are
    open_owned(), open_private(), open_within() who may enter (this user alone), by descriptor
    refusal(folder)                             why a folder is not used, in words
    make_private(path)                          a folder of this user's, mode 0700
    write_file(name, data, dir_fd, keep=False)  a file written whole (mode 0600, no link followed)
    stamp_of(), file_stamp(), code_stamp()      which files a process runs: any rewrite changes it
    MARGIN, KILL_GRACE, LEFTOVER                deadlines and grace, in seconds
    alive(pid), answering(folder), squatter()   who is there: the probe of ``status`` and ``ensure``
    sweep(folder, max_age)                      what processes that died left behind

Standard library only, Python 3.9; imported by the hooks as ``_common.warm`` and by the CLI as
``hookmux._runtime.warm`` (hookmux.resources.runtime), so the two never disagree.
"""
import os

# Past the largest selected timeout, what a caller waits for its worker's last word (the fork,
# the frames, the worker's own bookkeeping).
MARGIN = 0.25
# Past the deadline a warm worker published, its arbiter kills it: the one end of a stuck check
# in the pool and in serve (a lone forked worker is killed by its caller, past MARGIN).
KILL_GRACE = 0.1
# A dead process's leftovers older than this are swept even when its pid was given to another.
LEFTOVER = 60.0

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
FOLDER, FIFO, FILE = 0o040000, 0o010000, 0o100000
_KIND = 0o170000
_LINK = 0o120000


# ---------------------------------------------------------------- where


def runtime_dir(environ=None):
    """The private folder of this user's warm pools."""
    environ = os.environ if environ is None else environ
    chosen = environ.get("HOOKMUX_RUNTIME_DIR")
    if chosen:
        return chosen
    xdg = environ.get("XDG_RUNTIME_DIR")
    return os.path.join(xdg, "hookmux") if xdg else "/tmp/hookmux-%d" % os.getuid()


def serve_root():
    """The folder of this user's servers' folders."""
    from . import state

    return os.path.join(state.state_dir(), "serve")


def serve_folder(tree):
    """Where the server of the hooks tree ``tree`` keeps its secret, port, run record and sessions:
    one per user (the state dir) and install (a digest of the tree's real path)."""
    from . import state

    key = state._sha256(os.path.realpath(str(tree)).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return os.path.join(serve_root(), key)


# ---------------------------------------------------------------- who may enter


def problem(info, kind=FOLDER):
    """Why what ``info`` (a stat result) describes is not a ``kind`` of this user's that nobody
    else may open, or None."""
    if info.st_mode & _KIND != kind:
        return "is a link" if info.st_mode & _KIND == _LINK else "is not a %s" % (
            "folder" if kind == FOLDER else "FIFO" if kind == FIFO else "file")
    if info.st_uid != os.getuid():
        return "belongs to uid %d" % info.st_uid
    if info.st_mode & 0o077:
        return "is open to other users (mode %o)" % (info.st_mode & 0o7777)
    return None


def open_owned(name, flags, dir_fd=None, kind=FILE, mode=0o600):
    """An fd of ``name`` (relative to ``dir_fd``), not through a link, when what it opened is
    a ``kind`` of this user's that nobody else may open; else ``PermissionError``."""
    fd = os.open(name, flags | NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dir_fd)
    if problem(os.fstat(fd), kind):
        os.close(fd)
        raise PermissionError(13, "not this user's alone", name)
    return fd


def open_private(name, dir_fd=None, make=False):
    """The fd of the folder ``name`` when it is this user's and closed to everyone else, else
    None (``make``: made first when missing; a missing one raises ``FileNotFoundError`` otherwise)."""
    if make:
        try:
            os.mkdir(name, 0o700, dir_fd=dir_fd)
        except FileExistsError:
            pass
    try:
        return open_owned(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd, FOLDER)
    except FileNotFoundError:
        raise
    except OSError:  # a link (ELOOP), not a folder, not ours, open to others
        return None


def open_within(outer, name, make=False):
    """The fd of the folder ``name`` in the folder ``outer`` (a path) when both are this user's
    alone, else None (``make``: both made when missing, and ``outer``'s parents too)."""
    if make:
        parent = os.path.dirname(outer)
        if parent and not os.path.isdir(parent):
            os.makedirs(parent, 0o700, exist_ok=True)
    fd = open_private(outer, make=make)
    if fd is None:
        return None
    try:
        return open_private(name, fd, make=make)
    finally:
        os.close(fd)


def refusal(folder):
    """Why ``folder`` is not used (``open_private`` would give None), in words, or None (it is
    fit, or missing: it is made when first needed)."""
    try:
        why = problem(os.lstat(folder))
    except FileNotFoundError:
        return None
    except OSError as exc:
        return "%s: %s" % (folder, exc.strerror)
    return "%s %s" % (folder, why) if why else None


def make_private(path):
    """Make the folder ``path`` (and its parents) if missing, and close it to other users."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    os.chmod(path, 0o700)


# ---------------------------------------------------------------- a file written whole


def write_file(name, data, dir_fd=None, keep=False, new=False):
    """Write ``data`` (bytes) to ``name`` (relative to ``dir_fd``) whole, mode 0600, through no
    link: a reader sees the old file or the new one. ``keep``: an existing file stays (the first
    of racing writers wins). ``new``: ``name`` must not exist and is written in place (no reader
    looks before it is told the name: a call file), else ``FileExistsError``."""
    if new:
        _write_new(name, data, dir_fd)
        return
    temp = "%s.%d.tmp" % (name, os.getpid())
    try:
        os.unlink(temp, dir_fd=dir_fd)  # a write of ours cut short
    except FileNotFoundError:
        pass
    moved = False
    try:
        _write_new(temp, data, dir_fd)
        if not keep:
            os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            moved = True
        else:
            try:
                os.link(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            except FileExistsError:
                pass
    finally:
        if not moved:
            try:
                os.unlink(temp, dir_fd=dir_fd)
            except OSError:
                pass


def _write_new(name, data, dir_fd):
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dir_fd)
    try:
        while data:
            data = data[os.write(fd, data):]
    finally:
        os.close(fd)


# ---------------------------------------------------------------- the code stamp


def stamp_of(info):
    """A file's identity as a stat result gives it: any rewrite changes its inode or ctime."""
    return info.st_ino, info.st_ctime_ns, info.st_size


def file_stamp(path):
    """``stamp_of`` the file at ``path``; () when there is none."""
    try:
        return stamp_of(os.stat(path))
    except OSError:
        return ()


def code_stamp(folder, names):
    """Which files ``names`` (relative to ``folder``) are: a process that loaded other ones is stale."""
    return tuple(stamp_of(os.stat(os.path.join(folder, name))) for name in names)


# ---------------------------------------------------------------- who is there


def alive(pid):
    """Whether ``pid`` is a process of this user's (another's is a reused pid, not ours) that has
    not ended: a zombie (ended, its parent not yet told, as a server its starter still waits for
    after ``hookmux serve --stop``) is not alive."""
    try:
        os.kill(int(pid), 0)
    except (OSError, ValueError, TypeError, OverflowError):
        return False
    try:
        with open("/proc/%d/stat" % int(pid), "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[0] != b"Z"
    except (OSError, IndexError):
        return True  # no /proc (macOS): the kill probe is the answer


def squatter(port):
    """The uid of another user's process listening on loopback ``port``, or None."""
    from . import loopback

    try:
        others = sorted(uid for uid in loopback.listener_uids(int(port)) if uid != os.getuid())
    except (TypeError, ValueError):
        return None
    return others[0] if others else None


def read_text(path):
    """The text of the file at ``path``, stripped; None when it cannot be read."""
    try:
        with open(path, "r", encoding="utf-8") as handle:
            return handle.read().strip()
    except (OSError, ValueError):
        return None


def answering(folder, timeout=1.0):
    """The run record of the server whose files are in ``folder`` (``serve_folder``) when it is
    up: its pid lives, it listens on the install's port (where the wiring points), no other
    user's process does (the secret is never sent there) and ``GET /<secret>/health`` answers
    with its pid. Else None."""
    import json

    try:
        record = json.loads(read_text(os.path.join(folder, "server.json")) or "null")
        pid, port = int(record["pid"]), int(record["port"])
        wired = int(read_text(os.path.join(folder, "port")) or "0")
    except Exception:
        return None
    secret = read_text(os.path.join(folder, "secret"))
    if not secret or port != wired or not alive(pid) or squatter(port) is not None:
        return None
    import socket

    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
            conn.sendall(("GET /%s/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % secret).encode())
            reply = b""
            while True:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                reply += chunk
        head, _, body = reply.partition(b"\r\n\r\n")
        if head.startswith(b"HTTP/1.1 200") and json.loads(body).get("pid") == pid:
            return record
    except (OSError, ValueError, AttributeError):
        pass
    return None


# ---------------------------------------------------------------- the sweep


def sweep(folder, max_age=None):
    """Remove what processes that died left in ``folder`` (an fd or a path): every entry named
    after a pid (``<pid>``, or ``<pid>-...``, ``<pid>.<kind>``) that is no process of this
    user's, or older than ``max_age`` seconds. Returns how many entries of live processes stay."""
    import time

    fd = folder if isinstance(folder, int) else os.open(folder, os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW)
    now, live = time.time(), 0
    try:
        for name in os.listdir(fd):
            pid = name.split(".", 1)[0].split("-", 1)[0]
            if not pid.isdigit():
                continue
            try:
                if alive(pid) and (max_age is None
                                   or now - os.stat(name, dir_fd=fd, follow_symlinks=False).st_mtime <= max_age):
                    live += 1
                    continue
                os.unlink(name, dir_fd=fd)
            except OSError:
                pass
    finally:
        if fd is not folder:
            os.close(fd)
    return live
