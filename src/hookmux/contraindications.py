"""Validate a contraindication registry (hooks/contraindication/contraindications.json).

At run time the check silently skips a row it cannot use; ``check_registry``
names each such row and why, for ``hookmux validate``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

ROW_FIELDS = ("id", "tool_pattern", "input_pattern", "harm", "safe_alternative")
OPTIONAL_ROW_FIELDS = ("$comment",)
TOP_LEVEL_FIELDS = ("version", "rows", "$schema", "$comment")
ID_PATTERN = re.compile(r"[A-Z0-9][A-Z0-9._-]{0,63}")
# The tools the shipped manifest routes to the check (after Copilot names are mapped).
ROUTED_TOOLS = ("Bash", "PowerShell")
MAX_TEXT_CHARS = 600
FLAGS = re.IGNORECASE | re.ASCII


def check_registry(path: str | Path) -> list[str]:
    """Problems in the registry at ``path``, each ``"<file> <place>: <message>"``; empty when usable."""
    path = Path(path)
    name = path.name
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        return [f"{name}: cannot read: {exc.strerror or exc}"]
    except UnicodeDecodeError as exc:
        return [f"{name}: not UTF-8: {exc.reason}"]
    except ValueError as exc:
        return [f"{name}: invalid JSON: {exc}"]
    if not isinstance(document, dict):
        return [f"{name}: must be an object with a rows list"]
    problems = [f"{name} {key}: unknown key" for key in document if key not in TOP_LEVEL_FIELDS]
    if document.get("version") != 1:
        problems.append(f"{name} version: must be 1")
    rows = document.get("rows")
    if not isinstance(rows, list):
        return problems + [f"{name} rows: must be a list"]
    first_place: dict[str, str] = {}
    for index, row in enumerate(rows):
        place = f"{name} rows[{index}]"
        problems.extend(_row_problems(place, row))
        row_id = row.get("id") if isinstance(row, dict) else None
        if isinstance(row_id, str):
            if row_id in first_place:
                problems.append(f"{place}.id: duplicate of {first_place[row_id]} (only the first is used)")
            else:
                first_place[row_id] = f"rows[{index}]"
    return problems


def _row_problems(place: str, row: object) -> list[str]:
    if not isinstance(row, dict):
        return [f"{place}: must be an object"]
    problems = []
    for key in row:
        if key == "require_bg_active":
            if row[key] is not False:
                problems.append(
                    f"{place}.require_bg_active: only false is supported: PreToolUse payloads carry no "
                    "background-task state, so a row requiring it is never used"
                )
        elif key not in ROW_FIELDS and key not in OPTIONAL_ROW_FIELDS:
            problems.append(f"{place}.{key}: unknown key")
    for field in ROW_FIELDS:
        value = row.get(field)
        if field not in row:
            problems.append(f"{place}.{field}: missing")
        elif not isinstance(value, str) or not value.strip():
            problems.append(f"{place}.{field}: must be a non-empty string")
    row_id = row.get("id")
    if isinstance(row_id, str) and row_id.strip() and not ID_PATTERN.fullmatch(row_id):
        problems.append(f"{place}.id: must match {ID_PATTERN.pattern} (upper case, digits, . _ -; at most 64)")
    tool_regex = _compiled(place, "tool_pattern", row.get("tool_pattern"), problems)
    _compiled(place, "input_pattern", row.get("input_pattern"), problems)
    if tool_regex is not None and not any(tool_regex.search(tool) for tool in ROUTED_TOOLS):
        problems.append(
            f"{place}.tool_pattern: matches none of {', '.join(ROUTED_TOOLS)}, "
            "the only tools the manifest routes to this check"
        )
    for field in ("harm", "safe_alternative"):
        value = row.get(field)
        if isinstance(value, str) and len(value) > MAX_TEXT_CHARS:
            problems.append(f"{place}.{field}: {len(value)} characters, at most {MAX_TEXT_CHARS} are shown")
    return problems


def _compiled(place: str, field: str, pattern: object, problems: list[str]):
    if not isinstance(pattern, str) or not pattern.strip():
        return None
    try:
        regex = re.compile(pattern, FLAGS)
    except re.error as exc:
        problems.append(f"{place}.{field}: {exc.msg}" + (f" at position {exc.pos}" if exc.pos is not None else ""))
        return None
    if regex.search(""):
        problems.append(f"{place}.{field}: matches the empty string, so it matches every call")
    return regex
