"""hookmux try: run a payload through the package's own hooks, as the hosts would."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from hookmux import blocking, resources, wiring
from hookmux.errors import HookmuxError

HELP = "run the dispatcher (and the skill-redirect and danger gates, where they are wired) on a payload file, with the trace"

GATE_EVENTS = ("PreToolUse", "PostToolBatch", "preToolUse")
BLOCK_NOTE = "tried to block: the dispatcher only advises"  # the dispatcher's trace says this


def configure(parser) -> None:
    parser.add_argument("event_and_payload", nargs="+", metavar="[EVENT] PAYLOAD",
                        help="hook event (e.g. PreToolUse or preToolUse; default: the payload's "
                             "hook_event_name) and a JSON payload file (see examples/)")
    parser.add_argument("--manifest", help="manifest to use (default: the shipped one)")


def _event_and_payload(args) -> tuple[str, bytes]:
    """(event, payload bytes): EVENT as given, else the payload's hook_event_name."""
    given = args.event_and_payload
    if len(given) > 2:
        raise HookmuxError(f"try takes [EVENT] PAYLOAD, not {len(given)} arguments")
    path = Path(given[-1])
    try:
        payload = path.read_bytes()
    except OSError as exc:
        raise HookmuxError(f"{path}: cannot read the payload: {exc.strerror or exc}") from None
    if len(given) == 2:
        return given[0], payload
    try:
        event = json.loads(payload).get("hook_event_name")
    except (ValueError, AttributeError):
        event = None
    if not isinstance(event, str) or not event:
        raise HookmuxError(f"{path}: no hook_event_name in the payload (Copilot sends none); "
                           "name the event: hookmux try EVENT PAYLOAD")
    return event, payload


def run(args) -> int:
    args.event, payload = _event_and_payload(args)
    if args.manifest is not None and not Path(args.manifest).is_file():
        raise HookmuxError(f"{args.manifest}: no such manifest")
    hooks = resources.hooks_tree()
    # The shipped manifest points at a live hooks folder: aim it at the package's own.
    where = ["--manifest", args.manifest] if args.manifest else [
        "--manifest", str(resources.shipped_manifest()), "--hooks-root", str(hooks)]
    python = sys.executable
    # A throwaway state folder, so every try shows what a first call would.
    with tempfile.TemporaryDirectory(prefix="hookmux-try-") as state:
        env = dict(os.environ, HOOKMUX_STATE_DIR=state)
        command = [python, "-S", str(hooks.joinpath(*wiring.DISPATCH_SCRIPT)), *where, "--trace", args.event]
        dispatched = subprocess.run(command, input=payload, capture_output=True, env=env)
        _show("dispatcher", dispatched)
        for line in dispatched.stderr.decode("utf-8", "replace").splitlines():
            if BLOCK_NOTE in line:
                print(f"warning: {line.removeprefix('hookmux: ').split('  ')[0]} tried to block; {blocking.ADVICE}")
        if args.event in GATE_EVENTS:
            gate = [python, "-S", str(hooks.joinpath(*wiring.GATE_SCRIPT)), args.event]
            _show("skill-redirect gate", subprocess.run(gate, input=payload, capture_output=True, env=env))
        if args.event in ("PreToolUse", "preToolUse"):
            danger = [python, "-S", str(hooks / "danger-gate" / "danger_gate.py"), "--dry-run", args.event]
            _show("danger gate", subprocess.run(danger, input=payload, capture_output=True, env=env))
    return 0


def _show(title: str, result: subprocess.CompletedProcess) -> None:
    print(f"== {title}: exit {result.returncode}")
    out = result.stdout.decode("utf-8", "replace").strip()
    if out:
        try:
            print(json.dumps(json.loads(out), indent=2))
        except ValueError:
            print(out)
    else:
        print("(no output: the tool call proceeds unchanged)")
    err = result.stderr.decode("utf-8", "replace").strip()
    if err:
        print(f"-- stderr / trace:\n{err}")
