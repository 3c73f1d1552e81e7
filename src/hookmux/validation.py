"""Check a manifest the way the dispatcher and the hosts will read it.

Every message carries the file and names the row by its id, cfgv-style:
``manifest.json: events.PreToolUse.checks[1](name='x').matcher: ...``. The schema
comes first (its messages rewritten as sentences, see ``schema_sentence``); then
the manifest is read by the runtime's own loader (``hooks/_common/manifest.py``,
defaults applied, hooks_root resolved) and its rows are checked against the hooks
tree and the hosts' tool names.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from hookmux import matchers, resources
from hookmux.errors import HookmuxError

# Events whose hooks run before the host goes on: a slow row delays the user.
WAITING_EVENTS = ("PreToolUse", "UserPromptSubmit")

# What each pattern in manifest.schema.json asks for, by the field it applies to.
PATTERN_SENTENCES = {
    "name": "a name is 1 to 100 letters, digits, '_', '.', '/' or '-', starting with a letter or digit",
    "script": "a script is a path to a .py file, relative to hooks_root or absolute, with no '..'",
    "isolate": "each entry is a top-level module name (letters, digits and '_', not starting with a digit)",
    "side_effect": "a side_effect is a label of 1 to 40 lower-case letters, digits or '-', starting with a letter",
}
TYPE_NAMES = {"number": "a number", "string": "a string", "array": "a list", "object": "an object",
              "boolean": "true or false", "null": "null", "integer": "an integer"}


class ManifestError(HookmuxError):
    """The manifest could not be read at all."""


def load_json(path: Path):
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ManifestError(f"{path}: not UTF-8: {exc.reason}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ManifestError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:
        raise ManifestError(f"{path}: invalid JSON: {type(exc).__name__}") from None


def place(parts, data=None) -> str:
    """``events.E.checks[1](name='x').field`` for a path into the manifest ``data``."""
    out = ""
    node = data
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
        try:
            node = node[part] if node is not None else None
        except (KeyError, IndexError, TypeError):
            node = None
        if isinstance(part, int) and isinstance(node, dict) and isinstance(node.get("name"), str) and \
                out.rsplit(".", 1)[-1].startswith("checks["):
            out += f"(name={node['name']!r})"
    return out or "(top level)"


def validate_manifest(manifest_path, hooks_root=None) -> tuple[list[str], list[str]]:
    """Return (errors, warnings) for the manifest file; each is "FILE: place: message"."""
    manifest_path = Path(manifest_path)
    try:
        data = load_json(manifest_path)
    except ManifestError as exc:
        return [str(exc)], []
    errors = schema_errors(data)
    warnings: list[str] = []
    if not errors:
        manifest = resources.runtime("manifest").from_data(data, str(manifest_path.absolute()), hooks_root)
        root = Path(manifest.hooks_root)
        if not root.is_dir():
            errors.append(f"hooks_root: {root} is not a folder")
        for entry in manifest.events.values():
            _check_event(entry, root, errors, warnings)
    return [f"{manifest_path}: {line}" for line in errors], [f"{manifest_path}: {line}" for line in warnings]


def schema_errors(manifest) -> list[str]:
    import jsonschema

    schema = json.loads(resources.schema_path().read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    found = sorted(validator.iter_errors(manifest), key=lambda e: list(map(str, e.absolute_path)))
    return [f"{place(error.absolute_path, manifest)}: {schema_sentence(error)}" for error in found]


def schema_sentence(error) -> str:
    """jsonschema's message as a sentence: no raw regexes, the allowed values spelled out."""
    kind, value, expected = error.validator, error.instance, error.validator_value
    field = next((part for part in reversed(error.absolute_path) if isinstance(part, str)), None)
    if kind == "pattern":
        rule = PATTERN_SENTENCES.get(field, "it does not have the expected form")
        return f"{value!r} is not allowed: {rule}"
    if kind == "required":
        missing = [name for name in expected if not isinstance(value, dict) or name not in value]
        return f"'{missing[0] if missing else expected[0]}' is required"
    if kind == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        unknown = sorted(set(value) - set(allowed)) if isinstance(value, dict) else []
        return f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} (allowed: {', '.join(allowed)})"
    if kind == "type":
        wanted = expected if isinstance(expected, list) else [expected]
        return f"{value!r} should be {' or '.join(TYPE_NAMES.get(t, t) for t in wanted)}"
    if kind == "enum":
        return f"{value!r} is not one of {', '.join(map(str, expected))}"
    if kind == "const":
        return f"{value!r} should be {expected!r}"
    if kind == "minLength":
        return "must not be empty"
    if kind == "exclusiveMinimum":
        return f"{value!r} should be more than {expected}"
    if kind == "maximum":
        return f"{value!r} should be at most {expected}"
    return error.message


