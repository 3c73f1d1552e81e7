"""Trust hook definitions in OpenAI Codex the way Codex itself does: through ``codex app-server``.

Codex runs a hook only when the user's ``config.toml`` holds
``[hooks.state."<hooks file>:<event>:<group>:<handler>"] trusted_hash = "<hash>"`` and the hash
still matches the definition. The hash formula is Codex's own business, so hookmux never
computes it: ``hooks/list`` reports each hook's ``key``, ``currentHash`` and ``trustStatus``,
and ``config/batchWrite`` upserts the records under ``hooks.state``, as the ``/hooks`` screen
does (docs/e2e.md, "Codex"). A record is removed with ``config/value/write`` of ``null`` at
``hooks.state."<key>"`` (the key quoted: it holds the dots of the file path).

The app-server speaks JSON-RPC, one JSON object per line on stdin/stdout. Every request has a
deadline; a missing binary, a crash, an error reply or a timeout is a ``CodexTrustError``.
"""
from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Callable, Iterable

from hookmux import __version__

TIMEOUT = 30.0  # seconds for one app-server session, start to exit


class CodexTrustError(Exception):
    pass


def find_codex(explicit: str | os.PathLike | None = None) -> str | None:
    """``--codex-bin`` if given (it must be an executable file), else ``codex`` on PATH, else None."""
    if explicit:
        path = os.path.abspath(os.path.expanduser(str(explicit)))
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise CodexTrustError(f"--codex-bin {explicit}: not an executable file")
        return path
    return shutil.which("codex")


@dataclass(frozen=True)
class CodexHook:
    key: str
    source_path: str
    event: str  # Codex's camelCase event name, e.g. "preToolUse"
    command: str | None
    matcher: str | None
    current_hash: str
    trust_status: str  # "trusted", "untrusted", "modified", ...

    @property
    def trusted(self) -> bool:
        return self.trust_status == "trusted"


def _same_file(a: str, b: str | os.PathLike) -> bool:
    return os.path.realpath(a) == os.path.realpath(str(b))


