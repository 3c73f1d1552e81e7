"""What each host does, as data: the one home of host facts for the hooks and the CLI.

Hosts: ``claude`` (Claude Code 2.1.328), ``copilot`` (GitHub Copilot CLI 1.0.102),
``codex`` (OpenAI Codex CLI 0.169.0), ``gemini`` (Gemini CLI 0.61.0); measured with the
real binaries (docs/e2e.md). ``cursor`` (Cursor's agent hooks): from its documentation only
(cursor.com/docs/agent/hooks, cursor.com/docs/reference/third-party-hooks), never run by us.
``opencode`` (opencode 1.18.33) and ``pi`` (Pi coding agent 1.6.0) have no command hooks: hookmux's
own plugin (opencode) and extension (Pi), written by ``hookmux install --opencode``/``--pi``, hand
each tool call to the hooks as a subprocess with a payload in the host's own words (the plugin's
event name, the host's tool name and arguments) and map the answer (docs/e2e.md).
``qwen`` (Qwen Code 0.24.4): measured with the real binary (docs/e2e.md, "Qwen Code").
Canonical names are Claude Code's: events in PascalCase, tools as
``Bash``, ``Read``, ... Every table is keyed by host. No functions and no
imports, so this is free to import on a hot path; ``event.py`` reads it, and the
CLI loads this same file from the hooks tree (``hookmux.resources.runtime``).

Placeholders in folder templates: ``~`` the home folder, ``{project}``
``$CLAUDE_PROJECT_DIR`` or the cwd, ``{cwd}`` the cwd, ``{codex_home}``
``$CODEX_HOME`` or ``~/.codex``, ``{gemini_home}`` ``~/.gemini`` (or ``--gemini-home``),
``{qwen_home}`` ``~/.qwen``.
"""

CLAUDE = "claude"
COPILOT = "copilot"
CODEX = "codex"
GEMINI = "gemini"
CURSOR = "cursor"
OPENCODE = "opencode"
PI = "pi"
QWEN = "qwen"
HOSTS = (CLAUDE, COPILOT, CODEX, GEMINI, CURSOR, OPENCODE, PI, QWEN)

#: native event name -> canonical event name (names a host does not send are absent).
EVENTS = {
    CLAUDE: {name: name for name in (
        "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "PermissionRequest",
        "SessionStart", "SessionEnd", "UserPromptSubmit", "Stop", "SubagentStart", "SubagentStop",
        "PreCompact", "Notification",
    )},
    COPILOT: {
        "preToolUse": "PreToolUse",
        "postToolUse": "PostToolUse",
        "sessionStart": "SessionStart",
        "agentStop": "Stop",
        "subagentStop": "SubagentStop",
        "userPromptSubmitted": "UserPromptSubmit",
    },
    CODEX: {name: name for name in (
        "PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact", "PostCompact", "SessionStart",
        "SessionEnd", "UserPromptSubmit", "SubagentStart", "SubagentStop", "Stop", "Interrupt",
    )},
    # Gemini CLI 0.61.0; BeforeModel, AfterModel and BeforeToolSelection have no canonical twin.
    GEMINI: {
        "BeforeTool": "PreToolUse",
        "AfterTool": "PostToolUse",
        "BeforeAgent": "UserPromptSubmit",
        "AfterAgent": "Stop",
        "SessionStart": "SessionStart",
        "SessionEnd": "SessionEnd",
        "PreCompress": "PreCompact",
        "Notification": "Notification",
    },
    # Cursor (hooks.json). Its own shell and file events are read as the generic tool events
    # of a ``Shell``/``Read``/``Write`` call (``CURSOR_EVENT_TOOLS``). Cursor running a Claude
    # Code settings file sends these payloads too, the command line naming Claude's event.
    CURSOR: {
        "preToolUse": "PreToolUse",
        "postToolUse": "PostToolUse",
        "postToolUseFailure": "PostToolUseFailure",
        "beforeShellExecution": "PreToolUse",
        "afterShellExecution": "PostToolUse",
        "beforeReadFile": "PreToolUse",
        "afterFileEdit": "PostToolUse",
        "beforeSubmitPrompt": "UserPromptSubmit",
        "sessionStart": "SessionStart",
        "sessionEnd": "SessionEnd",
        "stop": "Stop",
        "subagentStop": "SubagentStop",
        "subagentStart": "SubagentStart",
        "preCompact": "PreCompact",
    },
    # opencode: the plugin hooks its calls go through (``tool.execute.before`` throws to block;
    # ``tool.execute.after`` may change the output the model reads). The hookmux plugin sends the
    # hook's name as ``hook_event_name``: no other host has these names (how it is recognised).
    OPENCODE: {"tool.execute.before": "PreToolUse", "tool.execute.after": "PostToolUse"},
    # Pi: the extension events (``tool_call`` returns ``{block: true, reason}``; ``tool_result``
    # returns the content the model reads). Sent as ``hook_event_name`` by hookmux's extension.
    PI: {"tool_call": "PreToolUse", "tool_result": "PostToolUse"},
    # Qwen Code 0.24.4 (a Gemini CLI fork): Claude Code's event names and payload keys, Gemini's
    # tool names; measured: PreToolUse, PostToolUse, PostToolBatch, UserPromptSubmit,
    # SessionStart, Stop in a ``-p`` run (docs/e2e.md).
    QWEN: {name: name for name in (
        "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "PermissionRequest",
        "SessionStart", "SessionEnd", "UserPromptSubmit", "Stop", "SubagentStart", "SubagentStop",
        "PreCompact", "PostCompact", "Notification",
    )},
}

