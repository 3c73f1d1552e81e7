"""Per manifest row: can it match at all, does each host's matcher let it be reached, does its
script import, what the ledger says of it, and its circuit breaker."""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from hookmux import breakers, matchers, resources
from hookmux.doctor.wirings import CLAUDE, CODEX, COPILOT, CURSOR, GEMINI, PLUGIN, QWEN, Hook

_hosts = resources.runtime("hosts")
IMPORT_TIMEOUT = 30.0


def never_matches(row) -> tuple[str, str] | None:
    """(kind, why) when the row's own matcher keeps it from ever running: kind "problem" when
    certain, "warning" when it selects no tool hookmux knows (an MCP tool, say)."""
    if row.matcher is None:
        return None
    if row.event not in _hosts.TOOL_EVENTS:
        return "problem", f"it has a matcher but {row.event} names no tool: the dispatcher never selects it"
    if not isinstance(row.matcher, str):
        return "problem", "its matcher is not a string"
    try:
        re.compile(row.matcher)
    except re.error as exc:
        return "problem", f"its matcher {row.matcher!r} does not compile ({exc})"
    if not matchers.tools_of(row.matcher):
        return "warning", f"its matcher {row.matcher!r} selects none of the tools hookmux knows"
    return None


def tools_for(row, hook: Hook) -> list[str] | None:
    """The dispatcher tool names of ``row`` that ``hook``'s host matcher lets through; None when
    the row needs no tool (its event has none, or it has no matcher)."""
    if hook.canonical not in _hosts.TOOL_EVENTS:
        return None
    wanted = matchers.tools_of(row.matcher) if row.matcher is not None else None
    host = {PLUGIN: CLAUDE}.get(hook.format, hook.format)
    known = list(_hosts.KNOWN_TOOLS[host])
    known += [name for names in _hosts.TOOL_ALIASES.get(host, {}).values() for name in names]  # Codex: Edit, Write
    candidates = [t for t in (wanted if wanted is not None else known) if t in known or host == CLAUDE]
    return [tool for tool in candidates if catches(hook, tool)]


def catches(hook: Hook, tool: str) -> bool:
    """Does the host start ``hook`` for a call of ``tool`` (a dispatcher name)? Each host's own
    matcher over its own names (``matchers``; Codex as host-contract.md measured it)."""
    matcher = hook.matcher
    if matchers.every_tool(matcher):
        return True
    if hook.format == COPILOT:  # anchored, over Copilot's own lower-case names
        return any(matchers.host_catches(COPILOT, matcher, name) for name in matchers.copilot_names(tool) or [tool])
    if hook.format == CODEX:
        return any(_codex_catches(matcher, name) for name in _codex_names(tool))
    if hook.format in (GEMINI, CURSOR, QWEN):  # a regex over the host's own names (Cursor: Shell, Write, ...)
        natives = [native for native, canonical in _hosts.TOOLS[hook.format].items() if canonical == tool] or [tool]
        return any(_search(matcher, name) for name in natives)
    # Claude Code, and Copilot reading a Claude-format file (it sends its own lower-case names)
    return any(matchers.settings_catches(matcher, name) for name in [tool, *matchers.copilot_names(tool)])


def _codex_names(tool: str) -> list[str]:
    """The names a Codex matcher may select a dispatcher tool by: its Codex name, and for
    ``apply_patch`` also ``Edit``/``Write`` (hosts.TOOL_ALIASES)."""
    natives = [native for native, canonical in _hosts.TOOLS[CODEX].items() if canonical == tool] or [tool]
    aliases = _hosts.TOOL_ALIASES[CODEX]
    natives += [native for native, names in aliases.items() if tool in names]
    return [name for native in natives for name in (native, *aliases.get(native, ()))]


def _codex_catches(matcher: str, name: str) -> bool:
    """Codex: letters, digits, ``_`` and ``|`` are exact names; anything else an unanchored regex."""
    if matchers.simple(matcher):
        return name in matcher.split("|")
    return _search(matcher, name)