class AppServer:
    """One ``codex app-server`` session for ``codex_home``: ``with AppServer(...) as server: ...``."""

    def __init__(self, codex_bin: str, codex_home: str | os.PathLike, timeout: float = TIMEOUT,
                 cwd: str | os.PathLike | None = None) -> None:
        self.codex_bin = os.path.abspath(codex_bin) if os.sep in codex_bin else codex_bin
        self.codex_home = str(codex_home)
        self.cwd = str(cwd or codex_home)
        self.deadline = time.monotonic() + timeout
        self._ids = 0
        self._lines: queue.Queue = queue.Queue()
        self._proc: subprocess.Popen | None = None
        self._stderr = None

    def __enter__(self) -> "AppServer":
        env = dict(os.environ, CODEX_HOME=self.codex_home)
        self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen([self.codex_bin, "app-server"], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=self._stderr, env=env, cwd=self.cwd)
        except OSError as exc:
            self._stderr.close()
            raise CodexTrustError(f"cannot start {self.codex_bin} app-server: {exc.strerror or exc}") from None
        threading.Thread(target=self._read, daemon=True).start()
        try:
            self.request("initialize", {"clientInfo": {"name": "hookmux", "title": None, "version": __version__},
                                        "capabilities": {"experimentalApi": True}})
            self._send({"method": "initialized", "params": {}})
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        proc = self._proc
        if proc is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=max(1.0, min(5.0, self.deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._stderr is not None:
            self._stderr.close()

    def _read(self) -> None:
        for line in self._proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _send(self, message: dict) -> None:
        try:
            self._proc.stdin.write((json.dumps(message) + "\n").encode())
            self._proc.stdin.flush()
        except OSError:
            raise CodexTrustError(f"{self.codex_bin} app-server exited early{self._stderr_tail()}") from None

    def _stderr_tail(self) -> str:
        try:
            self._stderr.seek(0)
            text = self._stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
        lines = [line for line in text.splitlines() if not line.startswith("WARNING: proceeding")]
        return (": " + " | ".join(lines[-3:])) if lines else ""

    def request(self, method: str, params: dict):
        """Send one request; return its ``result``. Notifications in between are skipped."""
        self._ids += 1
        ident = self._ids
        self._send({"id": ident, "method": method, "params": params})
        while True:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise CodexTrustError(f"{self.codex_bin} app-server did not answer {method} in time")
            try:
                line = self._lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise CodexTrustError(f"{self.codex_bin} app-server exited before answering {method}"
                                      f"{self._stderr_tail()}")
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if not isinstance(message, dict) or message.get("id") != ident:
                continue
            if "error" in message:
                error = message["error"]
                text = error.get("message") if isinstance(error, dict) else error
                raise CodexTrustError(f"codex app-server {method}: {text}")
            return message.get("result")

    # ---------------------------------------------------------------- the three calls hookmux makes

    def hooks(self, hooks_file: str | os.PathLike | None = None) -> list[CodexHook]:
        """Every hook Codex sees for the user (only those defined in ``hooks_file`` when given)."""
        result = self.request("hooks/list", {"cwds": [self.cwd]}) or {}
        found: dict[str, CodexHook] = {}
        for entry in result.get("data") or []:
            for hook in entry.get("hooks") or []:
                source = str(hook.get("sourcePath") or "")
                if hooks_file is not None and not (source and _same_file(source, hooks_file)):
                    continue
                found[hook["key"]] = CodexHook(hook["key"], source, str(hook.get("eventName")), hook.get("command"),
                                               hook.get("matcher"), str(hook.get("currentHash")),
                                               str(hook.get("trustStatus")))
        return list(found.values())

    def trust(self, hooks: Iterable[CodexHook]) -> None:
        value = {hook.key: {"trusted_hash": hook.current_hash} for hook in hooks}
        if value:
            self.request("config/batchWrite", {"edits": [{"keyPath": "hooks.state", "value": value,
                                                          "mergeStrategy": "upsert"}],
                                               "reloadUserConfig": True})

    def trust_records(self) -> dict[str, str]:
        """``hooks.state`` of the user's config.toml: key -> trusted hash."""
        result = self.request("config/read", {"includeLayers": True}) or {}
        for layer in result.get("layers") or []:
            name = layer.get("name") or {}
            if isinstance(name, dict) and name.get("type") == "user":
                state = ((layer.get("config") or {}).get("hooks") or {}).get("state") or {}
                return {key: str((value or {}).get("trusted_hash")) for key, value in state.items()
                        if isinstance(value, dict)}
        return {}

    def forget_all(self) -> None:
        self.request("config/value/write", {"keyPath": "hooks.state", "value": None, "mergeStrategy": "replace"})

    def forget(self, keys: Iterable[str]) -> None:
        for key in keys:
            self.request("config/value/write", {"keyPath": f'hooks.state.{json.dumps(key)}', "value": None,
                                                "mergeStrategy": "replace"})


# ---------------------------------------------------------------- what install / uninstall / status do


@dataclass
class TrustReport:
    trusted: list[str]  # keys trusted by this run
    kept: list[str]  # keys of ours that were trusted already
    forgotten: list[str]  # stale records removed


def _file_keys(records: dict[str, str], hooks_file: str | os.PathLike) -> list[str]:
    """Records of ``hooks_file``: keys are ``<file>:<event>:<group>:<handler>``."""
    out = []
    for key in records:
        path = key.rsplit(":", 3)[0]
        if path and _same_file(path, hooks_file):
            out.append(key)
    return out


def trust_own(codex_bin: str, codex_home: str | os.PathLike, hooks_file: str | os.PathLike,
              is_ours: Callable[[str | None], bool], timeout: float = TIMEOUT,
              trusted_before: dict[str, str] | None = None) -> TrustReport:
    """Trust exactly hookmux's hooks in ``hooks_file``; drop records whose hook is gone.

    ``trusted_before`` (hash -> True for the user's hooks trusted before hookmux rewrote the
    file, see ``snapshot``) lets a user's hook that moved to another index keep its trust.
    """
    with AppServer(codex_bin, codex_home, timeout) as server:
        hooks = server.hooks(hooks_file)
        ours = [h for h in hooks if is_ours(h.command)]
        moved = [h for h in hooks if not is_ours(h.command) and not h.trusted
                 and h.current_hash in (trusted_before or {})]
        to_trust = [h for h in ours if not h.trusted] + moved
        server.trust(to_trust)
        live = {h.key for h in hooks}
        stale = [key for key in _file_keys(server.trust_records(), hooks_file) if key not in live]
        server.forget(stale)
        if stale and not server.trust_records():
            server.forget_all()  # no empty [hooks.state] table left behind
    return TrustReport([h.key for h in to_trust], [h.key for h in ours if h.trusted], stale)


def snapshot(codex_bin: str, codex_home: str | os.PathLike, hooks_file: str | os.PathLike,
             is_ours: Callable[[str | None], bool], timeout: float = TIMEOUT) -> dict[str, str]:
    """The user's own trusted hooks in ``hooks_file`` before a rewrite: currentHash -> key."""
    with AppServer(codex_bin, codex_home, timeout) as server:
        return {h.current_hash: h.key for h in server.hooks(hooks_file) if h.trusted and not is_ours(h.command)}


def forget_own(codex_bin: str, codex_home: str | os.PathLike, hooks_file: str | os.PathLike,
               trusted_before: dict[str, str] | None = None, timeout: float = TIMEOUT) -> TrustReport:
    """After hookmux's entries left ``hooks_file``: remove the records no hook answers to any
    more (theirs), and carry the trust of a user's hook that moved up to its new key."""
    return trust_own(codex_bin, codex_home, hooks_file, lambda command: False, timeout, trusted_before)


def trust_state(codex_bin: str, codex_home: str | os.PathLike, hooks_file: str | os.PathLike,
                timeout: float = TIMEOUT) -> list[CodexHook]:
    """What Codex says about each hook of ``hooks_file`` (for ``status``)."""
    with AppServer(codex_bin, codex_home, timeout) as server:
        return server.hooks(hooks_file)
