"""Validate a contraindication registry (hooks/contraindication/contraindications.json).

At run time the check silently skips a row it cannot use; ``check_registry``
names each such row and why, for ``hookmux validate``. It also runs every row's
``examples`` through the check itself (the same reader and matcher as at run time) and
the commands quoted in its ``safe_alternative``, which must not trigger the row.
"""
from __future__ import annotations

import json
import re
import sys
from functools import lru_cache
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from types import ModuleType

from hookmux.resources import hooks_tree, runtime

ROW_FIELDS = ("id", "tool_pattern", "input_pattern", "harm", "safe_alternative")
STRUCTURED_FIELDS = ("id", "harm", "safe_alternative")
OPTIONAL_ROW_FIELDS = ("$comment", "examples", "pack")
#: The domain a row belongs to (issue 40); ``hookmux explain`` names it.
PACKS = ("git", "files", "system", "shell", "containers", "databases", "kubernetes", "infrastructure",
         "cloud", "storage", "publishing", "git-remote", "secrets")
TOP_LEVEL_FIELDS = ("version", "rows", "$schema", "$comment")
ID_PATTERN = re.compile(r"[A-Z0-9][A-Z0-9._-]{0,63}")
# The tools the shipped manifest routes to the check (after Copilot names are mapped).
ROUTED_TOOLS = ("Bash", "PowerShell")
MAX_TEXT_CHARS = 600
FLAGS = re.IGNORECASE | re.ASCII
_QUOTED = re.compile(r"`([^`]+)`")


@lru_cache(maxsize=1)
def check_module() -> ModuleType:
    """hooks/contraindication/check.py of the package's hooks tree (it finds ``_common`` itself)."""
    path = hooks_tree() / "contraindication" / "check.py"
    root = str(hooks_tree())
    if root not in sys.path:
        sys.path.append(root)
    spec = spec_from_file_location("hookmux_contraindication_check", path)
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
    usable = []
    for index, row in enumerate(rows):
        place = f"{name} rows[{index}]"
        row_problems = _row_problems(place, row)
        problems.extend(row_problems)
        row_id = row.get("id") if isinstance(row, dict) else None
        if isinstance(row_id, str):
            if row_id in first_place:
                problems.append(f"{place}.id: duplicate of {first_place[row_id]} (only the first is used)")
            else:
                first_place[row_id] = f"rows[{index}]"
                if not row_problems:
                    usable.append((place, row))
    problems.extend(example_problems(usable))
    return problems


def _row_problems(place: str, row: object) -> list[str]:
    if not isinstance(row, dict):
        return [f"{place}: must be an object"]
    structured = "program" in row or "any_of" in row
    shell_rules = runtime("shell_rules")
    allowed = set(STRUCTURED_FIELDS) | set(shell_rules.ROW_KEYS) | {"tool_pattern"} if structured else set(ROW_FIELDS)
    problems = []
    for key in row:
        if key == "require_bg_active":
            if row[key] is not False:
                problems.append(
                    f"{place}.require_bg_active: only false is supported: PreToolUse payloads carry no "
                    "background-task state, so a row requiring it is never used"
                )
        elif key not in allowed and key not in OPTIONAL_ROW_FIELDS:
            problems.append(f"{place}.{key}: unknown key" + (" (a structured row has no input_pattern)"
                                                            if structured and key == "input_pattern" else ""))
    for field in STRUCTURED_FIELDS if structured else ROW_FIELDS:
        value = row.get(field)
        if field not in row:
            problems.append(f"{place}.{field}: missing")
        elif not isinstance(value, str) or not value.strip():
            problems.append(f"{place}.{field}: must be a non-empty string")
    row_id = row.get("id")
    if isinstance(row_id, str) and row_id.strip() and not ID_PATTERN.fullmatch(row_id):
        problems.append(f"{place}.id: must match {ID_PATTERN.pattern} (upper case, digits, . _ -; at most 64)")
    if structured:
        try:
            shell_rules.compile_row(row)
        except shell_rules.RowError as exc:
            problems.append(f"{place}.{exc.field}: {exc.message}")
        if "tool_pattern" in row:
            problems.append(f"{place}.tool_pattern: a structured row applies to the shell tools; leave it out")
    else:
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
    if "pack" in row and row["pack"] not in PACKS:
        problems.append(f"{place}.pack: must be one of {', '.join(PACKS)}")
    problems.extend(_examples_shape(place, row.get("examples")))
    return problems


def _examples_shape(place: str, examples: object) -> list[str]:
    where = f"{place}.examples"
    if examples is None:
        return []  # optional for a user's row; every shipped row has them (tests/contraindication)
    if not isinstance(examples, dict):
        return [f'{where}: must be an object {{"advise": [...], "quiet": [...]}}']
    problems = [f"{where}.{key}: unknown key" for key in examples if key not in ("advise", "quiet")]
    for key in ("advise", "quiet"):
        value = examples.get(key)
        if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
            problems.append(f"{where}.{key}: must be a non-empty list of commands")
    return problems


def example_tool(row: dict) -> str:
    """The tool a row's examples are tried with: Bash, unless a text row only matches PowerShell."""
    pattern = row.get("tool_pattern")
    if isinstance(pattern, str) and "input_pattern" in row and not re.search(pattern, "Bash", FLAGS):
        return "PowerShell"
    return "Bash"


def advised_ids(rows: list[dict], tool: str, command: str) -> list[str]:
    """The ids the check advises for ``command`` given these rows (the run-time matcher)."""
    check = check_module()
    matched = check.matching_call_rows(rows, tool, {"command": command}, check.EXAMPLES_CWD)
    return [row["id"] for row in matched]


def example_problems(usable: list[tuple[str, dict]]) -> list[str]:
    """Each example that does not do what it says, and each safe_alternative command that
    triggers its own row. Every row is tried alone, so one row's examples say nothing of another."""
    problems = []
    for place, row in usable:
        if "examples" not in row:
            continue
        where = f"{place}(id={row['id']!r})"
        tool = example_tool(row)
        examples = row["examples"]
        for index, command in enumerate(examples["advise"]):
            if row["id"] not in advised_ids([row], tool, command):
                problems.append(f"{where}.examples.advise[{index}]: {command!r} does not advise {row['id']}")
        for index, command in enumerate(examples["quiet"]):
            if row["id"] in advised_ids([row], tool, command):
                problems.append(f"{where}.examples.quiet[{index}]: {command!r} advises {row['id']}")
        for command in _QUOTED.findall(row["safe_alternative"]):
            if row["id"] in advised_ids([row], tool, command):
                problems.append(f"{where}.safe_alternative: {command!r} triggers {row['id']} itself")
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
