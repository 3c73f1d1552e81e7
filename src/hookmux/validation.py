"""Check a manifest the way the dispatcher and the hosts will read it.

Every problem names its exact place, cfgv-style: ``events.PreToolUse.checks[2].matcher: ...``.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

from hookmux import resources

_hosts = resources.runtime("hosts")
# Tool names as the dispatcher sees them, on every host (Copilot's and Codex's after the
# dispatcher maps bash->Bash, spawn_agent->Agent, ...; other names are kept as they are).
KNOWN_TOOLS = tuple(dict.fromkeys(name for host in _hosts.HOSTS for name in _hosts.KNOWN_TOOLS[host]))
# Copilot's own tool names, as its loader of a Claude-format settings file matches them.
COPILOT_RAW_TOOLS = _hosts.TOOLS[_hosts.COPILOT]
TOOL_EVENTS = _hosts.TOOL_EVENTS
# Events whose hooks run before the host goes on: a slow row delays the user.
WAITING_EVENTS = ("PreToolUse", "UserPromptSubmit")
_SIMPLE_MATCHER = re.compile(r"^[A-Za-z0-9_]+(\|[A-Za-z0-9_]+)*$")


class ManifestError(Exception):
    """The manifest could not be read at all."""


def load_json(path: Path):
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ManifestError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None


def place(parts) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def hooks_root_of(manifest: dict, manifest_path: Path, override: str | os.PathLike | None) -> Path:
    if override is not None:
        return Path(os.path.expandvars(os.path.expanduser(str(override)))).absolute()
    root = os.path.expandvars(os.path.expanduser(str(manifest.get("hooks_root", ""))))
    return (manifest_path.parent / root).resolve()


def settings_matcher_catches(settings_matcher: str | None, tool: str) -> bool:
    """Claude Code's matcher rule: "*"/empty = all, plain names = exact, else a regex."""
    if not settings_matcher or settings_matcher == "*":
        return True
    if _SIMPLE_MATCHER.match(settings_matcher):
        return tool in settings_matcher.split("|")
    try:
        return re.search(settings_matcher, tool) is not None
    except re.error:
        return False


def validate_manifest(manifest_path, hooks_root=None) -> tuple[list[str], list[str]]:
    """Return (errors, warnings) for the manifest file; each is "place: message"."""
    manifest_path = Path(manifest_path)
    try:
        manifest = load_json(manifest_path)
    except ManifestError as exc:
        return [str(exc)], []
    errors = schema_errors(manifest)
    if errors:
        return errors, []
    root = hooks_root_of(manifest, manifest_path, hooks_root)
    warnings: list[str] = []
    if not root.is_dir():
        errors.append(f"hooks_root: {root} is not a folder")
    for event, entry in manifest["events"].items():
        _check_event(event, entry, root, errors, warnings)
    return errors, warnings


def schema_errors(manifest) -> list[str]:
    import jsonschema

    schema = json.loads(resources.schema_path().read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    found = sorted(validator.iter_errors(manifest), key=lambda e: list(map(str, e.absolute_path)))
    return [f"{place(error.absolute_path)}: {error.message}" for error in found]


def _check_event(event: str, entry: dict, root: Path, errors: list[str], warnings: list[str]) -> None:
    settings_matcher = entry.get("settings_matcher")
    settings_timeout = entry.get("settings_timeout")
    if settings_matcher not in (None, "", "*"):
        try:
            re.compile(settings_matcher)
        except re.error as exc:
            errors.append(f"events.{event}.settings_matcher: does not compile: {exc}")
    outer = [t for t in KNOWN_TOOLS if settings_matcher_catches(settings_matcher, t)]
    missed = [raw for raw, mapped in COPILOT_RAW_TOOLS.items()
              if mapped in outer and not settings_matcher_catches(settings_matcher, raw)]
    if missed:
        warnings.append(
            f"events.{event}.settings_matcher: {settings_matcher!r} misses Copilot's {', '.join(missed)} "
            f"when Copilot loads a Claude-format settings file (its matching is case-sensitive)"
        )
    seen_names: dict[str, int] = {}
    for index, row in enumerate(entry["checks"]):
        where = f"events.{event}.checks[{index}]"
        name = row["name"]
        if name in seen_names:
            errors.append(f"{where}.name: {name!r} repeats checks[{seen_names[name]}]")
        seen_names.setdefault(name, index)
        _check_script(where, row, root, errors)
        _warn_blocking(where, row, root, warnings)
        _check_matcher(where, event, row, outer, errors, warnings, settings_matcher)
        timeout = row.get("timeout", 8)
        if settings_timeout is not None and timeout >= settings_timeout:
            errors.append(
                f"{where}.timeout: {timeout} s is not below the event's settings_timeout "
                f"{settings_timeout} s: the host would kill the dispatcher first"
            )
        if row.get("slow") and event in WAITING_EVENTS:
            warnings.append(f"{where}.slow: a slow row on {event} delays every call it matches")


def _warn_blocking(where: str, row: dict, root: Path, warnings: list[str]) -> None:
    from hookmux import blocking

    found = blocking.script_reasons(root / row["script"])
    if found:
        warnings.append(f"{where}.script: {row['script']} tries to block ({', '.join(found)}); {blocking.ADVICE}")


def _check_script(where: str, row: dict, root: Path, errors: list[str]) -> None:
    script = (root / row["script"]).resolve()
    if root.is_dir() and not script.is_file():
        errors.append(f"{where}.script: {row['script']} not found under {root}")
        return
    if script.name == "check.py" and script.parent.name == "contraindication":
        from hookmux.contraindications import check_registry

        registry = script.parent / "contraindications.json"
        errors.extend(f"{where} -> {problem}" for problem in check_registry(registry))


def _check_matcher(where, event, row, outer, errors, warnings, settings_matcher=None) -> None:
    matcher = row.get("matcher")
    if matcher is None:
        return
    try:
        pattern = re.compile(matcher)
    except re.error as exc:
        errors.append(f"{where}.matcher: does not compile: {exc}")
        return
    if event not in TOOL_EVENTS:
        errors.append(f"{where}.matcher: {event} carries no tool name, so a row with a matcher never runs")
        return
    reachable = [tool for tool in outer if pattern.search(tool)]
    if not reachable:
        from hookmux import reach

        wider = reach.widen(settings_matcher, [row])
        fix = f"; widen settings_matcher to {wider!r} (hookmux install does)" if wider else ""
        errors.append(
            f"{where}.matcher: {matcher!r} matches no known tool that the event's "
            f"settings_matcher lets through, so the row never runs{fix}"
        )
        return
    if _SIMPLE_MATCHER.match(matcher):
        extra = sorted(set(reachable) - set(matcher.split("|")))
        if extra:
            warnings.append(
                f"{where}.matcher: unanchored {matcher!r} also catches {', '.join(extra)}; "
                f"anchor it (^({matcher})$) if that is not meant"
            )