#: Native events a host's hooks read as another canonical event. Qwen Code 0.24.4 runs
#: PostToolUseFailure *instead of* PostToolUse after a shell command that exits non-zero (a
#: refused ``git push --force`` too), and appends its context to the tool's result only when the
#: answer names PostToolUseFailure (measured): read as PostToolUse, answered in the native name.
READ_AS = {QWEN: {"PostToolUseFailure": "PostToolUse"}}

#: Cursor's events that name no tool in the payload: the tool they are about, and the
#: payload key that holds its one argument (``command``; ``file_path``).
CURSOR_EVENT_TOOLS = {
    "beforeShellExecution": ("Shell", "command"),
    "afterShellExecution": ("Shell", "command"),
    "beforeReadFile": ("Read", "file_path"),
    "afterFileEdit": ("Write", "file_path"),
}
#: Cursor's own tool names, as its preToolUse/postToolUse matchers name them (``MCP:<tool>`` aside).
CURSOR_TOOL_NAMES = ("Shell", "Read", "Write", "StrReplace", "Delete", "Grep", "Task", "WebFetch", "WebSearch")
#: Keys only Cursor's payloads carry (every event: ``conversation_id``, ``generation_id``,
#: ``workspace_roots``, ``cursor_version``).
CURSOR_KEYS = ("cursor_version", "conversation_id", "generation_id", "workspace_roots")
#: Qwen Code's payloads carry both of these on every event (measured, 0.24.4): an ISO
#: ``timestamp`` (Gemini's and Copilot's have one, Claude Code's and Codex's none) beside
#: ``permission_mode`` (Claude Code's and Codex's have it, Gemini's and Copilot's not).
QWEN_KEYS = ("timestamp", "permission_mode")

#: Canonical events whose payload names a tool (PostToolBatch: one per ``tool_calls`` item).
TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolBatch")
#: Canonical events that carry ``stop_hook_active``.
STOP_EVENTS = ("Stop", "SubagentStop")

