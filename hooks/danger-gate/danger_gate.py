"""Danger gate: deny a shell call that would destroy what cannot be brought back.

    python -S danger_gate.py [--host codex] [--dry-run] [EVENT] < payload

EVENT: PreToolUse (Claude Code, Codex; also Copilot's and Cursor's loaders of a Claude-format
file), preToolUse (Copilot, Cursor), beforeShellExecution (Cursor). Always exits 0: silent
unless it denies, with the host's own JSON
deny; any failure, a bad payload or a timeout lets the call run (docs/danger-gate.md).
``--dry-run``: the same verdict without using up a ``once`` allowance (the advisory asks).
"""
import sys

try:  # the work is in gate_entry.py, whose bytecode is cached (this script's is not)
    import gate_entry

    status = gate_entry.run()
except BaseException:  # a broken or missing module lets the call run
    status = 0
sys.exit(status)
