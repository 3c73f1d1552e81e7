"""What each host loads as agents and skills: data only, measured with the real binaries.

Claude Code 2.1.328 and Copilot CLI 1.0.102 (tests/e2e, docs/skill-redirect.md).
A folder is ``(base, relative path)``: base ``home`` is ``~``; ``project`` is the
session's cwd and each of its parents up to the repository root (the folder
holding ``.git``), or the cwd alone outside a repository.
"""
CLAUDE = "claude"
COPILOT = "copilot"

BUILTIN_AGENTS = {
    CLAUDE: ("claude", "Explore", "general-purpose", "Plan", "statusline-setup"),
    # rubber-duck is not in the task tool's agent_type enum, but the host runs it.
    COPILOT: ("explore", "task", "general-purpose", "code-review", "research", "security-review", "rubber-duck"),
}

BUILTIN_SKILLS = {
    CLAUDE: (
        "claude-api", "code-review", "dataviz", "fewer-permission-prompts", "init", "keybindings-help",
        "loop", "plugin-authoring", "run", "security-review", "simplify", "update-config",
        "workflow-authoring",
    ),
    COPILOT: ("customize-cloud-agent", "github-pr-media"),
}

# Agents: every *.md below the folder, symlinks followed.
# Claude Code lists a file only when its frontmatter has name: and description: (the name).
# Copilot lists a file whose frontmatter has description:; its name is name:, else the path
# below the folder without .agent.md / .md, "/" written "--" (sub/x.agent.md -> sub--x).
AGENT_FOLDERS = {
    CLAUDE: (("home", ".claude/agents"), ("project", ".claude/agents")),
    COPILOT: (("home", ".copilot/agents"), ("project", ".github/agents"), ("project", ".claude/agents")),
}

# Skills: <folder>/<dir>/SKILL.md.
# Claude Code: one level deep; the skill runs by its folder name and by its frontmatter name:.
# Copilot: any depth; the name is the frontmatter name: (the folder name only without one).
SKILL_FOLDERS = {
    CLAUDE: (("project", ".claude/skills"), ("home", ".claude/skills")),
    COPILOT: (
        ("home", ".copilot/skills"), ("home", ".agents/skills"), ("project", ".github/skills"),
        ("project", ".claude/skills"), ("project", ".agents/skills"),
    ),
}

# Claude Code runs a command (<folder>/NAME.md) through the Skill tool.
COMMAND_FOLDERS = {CLAUDE: (("project", ".claude/commands"), ("home", ".claude/commands")), COPILOT: ()}

SKILL_TOOL = {CLAUDE: "Skill", COPILOT: "skill"}
AGENT_TOOL = {CLAUDE: "Agent", COPILOT: "task"}
AGENT_ARGUMENT = {CLAUDE: "subagent_type", COPILOT: "agent_type"}