#: native tool name -> canonical tool name; names not listed are kept as they are.
TOOLS = {
    CLAUDE: {},
    COPILOT: {
        "bash": "Bash",
        "view": "Read",
        "create": "Write",
        "edit": "Edit",
        "task": "Agent",
        "skill": "Skill",
        "grep": "Grep",
        "glob": "Glob",
        "powershell": "PowerShell",
    },
    # Codex already shows hooks its shell tool as Bash/command; apply_patch is kept.
    CODEX: {"spawn_agent": "Agent"},
    # Their inputs already have Claude's keys (``command``; ``file_path``, ``old_string``,
    # ``new_string``; ``file_path``, ``content``), so checks written for Claude's tools read them.
    GEMINI: {
        "run_shell_command": "Bash",
        "replace": "Edit",
        "write_file": "Write",
        "read_file": "Read",
        "glob": "Glob",
        "grep_search": "Grep",
        "web_fetch": "WebFetch",
        "google_web_search": "WebSearch",
        "activate_skill": "Skill",
        "invoke_agent": "Agent",
    },
    # Cursor: ``Shell`` (input ``command``, ``working_directory``), ``Write`` and
    # ``StrReplace`` (``file_path``), ``Read``, ``Delete``, ``Task``, ``MCP:<tool>``.
    CURSOR: {"Shell": "Bash", "StrReplace": "Edit", "Task": "Agent"},
    # opencode 1.18.33's built-in tools, lower case (measured): bash ``command``, ``workdir``,
    # ``timeout``, ``description``; write ``filePath``, ``content``; edit ``filePath``,
    # ``oldString``, ``newString``, ``replaceAll``; read ``filePath``.
    OPENCODE: {"bash": "Bash", "write": "Write", "edit": "Edit", "read": "Read", "glob": "Glob", "grep": "Grep",
               "task": "Agent", "skill": "Skill", "webfetch": "WebFetch", "websearch": "WebSearch",
               "todowrite": "TodoWrite"},
    # Pi 1.6.0's tools: bash ``command``, ``timeout``; write ``path``, ``content``; edit ``path``,
    # ``edits`` (``[{oldText, newText}]``); read ``path``; grep, find, ls.
    PI: {"bash": "Bash", "write": "Write", "edit": "Edit", "read": "Read", "grep": "Grep", "find": "Glob",
         "ls": "LS"},
    # Qwen Code 0.24.4 (its ``ToolNames``): Gemini's names mostly, ``edit`` for Gemini's replace;
    # inputs in Claude's keys (``command``; ``file_path``, ``old_string``, ``new_string``, ``content``).
    QWEN: {
        "run_shell_command": "Bash",
        "edit": "Edit",
        "write_file": "Write",
        "read_file": "Read",
        "glob": "Glob",
        "grep_search": "Grep",
        "list_directory": "LS",
        "web_fetch": "WebFetch",
        "web_search": "WebSearch",
        "todo_write": "TodoWrite",
        "notebook_edit": "NotebookEdit",
        "skill": "Skill",
        "agent": "Agent",
    },
}
#: The keys of a tool's input a host spells its own way -> Claude Code's (added beside them by
#: ``event.parse``, so checks written for Claude's tools read them).
INPUT_KEYS = {
    OPENCODE: {"filePath": "file_path", "oldString": "old_string", "newString": "new_string",
               "replaceAll": "replace_all"},
    PI: {"path": "file_path"},
}

