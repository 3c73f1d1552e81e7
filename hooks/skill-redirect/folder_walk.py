"""Bounded, loop-safe walks of agent and skill folders, and the frontmatter they hold.

Symlinks are followed the way the hosts follow them (a linked folder or file counts);
a folder already entered in one walk is not entered again, so a link back up the tree
ends. Whatever the walk cannot see for sure -- an unreadable folder or file, a limit
reached -- clears ``Budget.complete``: the caller then cannot prove a name absent.
A folder or file that does not exist (a dangling link) is simply nothing.
"""
import errno
import os
import stat

MAX_DEPTH = 8
MAX_FILES = 10000
MAX_ENTRIES = 200000
MAX_READ = 64 * 1024

_ABSENT = (errno.ENOENT, errno.ENOTDIR, errno.ELOOP)
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class Budget:
    """Limits shared by the walks of one decision, and whether they saw everything."""

    __slots__ = ("entries", "files", "complete")

    def __init__(self):
        self.entries = 0  #: directory entries listed so far
        self.files = 0  #: files read so far
        self.complete = True  #: False once anything was skipped for a reason other than absence


def walk(root, budget, max_depth=MAX_DEPTH, deeper_unknown=True):
    """Yield ``(parts, entry)`` for each non-folder below root (parts: folder names under root).

    Folders deeper than max_depth are not entered; with deeper_unknown (the host would
    look there) that clears budget.complete.
    """
    try:
        status = os.stat(root)
    except OSError as error:
        if error.errno not in _ABSENT:
            budget.complete = False
        return
    if not stat.S_ISDIR(status.st_mode):
        return
    entered = {(status.st_dev, status.st_ino)}
    stack = [(root, (), status.st_dev)]
    while stack:
        folder, parts, device = stack.pop()
        try:
            listing = os.scandir(folder)
        except OSError as error:
            if error.errno not in _ABSENT:
                budget.complete = False
            continue
        children = []
        with listing:
            for entry in listing:
                budget.entries += 1
                if budget.entries > MAX_ENTRIES:
                    budget.complete = False
                    return
                try:
                    is_dir = entry.is_dir()
                    if not is_dir:
                        key = None
                    elif entry.is_symlink():  # where it leads: one stat
                        status = entry.stat()
                        key = (status.st_dev, status.st_ino)
                    else:  # a plain folder: the inode from the listing, no syscall
                        key = (device, entry.inode())
                except OSError as error:
                    if error.errno not in _ABSENT:
                        budget.complete = False
                    continue
                if key is None:
                    yield parts, entry
                elif len(parts) >= max_depth:
                    if deeper_unknown:
                        budget.complete = False
                elif key not in entered:
                    entered.add(key)
                    children.append((entry.path, parts + (entry.name,), key[0]))
        stack.extend(reversed(children))


def read_head(path, budget):
    """The first MAX_READ bytes of the regular file at path (symlinks followed), or None."""
    budget.files += 1
    if budget.files > MAX_FILES:
        budget.complete = False
        return None
    try:
        handle = os.open(path, _OPEN_FLAGS)
    except OSError as error:
        if error.errno not in _ABSENT:
            budget.complete = False
        return None
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            budget.complete = False
            return None
        chunks = []
        remaining = MAX_READ
        while remaining > 0:
            chunk = os.read(handle, remaining)
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError:
        budget.complete = False
        return None
    finally:
        os.close(handle)
    return b"".join(chunks)


def frontmatter(data):
    """The top-level scalar keys of a leading ``---`` block ({} when there is none).

    UTF-8 BOM, CRLF/CR line ends, quotes and a trailing `` # comment`` are tolerated. A block
    that is never closed is no frontmatter, unless the read stopped at MAX_READ inside it.
    Only the block is decoded: the likeliest closing line is tried first.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.startswith(b"---"):
        return {}
    end = len(data)
    for marker in (b"\n---", b"\r---", b"\n...", b"\r..."):
        at = data.find(marker, 3, end)
        if at >= 0:
            end = at
    if end < len(data):
        keys = _block(data[:end + 6])
        if keys is not None:
            return keys
    keys = _block(data, len(data) >= MAX_READ)
    return {} if keys is None else keys


def _block(data, unclosed_ok=False):
    """The keys of the frontmatter in data; None when its block is not closed there (unless unclosed_ok)."""
    lines = data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[0].rstrip() != "---":
        return {}
    keys = {}
    for line in lines[1:]:
        if line.rstrip() in ("---", "..."):
            return keys
        key, colon, value = line.partition(":")
        if colon and key and key[0] not in " \t#-" and key not in keys:
            keys[key.rstrip()] = _scalar(value.strip())
    return keys if unclosed_ok else None


def _scalar(value):
    if value[:1] in ("'", '"'):
        end = value.find(value[0], 1)
        return value[1:end] if end > 0 else ""
    return value.split(" #", 1)[0].strip()
