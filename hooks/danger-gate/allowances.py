"""The user's allowances: exact commands the danger gate lets through in one project.

    <state dir>/danger-gate/allowances.json   (folder 0700, file 0600, both the user's own)
    {"version": 1, "allowances": [{"command": C, "project": P, "created": T, "expires": T,
                                   "once": bool, "sig": HEX}, ...]}
    <state dir>/danger-gate/allowances.key    (0600: 32 random bytes, hex; made by the CLI)
    <state dir>/danger-gate/recent-denials.json  (0600: the last RECENT_MAX commands denied)

Only ``hookmux allow`` (the user, at a terminal: it reads a typed confirmation from
/dev/tty) adds one. The gate reads the file on a block and removes a ``once`` allowance it
used; it never adds one. The gate honours an entry only when

- its ``sig`` is the HMAC-SHA256, keyed by ``allowances.key``, of its other fields (the
  CLI signs each entry it writes: an entry printed into the file by hand is ignored), and
- it lives at most MAX_LIFETIME (24 hours) from its creation: ``expires - created`` is at
  most 24 h, ``created`` is not in the future and ``expires`` is at most 24 h from now.

The key is readable by the same user, so the signature stops a naive forgery (``printf``
into the file), not one that reads the key: a real boundary needs the protected ground.

A file or folder that is a symlink, not owned by this user, or writable by others is ignored
(another local user cannot plant an allowance), and so is a malformed file. The CLI loads
this same file from the hooks tree, so the format has one home. Standard library only;
hmac and hashlib are imported only when there are entries to check.
"""
import os
import time

VERSION = 1
FOLDER = "danger-gate"
FILE = "allowances.json"
KEY = "allowances.key"
RECENT = "recent-denials.json"
LOCK = ".allowances.lock"
MAX_ENTRIES = 1000
MAX_PARENTS = 64
#: The longest an allowance is honoured, from its creation (seconds): 24 hours.
MAX_LIFETIME = 24 * 3600
#: Clock skew tolerated on ``created`` (seconds).
SKEW = 60
#: How many denied commands recent-denials.json keeps.
RECENT_MAX = 10
SIGNED = ("command", "project", "created", "expires", "once")


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
    data = _private_bytes(path(state_dir), 4 << 20)
    return [] if data is None else _entries(data)


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