#: Tool names a row matcher may meet, as the dispatcher sees them (after TOOLS).
KNOWN_TOOLS = {
    CLAUDE: (
        "Agent", "Task", "Bash", "BashOutput", "KillShell", "Edit", "MultiEdit", "NotebookEdit",
        "NotebookRead", "Read", "Write", "Glob", "Grep", "LS", "Skill", "SlashCommand", "TodoWrite",
        "WebFetch", "WebSearch", "ExitPlanMode", "PowerShell",
    ),
    COPILOT: (
        "Bash", "Read", "Write", "Edit", "Agent", "Skill", "Grep", "Glob", "PowerShell",
        "read_bash", "write_bash", "stop_bash", "list_bash", "web_fetch", "report_intent",
    ),
    CODEX: ("Bash", "apply_patch", "Agent"),
    GEMINI: (
        "Bash", "Edit", "Write", "Read", "Glob", "Grep", "WebFetch", "WebSearch", "Skill", "Agent",
        "list_directory", "save_memory", "write_todos", "update_topic", "enter_plan_mode",
        "list_background_processes", "read_background_output",
    ),
    CURSOR: ("Bash", "Read", "Write", "Edit", "Grep", "Delete", "Agent", "WebFetch", "WebSearch"),
    OPENCODE: ("Bash", "Write", "Edit", "Read", "Glob", "Grep", "Agent", "Skill", "WebFetch", "WebSearch", "TodoWrite",
               "list", "patch", "question"),
    PI: ("Bash", "Write", "Edit", "Read", "Grep", "Glob", "LS"),
    QWEN: (
        "Bash", "Edit", "Write", "Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch", "TodoWrite", "NotebookEdit",
        "Skill", "Agent", "save_memory", "exit_plan_mode", "enter_plan_mode", "ask_user_question", "lsp", "exec",
    ),
}

#: The shape of hook output each host reads (``event.render_context``/``render_deny``):
#: ``claude`` nested ``hookSpecificOutput``; ``copilot`` flat camelCase keys; ``codex``
#: nested and strict (any unknown key makes Codex ignore the whole output); ``gemini``
#: context nested like Claude's, but a deny is flat (``FLAT_DENY``) (the nested deny alone
#: is ignored there: the tool runs). Copilot loading a Claude-format settings file reads
#: the ``claude`` dialect.
#: ``qwen`` is Claude's nested form (measured: a PreToolUse ``permissionDecision: "deny"``
#: reaches the model as the tool's result, its reason verbatim).
#: The opencode plugin and the Pi extension read the ``claude`` dialect (they are hookmux's own).
DIALECTS = {CLAUDE: "claude", COPILOT: "copilot", CODEX: "codex", GEMINI: "gemini", CURSOR: "cursor",
            OPENCODE: "claude", PI: "claude", QWEN: "qwen"}

#: Dialects whose deny is one flat JSON object ``{decision key: "deny", reason key: R}``, read
#: at exit 0 (the others nest it in ``hookSpecificOutput``). Copilot: ``Denied by preToolUse
#: hook: R``. Gemini CLI 0.61.0 (BeforeTool): ``Tool execution blocked: R``; never ``"ask"``
#: there (a headless run hangs), and no reason on an allow (Gemini joins the reasons of all
#: parallel hooks into any deny).
#: Cursor: ``{"permission": "deny", "user_message": R, "agent_message": R}`` on ``preToolUse`` and
#: ``beforeShellExecution`` (the user sees the one, the model reads the other); a Claude Code
#: settings file run by Cursor gets the same (Cursor takes either form there, but maps the nested
#: reason to ``user_message`` only). The keys after the first all carry the reason.
FLAT_DENY = {
    COPILOT: ("permissionDecision", "permissionDecisionReason"),
    GEMINI: ("decision", "reason"),
    CURSOR: ("permission", "user_message", "agent_message"),
}

