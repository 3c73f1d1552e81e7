"""Where one install's server keeps its secret, its port and its run record.

    <state_dir>/serve/<key>/secret        32 random bytes, hex; mode 0600; made once, kept
    <state_dir>/serve/<key>/port          the loopback port the wiring names; chosen once, kept
    <state_dir>/serve/<key>/server.json   {"pid", "port", "hooks", "version", "started"} while it runs

``key`` is a digest of the hooks folder's real path: one server per user (the state dir) and
install (the hooks folder). The wired URL carries the secret and the port, so both outlive
the server: a restart binds the same port and accepts the same secret. Where the folder is,
how its files are written and who is alive: hooks/_common/warm.py, which the SessionStart hook
(hooks/_serve/ensure.py) uses too.

"""
from __future__ import annotations

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


def warm_module():
    from hookmux import resources

    return resources.runtime("warm")


def folder(hooks):
    return warm_module().serve_folder(hooks)


def _create_private(path, text):
    """Write ``text`` to a new file readable by the user only; keep an existing one (first writer wins)."""
    warm = warm_module()
    warm.make_private(os.path.dirname(path))
    warm.write_file(path, text.encode("utf-8"), keep=True)


def secret(hooks, create=True):
    """The install's secret (hex), made on first use; None when missing and not ``create``."""
    path = os.path.join(folder(hooks), "secret")
    if create and not os.path.exists(path):
        _create_private(path, secrets.token_hex(32))
    try:
        st = os.stat(path)
        if st.st_mode & 0o077 or st.st_uid != os.getuid():
            os.chmod(path, 0o600)
    except OSError:
        return None
    return warm_module().read_text(path) or None


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
    warm_module().write_file(path, b"%d\n" % free_port())
    return True


def _read_port(path):
    try:
        value = int(warm_module().read_text(path) or "")
    except ValueError:
        return None
    return value if 0 < value < 65536 else None


def _held_by_another_user(port):
    return warm_module().squatter(port) is not None


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
    warm = warm_module()
    warm.make_private(os.path.dirname(path))
    warm.write_file(path, json.dumps(data).encode("utf-8"))


def remove_record(hooks, pid):
    """Remove the run record if it is still ``pid``'s."""
    data = read_record(hooks)
    if data and data.get("pid") == pid:
        try:
            os.unlink(record_path(hooks))
        except OSError:
            pass


def pid_alive(pid):
    return warm_module().alive(pid)


def remember_target(hooks):
    """Note which hooks folder this serve folder is for (the installer maps wired URLs back)."""
    path = os.path.join(folder(hooks), "target")
    warm = warm_module()
    warm.make_private(os.path.dirname(path))
    warm.write_file(path, os.path.realpath(str(hooks)).encode("utf-8", "surrogateescape"))


def target_of(secret_hex):
    """The hooks folder whose secret is ``secret_hex``, or None."""
    import hmac

    warm = warm_module()
    root = warm.serve_root()
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return None
    for name in names:
        kept = warm.read_text(os.path.join(root, name, "secret"))
        if kept is not None and hmac.compare_digest(kept.encode("utf-8", "surrogateescape"),
                                                    secret_hex.encode("utf-8", "surrogateescape")):
            return warm.read_text(os.path.join(root, name, "target")) or None
    return None