def _check_event(entry, root: Path, errors: list[str], warnings: list[str]) -> None:
    event, settings_matcher, settings_timeout = entry.name, entry.settings_matcher, entry.settings_timeout
    if settings_matcher not in (None, "", "*"):
        try:
            re.compile(settings_matcher)
        except re.error as exc:
            errors.append(f"events.{event}.settings_matcher: does not compile: {exc}")
    outer = [t for t in matchers.KNOWN_TOOLS if matchers.settings_catches(settings_matcher, t)]
    missed = [raw for raw, mapped in matchers.COPILOT_TOOLS.items()
              if mapped in outer and not matchers.settings_catches(settings_matcher, raw)]
    if missed:
        warnings.append(
            f"events.{event}.settings_matcher: {settings_matcher!r} misses Copilot's {', '.join(missed)} "
            f"when Copilot loads a Claude-format settings file (its matching is case-sensitive)"
        )
    seen_names: dict[str, int] = {}
    for row in entry.rows:
        where = row.ref()
        if row.name in seen_names:
            errors.append(f"{where}.name: {row.name!r} repeats checks[{seen_names[row.name]}]")
        seen_names.setdefault(row.name, row.index)
        _check_script(where, row, root, errors)
        _warn_blocking(where, row, warnings)
        _check_matcher(where, event, row, outer, errors, warnings, settings_matcher)
        if settings_timeout is not None and row.timeout >= settings_timeout:
            errors.append(
                f"{where}.timeout: {row.timeout:g} s is not below the event's settings_timeout "
                f"{settings_timeout:g} s: the host would kill the dispatcher first"
            )
        if row.slow and event in WAITING_EVENTS:
            warnings.append(f"{where}.slow: a slow row on {event} delays every call it matches")


def _warn_blocking(where: str, row, warnings: list[str]) -> None:
    from hookmux import blocking

    found = blocking.script_reasons(Path(row.path))
    if found:
        warnings.append(f"{where}.script: {row.script} tries to block ({', '.join(found)}); {blocking.ADVICE}")


def _check_script(where: str, row, root: Path, errors: list[str]) -> None:
    script = Path(row.path)
    if root.is_dir() and not script.is_file():
        errors.append(f"{where}.script: {row.script} not found under {root}")
        return
    if script.name == "check.py" and script.parent.name == "contraindication":
        from hookmux.contraindications import check_registry

        registry = script.parent / "contraindications.json"
        errors.extend(f"{where} -> {problem}" for problem in check_registry(registry))


def _check_matcher(where, event, row, outer, errors, warnings, settings_matcher=None) -> None:
    matcher = row.matcher
    if matcher is None:
        return
    try:
        pattern = re.compile(matcher)
    except re.error as exc:
        errors.append(f"{where}.matcher: does not compile: {exc}")
        return
    if event not in matchers.TOOL_EVENTS:
        errors.append(f"{where}.matcher: {event} carries no tool name, so a row with a matcher never runs")
        return
    reachable = [tool for tool in outer if pattern.search(tool)]
    if not reachable:
        wider = matchers.widen(settings_matcher, [{"matcher": matcher}])
        fix = f"; widen settings_matcher to {wider!r} (hookmux install does so for a matcher it owns)" if wider else ""
        errors.append(
            f"{where}.matcher: {matcher!r} matches no known tool that the event's "
            f"settings_matcher lets through, so the row never runs{fix}"
        )
        return
    if matchers.simple(matcher):
        extra = sorted(set(reachable) - set(matcher.split("|")))
        if extra:
            warnings.append(
                f"{where}.matcher: unanchored {matcher!r} also catches {', '.join(extra)}; "
                f"anchor it (^({matcher})$) if that is not meant"
            )
