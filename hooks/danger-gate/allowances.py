"""The user's allowances: exact commands the danger gate lets through in one project.

    <state dir>/danger-gate/allowances.json   (folder 0700, file 0600, both the user's own)
    {"version": 1, "allowances": [{"command": C, "project": P, "created": T, "expires": T,
                                   "once": bool}, ...]}

Only ``hookmux allow`` (the user, in a terminal) adds one. The gate reads the file on a
block and removes a ``once`` allowance it used; it never adds one. A file or folder that is
a symlink, not owned by this user, or writable by others is ignored (another local user
cannot plant an allowance), and so is a malformed file. The CLI loads this same file from
the hooks tree, so the format has one home. Standard library only.
"""
import os
import time

VERSION = 1
FOLDER = "danger-gate"
FILE = "allowances.json"
LOCK = ".allowances.lock"
MAX_ENTRIES = 1000
MAX_PARENTS = 64


def project_root(cwd):
    """The project a command runs in: the nearest folder from ``cwd`` up that holds ``.git``,
    else ``cwd`` itself (real paths; "" when ``cwd`` is empty)."""
    if not cwd:
        return ""
    start = os.path.realpath(cwd)
    folder = start
    for _ in range(MAX_PARENTS):
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return start


def folder(state_dir):
    return os.path.join(state_dir, FOLDER)


def path(state_dir):
    return os.path.join(folder(state_dir), FILE)


def _owned_private(info, want_dir):
    import stat

    kind_ok = stat.S_ISDIR(info.st_mode) if want_dir else stat.S_ISREG(info.st_mode)
    return kind_ok and info.st_uid == os.geteuid() and not info.st_mode & 0o022


def read(state_dir):
    """The allowance entries as stored ([] when the file is missing, unsafe or malformed)."""
    try:
        if not _owned_private(os.lstat(folder(state_dir)), True):
            return []
        fd = os.open(path(state_dir), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return []
    try:
        info = os.fstat(fd)
        if not _owned_private(info, False) or info.st_mode & 0o077 or info.st_size > 4 << 20:
            return []
        with os.fdopen(fd, "rb") as handle:
            fd = None
            data = handle.read()
    except OSError:
        return []
    finally:
        if fd is not None:
            os.close(fd)
    return _entries(data)


def _entries(data):
    try:
        from _common.event import loads
    except ImportError:  # the CLI, which loads this file by its path
        from json import loads
    try:
        document = loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return []
    entries = document.get("allowances") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        return []
    return [entry for entry in entries if _valid(entry)]


def _valid(entry):
    return (isinstance(entry, dict) and isinstance(entry.get("command"), str) and entry["command"]
            and isinstance(entry.get("project"), str) and entry["project"]
            and isinstance(entry.get("expires"), (int, float)) and not isinstance(entry.get("expires"), bool)
            and isinstance(entry.get("once", False), bool))


def live(entries, now=None):
    now = time.time() if now is None else now
    return [entry for entry in entries if entry["expires"] > now]


def find(entries, command, project, now=None):
    """The first live entry for exactly ``command`` in ``project``, or None."""
    command = command.strip()
    for entry in live(entries, now):
        if entry["command"] == command and entry["project"] == project:
            return entry
    return None


def write(state_dir, entries):
    """Replace the file with ``entries`` (expired ones dropped), atomically, 0600."""
    import json

    directory = folder(state_dir)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    info = os.lstat(directory)
    if not _owned_private(info, True):
        raise PermissionError("%s is not a private folder of this user" % directory)
    kept = live(entries)[-MAX_ENTRIES:]
    text = json.dumps({"version": VERSION, "allowances": kept}, indent=2, sort_keys=True) + "\n"
    temp = os.path.join(directory, ".%s.%d.%s.tmp" % (FILE, os.getpid(), os.urandom(4).hex()))
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temp, path(state_dir))
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def lock_path(state_dir):
    """The lock file of a read-change-write (held with ``_common.state.file_lock``)."""
    return os.path.join(folder(state_dir), LOCK)


def consume(state_dir, entry, file_lock):
    """Remove a used ``once`` entry; False when it was gone already (another call used it).
    ``file_lock``: ``_common.state.file_lock``."""
    with file_lock(lock_path(state_dir), 1.0):
        entries = read(state_dir)
        for index, stored in enumerate(entries):
            if stored == entry:
                del entries[index]
                write(state_dir, entries)
                return True
    return False
