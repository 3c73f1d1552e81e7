"""Load a user's JSON file, refusing what cannot be edited safely, and write it back in the
file's own style (indent, trailing newline, BOM, ASCII escaping)."""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from hookmux.errors import HookmuxError
from hookmux.installer import jsonedit


class JsonFileError(HookmuxError):
    """A file hookmux will not edit; the message names the file (and line when known)."""


@dataclass
class Style:
    indent: int | str = 2
    newline: bool = True
    bom: bool = False
    ensure_ascii: bool = False


@dataclass
class JsonFile:
    path: Path
    exists: bool
    raw: bytes = b""
    text: str = ""
    data: dict = field(default_factory=dict)
    style: Style = field(default_factory=Style)

    def render(self, data: dict) -> bytes:
        """``data`` as this file's bytes: the file's own text where the data did not change."""
        if self.exists and self.text.strip():
            try:
                text = jsonedit.rewrite(self.text, self.data, data, self.style.indent, self.style.ensure_ascii)
                if jsonedit.canon(json.loads(text, object_pairs_hook=_reject_duplicates(self.path))) \
                        == jsonedit.canon(data):
                    out = text.encode("utf-8")
                    return b"\xef\xbb\xbf" + out if self.style.bom else out
            except (ValueError, IndexError, JsonFileError, RecursionError):
                pass
        return dump(data, self.style)


def _reject_duplicates(path: Path):
    def hook(pairs):
        seen = {}
        for key, value in pairs:
            if key in seen:
                raise JsonFileError(f"{path}: duplicate key {key!r}; hookmux would lose one of them")
            seen[key] = value
        return seen
    return hook


def detect_style(text: str) -> Style:
    style = Style(newline=text.endswith("\n") or not text.strip())
    match = re.search(r"\n([ \t]+)\S", text)
    if match:
        lead = match.group(1)
        style.indent = "\t" if lead.startswith("\t") else len(lead)
    style.ensure_ascii = bool(re.search(r"\\u[0-9a-fA-F]{4}", text)) and text.isascii()
    return style


def load(path: os.PathLike | str) -> JsonFile:
    """The file's object, or ``exists=False``; raises JsonFileError for anything else."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return JsonFile(path=path, exists=False)
    except IsADirectoryError:
        raise JsonFileError(f"{path}: is a directory") from None
    except OSError as exc:
        raise JsonFileError(f"{path}: cannot read ({exc.strerror})") from None
    bom = raw.startswith(b"\xef\xbb\xbf")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise JsonFileError(f"{path}:{line}: not valid UTF-8") from None
    style = detect_style(text)
    style.bom = bom
    if not text.strip():
        return JsonFile(path=path, exists=True, raw=raw, text=text, data={}, style=style)
    try:
        data = json.loads(text, object_pairs_hook=_reject_duplicates(path))
    except json.JSONDecodeError as exc:
        raise JsonFileError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise JsonFileError(f"{path}:1: the top level is a JSON {type(data).__name__}, not an object")
    return JsonFile(path=path, exists=True, raw=raw, text=text, data=data, style=style)


def dump(data: dict, style: Style) -> bytes:
    text = json.dumps(data, indent=style.indent, ensure_ascii=style.ensure_ascii)
    if style.newline:
        text += "\n"
    out = text.encode("utf-8")
    return b"\xef\xbb\xbf" + out if style.bom else out
