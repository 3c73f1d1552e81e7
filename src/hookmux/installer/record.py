"""``<target>/.hookmux-installed.json``: what hookmux installed, wired and created there.

It holds no timestamps, so a second install with nothing changed rewrites nothing.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from hookmux.installer.jsonfile import JsonFileError

NAME = ".hookmux-installed.json"
FORMAT = 1


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Record:
    target: str
    hookmux: str = ""
    python: str = ""
    files: dict[str, str] = field(default_factory=dict)  # rel path -> sha256 of what was installed
    legacy: dict[str, str] = field(default_factory=dict)  # rel path -> where the user's file was kept
    dirs: list[str] = field(default_factory=list)  # folders hookmux created ("." = the target)
    agents_dirs: list[str] = field(default_factory=list)
    source: str = ""  # the hooks tree installed from, when not the package's own
    wired: dict[str, dict] = field(default_factory=dict)  # file -> {host, created_file, created}
    # An install in progress writes its record first, marked pending, so a crashed run's
    # successor still knows what hookmux created; ``replacing`` holds the hashes of installed
    # files it is about to overwrite.
    pending: bool = False
    replacing: dict[str, str] = field(default_factory=dict)
    # ``hookmux adopt``: the user's hooks moved into the manifest and how to put them back
    # (owned by hookmux.adopt; written only while non-empty).
    adopted: dict = field(default_factory=dict)
    # hookmux's part of the live manifest (manifest_merge): event -> {settings, checks by name};
    # mid-install, ``manifest_replacing`` is the part the previous install wrote.
    manifest: dict = field(default_factory=dict)
    manifest_replacing: dict = field(default_factory=dict)

    def ours_unedited(self, rel: str, sha: str) -> bool:
        return sha in (self.files.get(rel), self.replacing.get(rel))

    def to_bytes(self) -> bytes:
        body = {
            "format": FORMAT,
            "hookmux": self.hookmux,
            "target": self.target,
            "python": self.python,
            "files": dict(sorted(self.files.items())),
            "legacy": dict(sorted(self.legacy.items())),
            "dirs": sorted(set(self.dirs)),
            "agents_dirs": list(self.agents_dirs),
            "source": self.source,
            "wired": {k: self.wired[k] for k in sorted(self.wired)},
        }
        if self.adopted:
            body["adopted"] = self.adopted
        if self.manifest:
            body["manifest"] = self.manifest
        if self.pending:
            body["pending"] = True
            body["replacing"] = dict(sorted(self.replacing.items()))
            if self.manifest_replacing:
                body["manifest_replacing"] = self.manifest_replacing
        return (json.dumps(body, indent=2) + "\n").encode()


def path_of(target: Path) -> Path:
    return target / NAME


def state_dir() -> Path:
    """The hooks' own ``state_dir()`` (hooks/_common/state.py), so both layers agree."""
    from hookmux import resources

    return Path(resources.runtime("state").state_dir())


def pending_path(target: Path) -> Path:
    """Where an install in progress keeps its record: outside the target, so it can be written
    before the target or any folder in it is created."""
    real = os.path.realpath(os.path.abspath(target))  # one install, however the target is spelled
    return state_dir() / "pending" / f"{sha256(real.encode())[:24]}.json"


def load(target: Path) -> Record | None:
    """The record of ``target``; a crashed install's pending record wins over the last complete one."""
    pending = _load(pending_path(target), target)
    return pending if pending is not None else _load(path_of(target), target)


def _load(path: Path, target: Path) -> Record | None:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise JsonFileError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        body = json.loads(raw)
        if not isinstance(body, dict) or body.get("format") != FORMAT:
            raise ValueError("unknown format")
        return Record(
            target=str(body.get("target") or target),
            hookmux=str(body.get("hookmux", "")),
            python=str(body.get("python", "")),
            files={str(k): str(v) for k, v in dict(body.get("files") or {}).items()},
            legacy={str(k): str(v) for k, v in dict(body.get("legacy") or {}).items()},
            dirs=[str(d) for d in body.get("dirs") or []],
            agents_dirs=[str(d) for d in body.get("agents_dirs") or []],
            source=str(body.get("source") or ""),
            wired={str(k): dict(v) for k, v in dict(body.get("wired") or {}).items()},
            pending=bool(body.get("pending")),
            replacing={str(k): str(v) for k, v in dict(body.get("replacing") or {}).items()},
            adopted=dict(body.get("adopted") or {}),
            manifest=dict(body.get("manifest") or {}),
            manifest_replacing=dict(body.get("manifest_replacing") or {}),
        )
    except (ValueError, TypeError, AttributeError) as exc:
        raise JsonFileError(f"{path}: not a hookmux install record ({exc}); move it away to continue") from None