def _private_bytes(file_path, limit):
    """The bytes of a private regular file of this user in a private folder, or None."""
    try:
        if not _owned_private(os.lstat(os.path.dirname(file_path)), True):
            return None
        fd = os.open(file_path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not _owned_private(info, False) or info.st_mode & 0o077 or info.st_size > limit:
            return None
        with os.fdopen(fd, "rb") as handle:
            fd = None
            return handle.read()
    except OSError:
        return None
    finally:
        if fd is not None:
            os.close(fd)


def key_path(state_dir):
    return os.path.join(folder(state_dir), KEY)


def read_key(state_dir):
    """The signing key (bytes), or None when it is missing, unsafe or malformed."""
    data = _private_bytes(key_path(state_dir), 4096)
    if data is None:
        return None
    data = data.strip()
    return data if len(data) >= 32 else None


def ensure_key(state_dir):
    """The signing key, made (0600, O_EXCL) when there is none yet. The CLI's alone."""
    key = read_key(state_dir)
    if key is not None:
        return key
    directory = folder(state_dir)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    if not _owned_private(os.lstat(directory), True):
        raise PermissionError("%s is not a private folder of this user" % directory)
    target = key_path(state_dir)
    if os.path.lexists(target):
        os.unlink(target)  # unsafe or malformed: replaced (entries signed with it stop counting)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(os.urandom(32).hex() + "\n")
    key = read_key(state_dir)
    if key is None:
        raise PermissionError("%s: cannot make the signing key" % target)
    return key


def signature(key, entry):
    """HMAC-SHA256 (hex) of the entry's SIGNED fields, keyed by ``key``."""
    import hashlib
    import hmac
    import json

    body = json.dumps([entry.get(name) for name in SIGNED], sort_keys=True, separators=(",", ":"))
    return hmac.new(key, body.encode("utf-8"), hashlib.sha256).hexdigest()


def sign(key, entry):
    """``entry`` with its ``sig``."""
    entry = dict(entry)
    entry.pop("sig", None)
    entry["sig"] = signature(key, entry)
    return entry


def honoured(entry, key, now=None):
    """Whether the gate honours ``entry``: signed with ``key``, and within MAX_LIFETIME."""
    import hmac

    now = time.time() if now is None else now
    created, expires, sig = entry.get("created"), entry["expires"], entry.get("sig")
    if key is None or not isinstance(sig, str) or not isinstance(created, (int, float)) or isinstance(created, bool):
        return False
    if not (expires > now and created <= now + SKEW and expires - created <= MAX_LIFETIME
            and expires <= now + MAX_LIFETIME):
        return False
    return hmac.compare_digest(sig, signature(key, entry))


def find(entries, command, project, now=None, key=None):
    """The first honoured entry (``honoured``) for exactly ``command`` in ``project``, or None."""
    command = command.strip()
    for entry in live(entries, now):
        if entry["command"] == command and entry["project"] == project and honoured(entry, key, now):
            return entry
    return None


def recent_path(state_dir):
    return os.path.join(folder(state_dir), RECENT)


def read_recent(state_dir):
    """The commands the gate denied last, oldest first: [{"command", "project", "at"}, ...]."""
    data = _private_bytes(recent_path(state_dir), 1 << 20)
    if data is None:
        return []
    import json

    try:
        document = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return []
    items = document.get("denied") if isinstance(document, dict) else None
    if not isinstance(items, list):
        return []
    return [item for item in items if isinstance(item, dict) and isinstance(item.get("command"), str)
            and item["command"] and isinstance(item.get("project"), str) and item["project"]
            and isinstance(item.get("at"), (int, float))][-RECENT_MAX:]


def record_denial(state_dir, command, project, state, limit=4000):
    """Add ``command`` (denied in ``project``) to recent-denials.json: the last RECENT_MAX,
    one per (command, project), 0600. A command longer than ``limit`` is not kept.
    ``state``: ``_common.state`` (its lock and its atomic writer, the hooks' one)."""
    import json

    command = command.strip()
    if len(command) > limit:
        return
    directory = folder(state_dir)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    if not _owned_private(os.lstat(directory), True):
        return
    with state.file_lock(lock_path(state_dir), 1.0):
        items = [item for item in read_recent(state_dir)
                 if not (item["command"] == command and item["project"] == project)]
        items.append({"command": command, "project": project, "at": time.time()})
        state.atomic_write_text(recent_path(state_dir),
                                json.dumps({"version": VERSION, "denied": items[-RECENT_MAX:]}, indent=2) + "\n")


def write(state_dir, entries, state):
    """Replace the file with ``entries`` (expired ones dropped), atomically, 0600, by
    ``state.atomic_write_text`` (``state``: ``_common.state``)."""
    import json

    directory = folder(state_dir)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    info = os.lstat(directory)
    if not _owned_private(info, True):
        raise PermissionError("%s is not a private folder of this user" % directory)
    kept = live(entries)[-MAX_ENTRIES:]
    text = json.dumps({"version": VERSION, "allowances": kept}, indent=2, sort_keys=True) + "\n"
    state.atomic_write_text(path(state_dir), text)


def lock_path(state_dir):
    """The lock file of a read-change-write (held with ``_common.state.file_lock``)."""
    return os.path.join(folder(state_dir), LOCK)


def consume(state_dir, entry, state):
    """Remove a used ``once`` entry; False when it was gone already (another call used it).
    ``state``: ``_common.state``."""
    with state.file_lock(lock_path(state_dir), 1.0):
        entries = read(state_dir)
        for index, stored in enumerate(entries):
            if stored == entry:
                del entries[index]
                write(state_dir, entries, state)
                return True
    return False
