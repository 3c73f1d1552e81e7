"""Hook scripts in the shapes people write them (Claude Code docs and hooks in the wild, Copilot's
flat dialect), each with the verdict ``hookmux adopt`` must reach and a word of its reason."""
from __future__ import annotations

from dataclasses import dataclass

from hookmux.adopt.analysis import ADOPTABLE, BLOCKER, NOT_ADOPTABLE


@dataclass(frozen=True)
class Shape:
    name: str
    source: str
    kind: str
    reason: str = ""  # a word the reason must contain
    event: str = "PreToolUse"
    call: str = "none"


CORPUS = [
    # ---------------------------------------------------------------- adoptable
    Shape("claude-nested-context", '''#!/usr/bin/env python3
"""Remind the model to run the tests after an edit."""
import json
import sys


def main():
    payload = json.load(sys.stdin)
    if payload.get("tool_name") != "Bash":
        return
    out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "mind the tests"}}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
''', ADOPTABLE),
    Shape("copilot-flat-context", '''import json, sys

def main() -> int:
    data = json.loads(sys.stdin.read() or "{}")
    args = data.get("toolArgs")
    if isinstance(args, str):
        args = json.loads(args)
    sys.stdout.write(json.dumps({"additionalContext": "copilot says hi"}) + "\\n")
    return 0

if __name__ == "__main__":
    sys.exit(main())
''', ADOPTABLE, event="preToolUse"),
    Shape("stdin-buffer-and-exit-0", '''import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORDS = frozenset({"rm", "mv"})
PATTERN = re.compile(r"\\brm\\b")


def advise(command):
    return "careful" if command.split()[0] in WORDS else ""


def main():
    try:
        payload = json.loads(sys.stdin.buffer.read().decode())
    except ValueError:
        sys.exit(0)
    text = advise(payload["tool_input"]["command"])
    if text:
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": text}}))
    sys.exit(0)


if __name__ == "__main__":
    try:
        main()
    except Exception:
        sys.exit(0)
''', ADOPTABLE),
    Shape("main-argv-default", '''import json, sys

def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    mode = argv[0] if argv else "pre"
    payload = json.load(sys.stdin)
    print(json.dumps({"additionalContext": mode}))

if __name__ == "__main__":
    raise SystemExit(main())
''', ADOPTABLE, call="argv"),
    Shape("main-sys-argv-slice", '''import json, sys

def main(args):
    for line in sys.stdin:
        pass
    print(json.dumps({"additionalContext": " ".join(args)}))

if __name__ == "__main__":
    main(sys.argv[1:])
''', ADOPTABLE, call="argv"),
    Shape("main-full-argv", '''import json, os, sys

def main(argv):
    name = os.path.basename(argv[0])
    print(json.dumps({"additionalContext": name}))

if __name__ == "__main__":
    main(sys.argv)
''', ADOPTABLE, call="argv0"),
    Shape("exit-one-on-error", '''import json, sys, subprocess

def main():
    try:
        data = json.load(sys.stdin)
    except Exception as exc:
        print(f"bad input: {exc}", file=sys.stderr)
        sys.exit(1)
    branch = subprocess.run(["git", "branch", "--show-current"], capture_output=True, text=True).stdout
    if branch.strip() == "main":
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "on main"}}))

if __name__ == "__main__":
    main()
''', ADOPTABLE, event="PostToolUse"),
    Shape("session-start-json", '''import json, sys

def main():
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "hello"}}))

if __name__ == "__main__":
    main()
''', ADOPTABLE, event="SessionStart"),
    Shape("continue-true-is-fine", '''import json, sys

def main():
    print(json.dumps({"continue": True, "suppressOutput": True,
                      "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "ok"}}))

if __name__ == "__main__":
    main()
''', ADOPTABLE, event="PostToolUse"),
    # ---------------------------------------------------------------- blockers, plain and disguised
    Shape("exit-2-literal", '''import json, sys

def main():
    cmd = json.load(sys.stdin)["tool_input"].get("command", "")
    if "rm -rf /" in cmd:
        print("refusing rm -rf /", file=sys.stderr)
        sys.exit(2)

if __name__ == "__main__":
    main()
''', BLOCKER, "exit 2"),
    Shape("exit-2-through-a-variable", '''import json, sys

BLOCK = 2

def main():
    cmd = json.load(sys.stdin)["tool_input"].get("command", "")
    code = BLOCK if "--force" in cmd else 0
    sys.exit(code)

if __name__ == "__main__":
    main()
''', BLOCKER, "exit 2"),
    Shape("exit-2-via-main-return", '''import json, sys

def main() -> int:
    data = json.load(sys.stdin)
    if data.get("tool_name") == "Write":
        print("no writes", file=sys.stderr)
        return 2
    return 0

if __name__ == "__main__":
    sys.exit(main())
''', BLOCKER, "exit 2"),
    Shape("exit-from-alias", '''import json
from sys import exit as leave

def main():
    if json.load(__import__("sys").stdin).get("tool_name") == "Bash":
        leave(1 + 1)

if __name__ == "__main__":
    main()
''', BLOCKER, "run time"),
    Shape("raise-systemexit-2", '''import sys

def main():
    raise SystemExit(2)

if __name__ == "__main__":
    main()
''', BLOCKER, "exit 2"),
    Shape("json-decision-block", '''import json, sys

def main():
    print(json.dumps({"decision": "block", "reason": "tests first"}))

if __name__ == "__main__":
    main()
''', BLOCKER, "decision", event="Stop"),
    Shape("nested-permission-deny", '''import json, sys

def deny(reason):
    out = {"hookSpecificOutput": {"hookEventName": "PreToolUse"}}
    out["hookSpecificOutput"]["permissionDecision"] = "deny"
    out["hookSpecificOutput"]["permissionDecisionReason"] = reason
    print(json.dumps(out))

def main():
    deny("no")

if __name__ == "__main__":
    main()
''', BLOCKER, "permissionDecision"),
    Shape("copilot-flat-deny-dict-call", '''import json, sys

def main():
    print(json.dumps(dict(permissionDecision="deny", permissionDecisionReason="nope")))

if __name__ == "__main__":
    main()
''', BLOCKER, "permissionDecision", event="preToolUse"),
    Shape("continue-false", '''import json

def main():
    print(json.dumps({"continue": False, "stopReason": "quota"}))

if __name__ == "__main__":
    main()
''', BLOCKER, "continue"),
    Shape("decision-as-text", '''import sys

def main():
    sys.stdout.write('{"decision": "block", "reason": "no"}\\n')

if __name__ == "__main__":
    main()
''', BLOCKER, "decision"),
    Shape("updated-input", '''import json, sys

def main():
    data = json.load(sys.stdin)
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                             "updatedInput": {"command": "ls"}}}))

if __name__ == "__main__":
    main()
''', BLOCKER, "permissionDecision"),
    # ---------------------------------------------------------------- not adoptable
    Shape("no-main", '''import json, sys
data = json.load(sys.stdin)
print(json.dumps({"additionalContext": "x"}))
''', NOT_ADOPTABLE, "main"),
    Shape("main-called-at-import", '''import json, sys

def main():
    print(json.dumps({"additionalContext": "x"}))

main()
''', NOT_ADOPTABLE, "import time"),
    Shape("guard-does-more", '''import json, sys

def main(data):
    print(json.dumps({"additionalContext": data["tool_name"]}))

if __name__ == "__main__":
    payload = json.load(sys.stdin)
    main(payload)
''', NOT_ADOPTABLE, "__main__"),
    Shape("guard-calls-other-function", '''import json, sys

def main():
    pass

def run():
    print(json.dumps({"additionalContext": "x"}))

if __name__ == "__main__":
    run()
''', NOT_ADOPTABLE, "__main__"),
    Shape("logging-setup-at-import", '''import json, logging, sys
logging.basicConfig(filename="/tmp/hook.log", level=logging.INFO)

def main():
    logging.info("called")

if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "import time"),
    Shape("reads-argv0", '''import json, os, sys

def main():
    here = os.path.dirname(sys.argv[0])
    print(json.dumps({"additionalContext": here}))

if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "argv[0]"),
    Shape("reads-argv-in-body", '''import json, sys

def main():
    event = sys.argv[1] if len(sys.argv) > 1 else "PreToolUse"
    print(json.dumps({"additionalContext": event}))

if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "sys.argv"),
    Shape("argv-or-default", '''import json, sys

def main(argv=None):
    argv = argv or sys.argv[1:]
    print(json.dumps({"additionalContext": str(argv)}))

if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "sys.argv"),
    Shape("argparse-parse-args", '''import argparse, json, sys

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--strict", action="store_true")
    opts = parser.parse_args()
    print(json.dumps({"additionalContext": str(opts.strict)}))

if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "parse_args"),
    Shape("writes-fd-1", '''import json, os, sys

def main():
    os.write(1, json.dumps({"additionalContext": "x"}).encode())

if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "fd"),
    Shape("writes-dunder-stdout", '''import json, sys

def main():
    sys.__stdout__.write(json.dumps({"additionalContext": "x"}))

if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "__stdout__"),
    Shape("os-exit", '''import json, os, sys

def main():
    print(json.dumps({"additionalContext": "x"}))
    sys.stdout.flush()
    os._exit(0)

if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "os._exit"),
    Shape("indented-json", '''import json, sys

def main():
    print(json.dumps({"additionalContext": "x"}, indent=2))

if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "indented"),
    Shape("plain-text-on-prompt-submit", '''import sys

def main():
    print("Remember: the repo uses tabs.")

if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "plain text", event="UserPromptSubmit"),
    Shape("system-message", '''import json

def main():
    print(json.dumps({"systemMessage": "hook ran"}))

if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "systemMessage"),
    Shape("third-party-import", '''import json, sys
import requests

def main():
    requests.post("http://127.0.0.1:9/log", json=json.load(sys.stdin))

if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "requests"),
    Shape("subprocess-to-fd-1", '''import subprocess, sys

def main():
    subprocess.run(["notify-send", "tool call"])

if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "fd 1"),
    Shape("atexit", '''import atexit, json, sys

def main():
    atexit.register(lambda: print("bye", file=sys.stderr))

if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "atexit"),
    Shape("signal-alarm", '''import signal, json, sys

def main():
    signal.alarm(5)
    json.load(sys.stdin)

if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "main thread"),
    Shape("async-main", '''import asyncio

async def main():
    pass

if __name__ == "__main__":
    asyncio.run(main())
''', NOT_ADOPTABLE, "async"),
    Shape("syntax-error", "def main(:\n    pass\n", NOT_ADOPTABLE, "parse"),
    Shape("pep723-deps", '''# /// script
# dependencies = ["rich"]
# ///
import sys

def main():
    pass

if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "PEP 723"),
    Shape("rebinds-stdout", '''import io, json, sys

def main():
    sys.stdout = io.StringIO()

if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "rebinds"),
    # ---------------------------------------------------------------- from the hosts' docs and hook collections
    Shape("claude-docs-bash-validator", '''#!/usr/bin/env python3
import json
import re
import sys

_VALIDATION_RULES = [
    (r"\\bgrep\\b(?!.*\\|)", "Use 'rg' (ripgrep) instead of 'grep'"),
    (r"\\bfind\\s+\\S+\\s+-name\\b", "Use 'rg --files' instead of 'find -name'"),
]


def _validate_command(command: str) -> list[str]:
    issues = []
    for pattern, message in _VALIDATION_RULES:
        if re.search(pattern, command):
            issues.append(message)
    return issues


def main():
    try:
        input_data = json.load(sys.stdin)
    except json.JSONDecodeError as e:
        print(f"Error: Invalid JSON input: {e}", file=sys.stderr)
        sys.exit(1)
    if input_data.get("tool_name", "") != "Bash":
        sys.exit(0)
    command = input_data.get("tool_input", {}).get("command", "")
    if not command:
        sys.exit(0)
    issues = _validate_command(command)
    if issues:
        for message in issues:
            print(f"* {message}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
''', BLOCKER, "exit 2"),
    Shape("claude-docs-prompt-context-script", '''#!/usr/bin/env python3
import json
import sys
import datetime

try:
    input_data = json.load(sys.stdin)
except json.JSONDecodeError as e:
    print(f"Error: Invalid JSON input: {e}", file=sys.stderr)
    sys.exit(1)

prompt = input_data.get("prompt", "")
print(f"Current time: {datetime.datetime.now()}")
sys.exit(0)
''', NOT_ADOPTABLE, "main", event="UserPromptSubmit"),
    Shape("uv-script-collection-style", '''#!/usr/bin/env -S uv run --script
# /// script
# requires-python = ">=3.11"
# dependencies = [
#     "python-dotenv",
# ]
# ///
import json
import sys
from pathlib import Path

try:
    from dotenv import load_dotenv
    load_dotenv()
except ImportError:
    pass


def main():
    data = json.loads(sys.stdin.read())
    log = Path("logs") / "post_tool_use.json"
    log.parent.mkdir(exist_ok=True)
    log.write_text(json.dumps(data))
    sys.exit(0)


if __name__ == "__main__":
    main()
''', NOT_ADOPTABLE, "import time"),
    Shape("uv-script-no-dependencies", '''#!/usr/bin/env -S uv run --script
# /// script
# requires-python = ">=3.11"
# dependencies = []
# ///
import json, sys


def main():
    data = json.loads(sys.stdin.read())
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "logged"}}))


