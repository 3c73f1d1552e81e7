"""``hookmux new-check NAME``: scaffold a check of your own, its test and its manifest row.

Writes ``NAME/check.py`` (a working check on the authoring kit, silent until you give it
something to say), ``NAME/test_check.py`` (pytest through the real dispatcher, with
``hookmux.testing``; passes as generated) and appends its row to the manifest of the hooks
tree (default: the installed one), keeping the file's formatting. The row is validated
like ``hookmux validate`` and must be reachable: when the event's settings matcher would
keep it from running, the matcher is widened (re-run ``hookmux install`` to rewire).
Nothing is written when anything fails.
"""
from __future__ import annotations

import argparse
import copy
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

from hookmux import matchers, resources, validation, wiring
from hookmux.installer import atomic, jsonfile
from hookmux.installer.jsonfile import JsonFileError
from hookmux.installer.manifest_merge import MANIFEST
from hookmux.installer.wiring_files import absolute

HELP = "scaffold a check of your own: NAME/check.py, NAME/test_check.py and its manifest row"
DEFAULT_TARGET = "~/.claude/hooks"
NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,59}$")
ROW_TIMEOUT = 5
EVENT_TIMEOUT = 10

CHECK = '''\
"""{name}: a hookmux check (docs/authoring.md). Silent until advice() returns text.

The dispatcher imports this file and calls main() with the hook's payload on stdin; what it
prints as additionalContext reaches the model. It only advises: a check never blocks.
"""
import sys

from _common.event import parse, render_context

EVENT = {event!r}


def advice(event):
    """The text the model should read before/after this call, or "" to stay silent.

    ``event`` is the normalised hook call (hooks/_common/event.py): event.host,
    event.name, event.tool_name (Claude Code's spelling: Bash, Read, Edit, ...),
    event.tool_input (a dict), event.tool_response, event.cwd, event.prompt, ...
    """
    return ""


def main():
    event = parse(sys.stdin.read(), EVENT)
    text = advice(event)
    if text:
        sys.stdout.write(render_context(event, text))
'''

TEST = '''\
"""Tests for {name}/check.py, run through the real dispatcher: pytest {folder}"""
from pathlib import Path

import pytest

from hookmux import testing

CHECK = Path(__file__).resolve().with_name("check.py")
MATCHER = {matcher!r}


@pytest.mark.parametrize("host", {hosts!r})
def test_the_check_runs_and_is_silent_by_default(host):
    result = testing.run_check(CHECK, {call}, matcher=MATCHER)
    assert result.silent, result.output
    assert len(result.trace) == 1 and "silent" in result.trace[0], result.trace


def test_its_advice_reaches_the_model_in_each_host_dialect(tmp_path):
    # The same check with advice() answering, in a copy: the dispatcher renders the
    # host's own output shape.
    copy = tmp_path / "{name}" / "check.py"
    copy.parent.mkdir()
    copy.write_text(CHECK.read_text().replace('return ""', 'return "look before you leap"', 1))
    for host in {hosts!r}:
        result = testing.run_check(copy, {call}, matcher=MATCHER)
        assert result.context == "look before you leap", (host, result.trace)
'''

_CALLS = {
    "PreToolUse": 'testing.pre_tool_use({tool!r}, {input!r}, host=host)',
    "PostToolUse": 'testing.post_tool_use({tool!r}, {input!r}, "ok", host=host)',
    "PostToolBatch": 'testing.post_tool_batch([({tool!r}, {input!r}, "ok")], host=host)',
    "UserPromptSubmit": 'testing.user_prompt_submit("hello", host=host)',
    "SessionStart": 'testing.session_start(host=host)',
    "Stop": 'testing.stop(host=host)',
    "SubagentStop": 'testing.subagent_stop(host=host)',
}
_INPUTS = {"Bash": {"command": "ls"}, "PowerShell": {"command": "dir"}, "Read": {"file_path": "README.md"},
           "Write": {"file_path": "notes.txt", "content": "x"},
           "Edit": {"file_path": "notes.txt", "old_string": "x", "new_string": "y"},
           "Skill": {"skill": "example"}, "Agent": {"subagent_type": "Explore", "prompt": "look"}}