#: Canonical events whose output may carry ``additionalContext``, for hosts that reject it
#: elsewhere (Codex 0.169.0 fails the hook: Stop, SubagentStop, PreCompact, ... get nothing).
#: A host not listed takes it on every event.
CONTEXT_EVENTS = {
    CODEX: ("PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "SubagentStart"),
    # Gemini drops BeforeTool context and ignores it elsewhere; AfterTool appends it to the
    # tool's output as <hook_context>...</hook_context>.
    GEMINI: ("PostToolUse", "UserPromptSubmit", "SessionStart"),
    # Cursor reads ``{"additional_context": T}`` (flat) from postToolUse and sessionStart only.
    CURSOR: ("PostToolUse", "SessionStart"),
    # Qwen Code 0.24.4 drops PreToolUse context (with or without a decision); PostToolUse's is
    # appended to the tool's result after a blank line, SessionStart's to the system prompt.
    QWEN: ("PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit", "SessionStart",
           "SubagentStart", "PreCompact", "Notification", "Stop", "SubagentStop"),
}
#: The native events whose answer Cursor reads ``additional_context`` from (its shell and file
#: after-events have no output).
CURSOR_CONTEXT_EVENTS = ("postToolUse", "sessionStart", "PostToolUse", "SessionStart")

#: Hosts whose model never reads advice given before a call: the advisory rows of the first
#: event run on the second instead, after the call (and not on the first), worded for a call
#: that already ran (the check reads the event name).
#: opencode and Pi: a plugin can only block a call before it runs (throw; ``{block, reason}``), and
#: can add text to the tool's output after it (measured), so their advice comes after the call too.
ADVICE_AFTER = {GEMINI: ("PreToolUse", "PostToolUse"), CURSOR: ("PreToolUse", "PostToolUse"),
                OPENCODE: ("PreToolUse", "PostToolUse"), PI: ("PreToolUse", "PostToolUse"),
                QWEN: ("PreToolUse", "PostToolUse")}

#: Canonical tool names a row matcher may also select a tool by. Codex's hooks see every
#: edit as ``apply_patch`` and its own matchers take ``Edit``/``Write`` for it: rows written
#: for Edit or Write run on it too (their check reads the patch in ``tool_input.command``).
TOOL_ALIASES = {
    CODEX: {"apply_patch": ("Edit", "Write")},
}

#: What a hook's exit status means to each host. hookmux hooks always exit 0 and deny
#: with JSON on stdout: ``block`` loses the reason on Copilot, and on Copilot a
#: preToolUse hook that errors (exit 1, 3, a signal) denies the call.
EXIT_POLICY = {
    CLAUDE: {"ok": 0, "block": 2, "error_blocks": False},
    COPILOT: {"ok": 0, "block": 2, "error_blocks": True},
    CODEX: {"ok": 0, "block": 2, "error_blocks": False},
    # Gemini: exit 2 or >= 3 with any text (bash's 127 "No such file" too) blocks the call;
    # the wiring's command line exits 0 silently when the script or interpreter is gone.
    GEMINI: {"ok": 0, "block": 2, "error_blocks": True},
    # Cursor: other exit codes let the call run, unless the entry says ``failClosed``.
    CURSOR: {"ok": 0, "block": 2, "error_blocks": False},
    # opencode, Pi: hookmux's plugin reads only a JSON deny; any exit status, a crash, a missing
    # interpreter or script, or a timeout lets the call run.
    OPENCODE: {"ok": 0, "block": None, "error_blocks": False},
    PI: {"ok": 0, "block": None, "error_blocks": False},
    # Qwen Code: exit 2 blocks (stderr to the model); any other code lets the call run.
    QWEN: {"ok": 0, "block": 2, "error_blocks": False},
}

#: The tool a host runs skills through, and the one it runs agents through (native names).
#: Gemini rejects an unknown skill or agent name before any hook: the skill/agent redirect
#: is not wired there (docs/skill-redirect.md), so its folder tables below stay empty.
#: Qwen Code: the redirect is not wired yet (its skill and agent folders are not measured).
#: opencode and Pi: the redirect gate is not wired there yet (their plugins run the danger gate and
#: the advisory only), so their folder tables stay empty.
SKILL_TOOL = {CLAUDE: "Skill", COPILOT: "skill", CODEX: None, GEMINI: "activate_skill", CURSOR: None,
              OPENCODE: "skill", PI: None, QWEN: "skill"}
AGENT_TOOL = {CLAUDE: "Agent", COPILOT: "task", CODEX: "spawn_agent", GEMINI: "invoke_agent", CURSOR: "Task",
              OPENCODE: "task", PI: None, QWEN: "agent"}
#: The argument of the agent tool that names the agent.
AGENT_PARAM = {CLAUDE: "subagent_type", COPILOT: "agent_type", CODEX: "agent_type", GEMINI: "agent_name",
               CURSOR: "subagent_type", OPENCODE: "subagent_type", PI: None,
               QWEN: "subagent_type"}

#: Folders each host loads skills from (``<root>/<name>/SKILL.md``; Copilot: ``<root>/**/SKILL.md``),
#: in its order. Agents, skills and commands of a repository load from a session started in a
#: subfolder too: the skill-redirect gate expands ``{project}`` and ``{cwd}`` in these folder
#: tables to the cwd and each parent up to the repository root (measured, docs/skill-redirect.md).
SKILL_DIRS = {
    CLAUDE: ("{project}/.claude/skills", "~/.claude/skills"),
    COPILOT: (
        "~/.copilot/skills", "~/.agents/skills", "{cwd}/.github/skills", "{project}/.claude/skills",
        "{cwd}/.agents/skills",
    ),
    # Codex 0.169.0: <root>/**/SKILL.md, named by frontmatter ``name``; ~/.agents/skills too (measured).
    CODEX: ("{codex_home}/skills", "~/.agents/skills", "{project}/.agents/skills", "{project}/.codex/skills"),
    GEMINI: (),
    CURSOR: (),
    OPENCODE: (),
    PI: (),
    QWEN: (),
}
#: Folders each host loads agents from (any depth), and the file name ending that makes one.
AGENT_DIRS = {
    CLAUDE: ("~/.claude/agents", "{project}/.claude/agents"),
    COPILOT: ("~/.copilot/agents", "{project}/.github/agents", "{project}/.claude/agents"),
    CODEX: ("{codex_home}/agents",),
    GEMINI: (),
    CURSOR: (),
    OPENCODE: (),
    PI: (),
    QWEN: (),
}
#: Folders of commands (``NAME.md``) the host runs through its skill tool.
COMMAND_DIRS = {CLAUDE: ("{project}/.claude/commands", "~/.claude/commands"), COPILOT: (), CODEX: (), GEMINI: (),
                CURSOR: (), OPENCODE: (), PI: (), QWEN: ()}
#: Agents a host runs without any file (Copilot's task tool also accepts ``rubber-duck``,
#: which its ``agent_type`` enum does not list).
BUILTIN_AGENTS = {
    CLAUDE: ("claude", "Explore", "general-purpose", "Plan", "statusline-setup"),
    COPILOT: ("explore", "task", "general-purpose", "code-review", "research", "security-review", "rubber-duck"),
    CODEX: ("default", "explorer", "worker"),
    GEMINI: (),
    CURSOR: (),
    OPENCODE: (),
    PI: (),
    QWEN: (),
}
#: Skills a host runs without any file.
BUILTIN_SKILLS = {
    CLAUDE: (
        "claude-api", "code-review", "dataviz", "fewer-permission-prompts", "init", "keybindings-help",
        "loop", "plugin-authoring", "run", "security-review", "simplify", "update-config",
        "workflow-authoring",
    ),
    COPILOT: ("customize-cloud-agent", "github-pr-media"),
    CODEX: (),
    GEMINI: (),
    CURSOR: (),
    OPENCODE: (),
    PI: (),
    QWEN: (),
}
AGENT_SUFFIX = {CLAUDE: ".md", COPILOT: ".agent.md", CODEX: ".toml", GEMINI: ".md", CURSOR: ".md", OPENCODE: ".md",
                PI: ".md", QWEN: ".md"}

#: What each host reads its hooks, settings and plugins from, user's and project's: a tool
#: call writing one could switch hookmux off (the danger gate's own ground,
#: ``danger-gate/own_ground.py``). A trailing ``/``: the whole folder. ``{claude_home}``
#: ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``; ``{copilot_home}`` ``$COPILOT_HOME`` or ``~/.copilot``;
#: ``{cursor_home}`` ``~/.cursor``; ``{opencode_home}`` ``$XDG_CONFIG_HOME/opencode`` or
#: ``~/.config/opencode``; ``{pi_home}`` ``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent``; ``{qwen_home}`` ``~/.qwen``.
GUARD_FILES = {
    CLAUDE: (
        "{claude_home}/settings.json", "{claude_home}/settings.local.json", "{claude_home}/hooks/",
        "{claude_home}/plugins/", "{project}/.claude/settings.json", "{project}/.claude/settings.local.json",
    ),
    COPILOT: (
        "{copilot_home}/hooks/", "{copilot_home}/settings.json", "{copilot_home}/config.json",
        "{copilot_home}/installed-plugins/", "{project}/.github/hooks/",
    ),
    CODEX: ("{codex_home}/hooks.json", "{codex_home}/config.toml", "{codex_home}/plugins/", "{project}/.codex/"),
    GEMINI: (
        "{gemini_home}/settings.json", "{gemini_home}/extensions/", "{project}/.gemini/settings.json",
        "{project}/.gemini/extensions/",
    ),
    CURSOR: ("{cursor_home}/hooks.json", "{project}/.cursor/hooks.json"),
    # opencode loads every *.js/*.ts of these folders as a plugin, and the plugins its config names.
    OPENCODE: ("{opencode_home}/plugin/", "{opencode_home}/plugins/", "{opencode_home}/opencode.json",
               "{opencode_home}/opencode.jsonc", "{project}/.opencode/", "{project}/opencode.json",
               "{project}/opencode.jsonc"),
    PI: ("{pi_home}/extensions/", "{pi_home}/settings.json", "{project}/.pi/"),
    QWEN: ("{qwen_home}/settings.json", "{qwen_home}/extensions/", "{project}/.qwen/settings.json",
           "{project}/.qwen/extensions/"),
}

#: The user-level file hookmux wires its hooks into.
SETTINGS_FILE = {
    CLAUDE: "~/.claude/settings.json",
    COPILOT: "~/.copilot/hooks/hookmux.json",
    CODEX: "{codex_home}/hooks.json",
    GEMINI: "{gemini_home}/settings.json",
    CURSOR: "~/.cursor/hooks.json",
    OPENCODE: "{opencode_home}/plugin/hookmux.js",
    PI: "{pi_home}/extensions/hookmux.js",
    QWEN: "{qwen_home}/settings.json",
}

#: The key of a shell tool's input that names the folder the command runs in, relative to the
#: payload's ``cwd`` (an absolute one as it is): Gemini's ``run_shell_command`` ``dir_path``
#: (``path.resolve(targetDir, dir_path)``), Codex's shell tools' ``workdir`` (its exec_command
#: hook payload carries only ``command`` today), Cursor's ``Shell`` ``working_directory``; an
#: MCP shell tool's ``cwd`` and the like. The first key present wins.
SHELL_FOLDER_KEYS = ("dir_path", "workdir", "working_directory", "cwd", "working_dir", "workingDirectory",
                     "directory")
#: MCP tools whose name (the last part of ``mcp__<server>__<name>`` on Claude Code and Codex,
#: ``mcp_<server>_<name>`` on Gemini, ``MCP:<name>`` on Cursor; lower case, ``-`` read as ``_``)
#: is one of these and whose input holds a ``command`` (or ``cmd``) run it as a shell command:
#: the danger gate judges them like ``Bash`` and the installer's gate matchers select them.
MCP_SHELL_TOOLS = (
    "run", "exec", "execute", "shell", "bash", "sh", "zsh", "terminal", "run_command", "execute_command",
    "exec_command", "shell_exec", "shell_execute", "shell_command", "run_shell", "run_shell_command",
    "execute_shell", "run_bash", "execute_bash", "bash_exec", "run_in_terminal", "run_terminal_command",
    "terminal_run", "start_process", "run_process", "spawn_process",
)
#: How each host names an MCP tool: (prefix, separator between server and tool).
MCP_TOOL_NAMES = {CLAUDE: ("mcp__", "__"), CODEX: ("mcp__", "__"), GEMINI: ("mcp_", "_"), CURSOR: ("MCP:", ":"),
                  QWEN: ("mcp__", "__")}