if __name__ == "__main__":
    main()
''', ADOPTABLE, event="PostToolUse"),
    Shape("fstring-decision", '''import sys

def main():
    reason = "tests first"
    print(f'{{"decision": "block", "reason": "{reason}"}}')

if __name__ == "__main__":
    main()
''', BLOCKER, "decision", event="Stop"),
    Shape("exit-code-from-a-table", '''import json, sys

CODES = {"ok": 0, "deny": 2}

def main():
    verdict = "deny" if json.load(sys.stdin).get("tool_name") == "Write" else "ok"
    sys.exit(CODES[verdict])

if __name__ == "__main__":
    main()
''', BLOCKER, "run time"),
    Shape("decision-key-through-a-constant", '''import json, sys

KEY = "decision"

def main():
    out = {KEY: "block", "reason": "tests first"}
    print(json.dumps(out))

if __name__ == "__main__":
    main()
''', BLOCKER, "decision", event="Stop"),
    Shape("reads-a-decision-key-only", '''import json, sys

def main():
    data = json.load(sys.stdin)
    previous = data.get("decision") or data["tool_input"].get("behavior")
    if previous == "decision":
        pass
    print(json.dumps({"additionalContext": str(previous)}))

if __name__ == "__main__":
    main()
''', ADOPTABLE),
]
