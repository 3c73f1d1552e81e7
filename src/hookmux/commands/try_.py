"""hookmux try: run a payload through the package's own hooks, as the hosts would."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from hookmux import resources, wiring
from hookmux.errors import HookmuxError

HELP = "run the dispatcher (and the skill-redirect gate, where it is wired) on a payload file, with the trace"

GATE_EVENTS = ("PreToolUse", "PostToolBatch", "preToolUse")


def configure(parser) -> None:
    parser.add_argument("event", help="hook event, e.g. PreToolUse or preToolUse")
    parser.add_argument("payload", help="JSON payload file (see examples/)")
    parser.add_argument("--manifest", help="manifest to use (default: the shipped one)")


def run(args) -> int:
    try:
        payload = Path(args.payload).read_bytes()
    except OSError as exc:
        raise HookmuxError(f"{args.payload}: cannot read the payload: {exc.strerror or exc}") from None
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
        _show("dispatcher", subprocess.run(command, input=payload, capture_output=True, env=env))
        if args.event in GATE_EVENTS:
            gate = [python, "-S", str(hooks.joinpath(*wiring.GATE_SCRIPT)), args.event]
            _show("skill-redirect gate", subprocess.run(gate, input=payload, capture_output=True, env=env))
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
