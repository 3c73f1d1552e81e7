"""Skill/agent redirect gate: a skill call naming an agent, or an agent call naming a skill,
is told how to run that name on the calling host.

    python -S skill_redirect.py [--skills-dir DIR]... [EVENT] < payload

EVENT: PreToolUse | PostToolBatch (Claude Code), preToolUse (Copilot). Always exits 0:
silent unless it redirects (a JSON deny or context); any failure is silent.
"""
import sys


def _run():
    try:
        data = sys.stdin.buffer.read()
        # Codex (--host codex, or from the plugin's shared hooks.json its agent tool, which no other
        # host sends) has no skill tool: the mirror redirect only.
        if ("codex" in sys.argv[1:] and "--host" in sys.argv[1:]) or b'"tool_name":"spawn_agent"' in data:
            import codex_mirror

            return codex_mirror.main(data)
        lowered = data.lower()
        # The hot path: most payloads cannot matter, so nothing else is imported.
        if "PostToolBatch" in sys.argv[1:]:
            if b"unknown skill" not in lowered and b"agent type" not in lowered:
                return 0
        elif b"skill" not in lowered and b"task" not in lowered and b"agent_type" not in lowered:
            return 0
        elif b'"tool_name":"Skill"' in data or b'"subagent_type"' in data:
            return 0  # Claude Code's own Skill/Agent call: the host resolves the name itself
        import redirect_core

        return redirect_core.main(sys.argv[1:], data)
    except BaseException:
        return 0


sys.exit(_run())