class NewCheckError(Exception):
    pass


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="the check's folder and row name (letters, digits, - and _)")
    parser.add_argument("--event", default="PreToolUse",
                        help="hook event the row runs on (default PreToolUse; Copilot spellings work too)")
    parser.add_argument("--matcher", metavar="REGEX",
                        help="row matcher: re.search over the tool name, e.g. '^Bash$' (default: every tool "
                             "the event's settings matcher lets through)")
    parser.add_argument("--target", default=DEFAULT_TARGET,
                        help=f"hooks tree to add it to (default {DEFAULT_TARGET}, the installed one)")
    parser.add_argument("--user-layer", action="store_true",
                        help="add it to the user layer (~/.config/hookmux/manifest.json) instead of a hooks tree: "
                             "the default when the hookmux plugin is on and --target holds no install")


def run(args: argparse.Namespace) -> int:
    try:
        target = absolute(args.target)
        layer = user_layer() if args.user_layer or _runs_as_plugin(args.target, target) else None
        for line in scaffold(args.name, args.event, args.matcher, target, layer):
            sys.stdout.write(line + "\n")
    except (NewCheckError, JsonFileError) as exc:
        sys.stderr.write(f"hookmux: {exc}\nhookmux: nothing was written\n")
        return 1
    return 0


def scaffold(name: str, event: str, matcher: str | None, target: Path, layer: Path | None = None) -> list[str]:
    """Write the check, its test and its row; return what to tell the user. With ``layer`` (a
    layer file, e.g. the user layer) the check goes beside it and the row into it, validated as
    the dispatcher merges it over the shipped manifest (hooks/_common/layers.py)."""
    event = wiring.COPILOT_EVENTS.get(event, event)
    if not NAME.match(name):
        raise NewCheckError(f"{name!r}: a check name is a letter, then letters, digits, - or _")
    if matcher is not None:
        if event not in matchers.TOOL_EVENTS:
            raise NewCheckError(f"--matcher: {event} carries no tool name, so a row with a matcher never runs")
        try:
            re.compile(matcher)
        except re.error as exc:
            raise NewCheckError(f"--matcher {matcher!r}: does not compile: {exc}") from None
    manifest_path = layer or target / MANIFEST
    live = jsonfile.load(manifest_path)
    if not live.exists and layer is None:
        raise NewCheckError(f"{manifest_path}: no manifest; run hookmux install first, or pass --target "
                            "a hooks tree that has one")
    folder = manifest_path.parent / name if layer else target / name
    if folder.exists():
        raise NewCheckError(f"{folder}: already exists; pick another name")
    if layer is None:
        data, notes = _with_row(live.data, name, event, matcher)
    else:
        data, notes = _with_layer_row(live.data if live.exists else {"version": 1, "events": {}}, name, event, matcher)
    folder.mkdir(parents=True)
    try:
        (folder / "check.py").write_text(CHECK.format(name=name, event=event))
        (folder / "test_check.py").write_text(_test_text(name, event, matcher, folder))
        errors = _validate(data, target) if layer is None else _validate_layer(data, manifest_path)
        if errors:
            raise NewCheckError("the manifest with this row would be invalid:\n  " + "\n  ".join(errors))
        atomic.write_atomic(manifest_path, live.render(data))
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return [f"hookmux: wrote {folder / 'check.py'} and {folder / 'test_check.py'}",
            f"hookmux: added events.{event}.checks[{len(data['events'][event]['checks']) - 1}]"
            f"(name='{name}') to {manifest_path}", *notes,
            f"hookmux: test it: pytest {folder / 'test_check.py'}"]


