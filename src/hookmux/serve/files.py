"""Where one install's server keeps its secret, its port and its run record.

    <state_dir>/serve/<key>/secret        32 random bytes, hex; mode 0600; made once, kept
    <state_dir>/serve/<key>/port          the loopback port the wiring names; chosen once, kept
    <state_dir>/serve/<key>/server.json   {"pid", "port", "hooks", "version", "started"} while it runs

``key`` is a digest of the hooks folder's real path: one server per user (the state dir) and
install (the hooks folder). The wired URL carries the secret and the port, so both outlive
the server: a restart binds the same port and accepts the same secret.

"""
from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import socket


# A wired hook URL of ``hookmux serve``: it carries an install's secret (wiring.serve_url).
SECRET_URL = re.compile(rb"http://127\.0\.0\.1:\d+/[0-9a-f]{64}/")


def carries_secret(data: bytes | None) -> bool:
    """Whether a settings file's bytes hold a serve URL, and so a secret: it is written 0600."""
    return bool(data) and SECRET_URL.search(data) is not None


def exposed(path) -> str | None:
    """Why the settings file at ``path`` gives the secret it carries away (others may read
    it), or None (it carries none, or only this user may read it)."""
    try:
        real = os.path.realpath(path)
        with open(real, "rb") as handle:
            if not carries_secret(handle.read()):
                return None
        mode = os.stat(real).st_mode & 0o777
    except OSError:
        return None
    if mode & 0o077:
        return f"{real} carries the hookmux serve secret and others may read it (mode {mode:o}): chmod 600 {real}"
    return None


def state_dir():
    """The one ``state_dir()`` (hooks/_common/state.py), loaded from the package's hooks tree."""
    from hookmux import resources

    return resources.runtime("state").state_dir()


def folder(hooks):
    key = hashlib.sha256(os.path.realpath(str(hooks)).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return os.path.join(state_dir(), "serve", key)


def _private_dir(path):
    os.makedirs(path, mode=0o700, exist_ok=True)
    os.chmod(path, 0o700)


def _create_private(path, text):
    """Write ``text`` to a new file readable by the user only; keep an existing one (first writer wins)."""
    _private_dir(os.path.dirname(path))
    temp = "%s.%d.%s.tmp" % (path, os.getpid(), secrets.token_hex(4))
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    try:
        os.link(temp, path)  # fails when it exists: a racing writer keeps theirs
    except FileExistsError:
        pass
    finally:
        os.unlink(temp)


def secret(hooks, create=True):
    """The install's secret (hex), made on first use; None when missing and not ``create``."""
    path = os.path.join(folder(hooks), "secret")
    if create and not os.path.exists(path):
        _create_private(path, secrets.token_hex(32))
    try:
        st = os.stat(path)
        if st.st_mode & 0o077 or st.st_uid != os.getuid():
            os.chmod(path, 0o600)
        with open(path, "r", encoding="ascii") as handle:
            value = handle.read().strip()
    except (OSError, ValueError):
        return None
    return value or None


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port(hooks, create=True):
    """The install's port, chosen (a free loopback port) on first use; None when missing and not ``create``."""
    path = os.path.join(folder(hooks), "port")
    if create and not os.path.exists(path):
        _create_private(path, "%d\n" % free_port())
    return _read_port(path)


def move_if_held(hooks):
    """``install --serve``: give up the kept port for a new one when another user's process
    listens on it (the wiring written next names the new one). Whether it moved."""
    path = os.path.join(folder(hooks), "port")
    value = _read_port(path)
    if value is None or not _held_by_another_user(value):
        return False
    temp = "%s.%d.%s.tmp" % (path, os.getpid(), secrets.token_hex(4))
    with open(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="ascii") as handle:
        handle.write("%d\n" % free_port())
    os.replace(temp, path)
    return True


def _read_port(path):
    try:
        with open(path, "r", encoding="ascii") as handle:
            value = int(handle.read().strip())
    except (OSError, ValueError):
        return None
    return value if 0 < value < 65536 else None


def _held_by_another_user(port):
    from hookmux import resources

    return any(uid != os.getuid() for uid in resources.runtime("loopback").listener_uids(port))


def record_path(hooks):
    return os.path.join(folder(hooks), "server.json")


def read_record(hooks):
    try:
        with open(record_path(hooks), "r", encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_record(hooks, data):
    path = record_path(hooks)
    _private_dir(os.path.dirname(path))
    temp = "%s.%d.tmp" % (path, os.getpid())
    with open(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    os.replace(temp, path)


def remove_record(hooks, pid):
    """Remove the run record if it is still ``pid``'s."""
    data = read_record(hooks)
    if data and data.get("pid") == pid:
        try:
            os.unlink(record_path(hooks))
        except OSError:
            pass


def pid_alive(pid):
    try:
        os.kill(int(pid), 0)
    except (OSError, ValueError, TypeError):
        return False
    return True


def remember_target(hooks):
    """Note which hooks folder this serve folder is for (the installer maps wired URLs back)."""
    path = os.path.join(folder(hooks), "target")
    _private_dir(os.path.dirname(path))
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as handle:
        handle.write(os.path.realpath(str(hooks)))


def target_of(secret_hex):
    """The hooks folder whose secret is ``secret_hex``, or None."""
    import hmac

    root = os.path.join(state_dir(), "serve")
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return None
    for name in names:
        try:
            with open(os.path.join(root, name, "secret"), "r", encoding="ascii") as handle:
                if not hmac.compare_digest(handle.read().strip(), secret_hex):
                    continue
            with open(os.path.join(root, name, "target"), "r", encoding="utf-8") as handle:
                return handle.read().strip() or None
        except (OSError, ValueError):
            continue
    return None
