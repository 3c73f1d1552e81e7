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
    crlf: bool = False  # every line ends in \r\n


MAX_DEPTH = 100  # deeper settings are refused: the editor and deepcopy recurse per level


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
                    out = _line_ends(text, self.style).encode("utf-8")
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
    style.crlf = "\r\n" in text and text.count("\n") == text.count("\r\n")
    return style


def _line_ends(text: str, style: Style) -> str:
    """JSON text holds newlines only as whitespace, so every lone one can become \r\n."""
    return re.sub(r"(?<!\r)\n", "\r\n", text) if style.crlf else text


def _depth(value) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            if deepest > MAX_DEPTH:
                return deepest
            stack += [(child, level + 1) for child in (item.values() if isinstance(item, dict) else item)]
    return deepest


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
    except RecursionError:
        raise JsonFileError(f"{path}: nested too deeply to read; hookmux will not edit it") from None
    except ValueError as exc:  # e.g. an integer longer than the interpreter converts (4300 digits)
        raise JsonFileError(f"{path}: cannot read a value ({exc}); hookmux will not edit it") from None
    if not isinstance(data, dict):
        raise JsonFileError(f"{path}:1: the top level is a JSON {type(data).__name__}, not an object")
    if _depth(data) > MAX_DEPTH:
        raise JsonFileError(f"{path}: nested deeper than {MAX_DEPTH} levels; hookmux will not edit it")
    return JsonFile(path=path, exists=True, raw=raw, text=text, data=data, style=style)


def dump(data: dict, style: Style) -> bytes:
    text = json.dumps(data, indent=style.indent, ensure_ascii=style.ensure_ascii)
    if style.newline:
        text += "\n"
    out = _line_ends(text, style).encode("utf-8")
    return b"\xef\xbb\xbf" + out if style.bom else out
