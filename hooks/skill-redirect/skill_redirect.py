"""Skill-to-agent redirect gate: stops a Skill call that names an agent and says how to run it.

    python -S skill_redirect.py [--skills-dir DIR]... [EVENT] < payload

EVENT: PreToolUse | PostToolBatch (Claude Code), preToolUse (Copilot). Silent
with exit 0 unless it redirects; any failure is silent with exit 0.
"""
import sys


def _run():
    try:
        data = sys.stdin.buffer.read()
        if "codex" in sys.argv[1:] and "--host" in sys.argv[1:]:
            import codex_mirror  # Codex has no skill tool: the mirror redirect only

            return codex_mirror.main(data)
        lowered = data.lower()
        # The hot path: most payloads never mention a skill, so nothing else is imported.
        if b"skill" not in lowered:
            return 0
        if "PostToolBatch" in sys.argv[1:] and b"unknown skill" not in lowered:
            return 0
        import redirect_core

        return redirect_core.main(sys.argv[1:], data)
    except BaseException:
        return 0


sys.exit(_run())