def _with_row(manifest: dict, name: str, event: str, matcher: str | None) -> tuple[dict, list[str]]:
    data = copy.deepcopy(manifest)
    events = data.setdefault("events", {})
    notes = []
    row = {"name": name, "script": f"{name}/check.py", "timeout": ROW_TIMEOUT, "side_effect": "none"}
    if matcher is not None:
        row["matcher"] = matcher
    if event not in events:
        spec = {"checks": []}
        if event in matchers.TOOL_EVENTS:
            spec["settings_matcher"] = "*"
        spec["settings_timeout"] = EVENT_TIMEOUT
        events[event] = spec
        notes.append(f"hookmux: {event} is a new event in the manifest: run hookmux install to wire it")
    spec = events[event]
    if any(isinstance(r, dict) and r.get("name") == name for r in spec["checks"]):
        raise NewCheckError(f"events.{event} already has a row named {name!r}")
    spec["checks"].append(row)
    wider = matchers.widen(spec.get("settings_matcher"), [row])
    if wider is not None:
        notes.append(f"hookmux: events.{event}.settings_matcher widened from {spec['settings_matcher']!r} to "
                     f"{wider!r} so the row is reached: run hookmux install to rewire the hosts")
        spec["settings_matcher"] = wider
    return data, notes


def user_layer() -> Path:
    return Path(resources.runtime("manifest").user_layer_path())


def _runs_as_plugin(given: str, target: Path) -> bool:
    """No --target of the user's, no install there, and the plugin on for some host."""
    from hookmux import plugin_installs

    return given == DEFAULT_TARGET and not (target / MANIFEST).exists() and bool(plugin_installs.found())


def _with_layer_row(layer: dict, name: str, event: str, matcher: str | None) -> tuple[dict, list[str]]:
    """The layer with the row added. The plugin starts the dispatcher only for the shipped
    manifest's events and settings matchers, so a row outside them gets a note."""
    data = copy.deepcopy(layer)
    spec = data.setdefault("events", {}).setdefault(event, {"checks": []})
    if any(isinstance(r, dict) and r.get("name") == name for r in spec.setdefault("checks", [])):
        raise NewCheckError(f"events.{event} already has a row named {name!r} in the user layer")
    row = {"name": name, "script": f"{name}/check.py", "timeout": ROW_TIMEOUT, "side_effect": "none"}
    if matcher is not None:
        row["matcher"] = matcher
    spec["checks"].append(row)
    shipped = (json.loads(Path(resources.shipped_manifest()).read_text()).get("events") or {}).get(event)
    notes = []
    if shipped is None or matchers.widen(shipped.get("settings_matcher"), [row]) is not None:
        notes.append(f"hookmux: the plugin does not start the dispatcher for every call this row selects "
                     f"(its wiring is the shipped manifest's): a settings install (hookmux install) reaches it")
    return data, notes


def _validate_layer(data: dict, path: Path) -> list[str]:
    """What the dispatcher would refuse: the layer merged over the shipped manifest."""
    runtime = resources.runtime("manifest")
    base = runtime.load(str(resources.shipped_manifest()), str(resources.hooks_tree()))
    merged = resources.runtime("layers").merge(base, [(str(path), data)])
    errors = [message for severity, message in merged.problems if severity == "error"]
    # Its rows as a manifest of their own: schema, scripts, matchers (the layer's own keys aside).
    rows = {key: value for key, value in data.items() if key not in ("disabled", "trusted_projects")}
    return errors + _validate(dict(rows, hooks_root=str(path.parent)), path.parent)


def _validate(data: dict, target: Path) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="hookmux-new-check-") as tmp:
        path = Path(tmp) / "manifest.json"
        path.write_text(json.dumps(data))
        errors, _ = validation.validate_manifest(path, hooks_root=str(target))
    return errors


def _test_text(name: str, event: str, matcher: str | None, folder: Path) -> str:
    tools = matchers.tools_of(matcher) if matcher is not None else ["Bash"]
    tool = "Bash" if "Bash" in tools else (tools[0] if tools else "Bash")
    call = _CALLS.get(event, 'testing.session_start(host=host)').format(tool=tool, input=_INPUTS.get(tool, {}))
    hosts = ["claude"] if event == "PostToolBatch" else ["claude", "copilot"]
    if event == "PreToolUse" and tool in matchers.COPILOT_TOOLS.values():
        hosts.append("copilot-claude")
    if event not in wiring.CLAUDE_TO_COPILOT:
        hosts = [h for h in hosts if h != "copilot"]
    return TEST.format(name=name, folder=folder, matcher=matcher, call=call, hosts=hosts)