def _search(pattern, name):
    try:
        return re.search(pattern, name) is not None
    except re.error:
        return False


IMPORT_PROBE = r"""
import json, os, sys
from importlib.util import module_from_spec, spec_from_file_location
root = sys.argv[1]
for index, path in enumerate(sys.argv[2:]):
    saved_path, saved_modules = list(sys.path), dict(sys.modules)
    sys.path[:0] = [os.path.dirname(path), root]
    try:
        spec = spec_from_file_location("hookmux-doctor:%d" % index, path)
        if spec is None:
            raise ImportError("not a Python file")
        module = module_from_spec(spec)
        spec.loader.exec_module(module)
        answer = "ok" if callable(getattr(module, "main", None)) else "no main()"
    except BaseException as exc:
        answer = "%s: %s" % (type(exc).__name__, str(exc)[:200])
    sys.path[:] = saved_path
    for name in set(sys.modules) - set(saved_modules):
        del sys.modules[name]
    sys.__stdout__.write(json.dumps([path, answer]) + "\n")
    sys.__stdout__.flush()
"""


def imports(python: str, hooks_root: str, scripts: list[str], env: dict, cwd: str) -> dict[str, str]:
    """script -> "ok" or why it does not import, each imported by ``python -S -E`` (as the hooks
    run; ``-B``: no bytecode written) in a subprocess: nothing of it runs in this process."""
    scripts = sorted(set(scripts))
    if not scripts:
        return {}
    try:
        result = subprocess.run([python, "-S", "-E", "-B", "-c", IMPORT_PROBE, hooks_root, *scripts], capture_output=True,
                                env=env, cwd=cwd, timeout=IMPORT_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {script: f"the import check did not finish ({type(exc).__name__})" for script in scripts}
    answers = {}
    for line in result.stdout.decode("utf-8", "replace").splitlines():
        try:
            path, answer = json.loads(line)
        except (ValueError, TypeError):  # not the probe's line: an interpreter that is not python
            continue
        answers[path] = answer
    for script in scripts:
        answers.setdefault(script, "the import check stopped before it (a script ended the process)")
    return answers


def ledger_stats() -> dict[tuple[str, str], dict]:
    """(row name, event) -> runs (selected and started), errors, timeouts, calls skipped by the
    circuit breaker, p95 ms: from the user's dispatch ledger (read only)."""
    ledger = resources.runtime("ledger")
    try:
        records = ledger.read_records(ledger.dispatch_path())
    except OSError:
        return {}
    stats: dict[tuple[str, str], dict] = {}
    times: dict[tuple[str, str], list[float]] = {}
    for record in records:
        event = record.get("event")
        for row in record.get("rows") or ():
            if not (isinstance(row, list) and len(row) == 3):
                continue
            name, code, ms = row
            key = (str(name), str(event))
            entry = stats.setdefault(key, {"runs": 0, "errors": 0, "timeouts": 0, "skipped": 0, "p95_ms": None})
            entry["runs"] += code != "breaker-open"
            entry["errors"] += code in ("error", "import-error", "not-run")
            entry["timeouts"] += code == "timeout"
            entry["skipped"] += code == "breaker-open"
            if isinstance(ms, (int, float)) and code != "breaker-open":
                times.setdefault(key, []).append(float(ms))
    for key, values in times.items():
        ordered = sorted(values)
        stats[key]["p95_ms"] = round(ordered[max(0, -(-len(ordered) * 95 // 100) - 1)], 1)
    return stats


def breaker_of(hooks_root: str) -> dict[tuple[str, int, str], dict]:
    return {(e["event"], e["index"], e["script"]): e for e in breakers.of_tree(hooks_root)}


def script_path(row) -> str:
    return str(Path(row.path)) if row.path else ""
