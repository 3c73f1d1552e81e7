"""The danger gate's decision and its deny, for a shell call that named a row's program.

Loaded by gate_entry.py only then. The command is read by the shell reader (``_common/shell.py``) into the
simple commands that would run; each row that matches one asks its judge what would be lost
(judges.py: paths reached, devices, git's answer). When something would, and the user has
not allowed this exact command in this project (allowances.py), the call is denied in the
host's own form (``event.render_deny``), at exit 0. Anything unexpected passes the call.
"""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_HOOKS = os.path.dirname(_HERE)
if _HOOKS not in sys.path:
    sys.path.append(_HOOKS)

from _common import event as event_module  # noqa: E402
from _common import hosts  # noqa: E402
from _common import shell, shell_rules, state  # noqa: E402

import allowances  # noqa: E402
import git_state  # noqa: E402
import judges  # noqa: E402
import own_ground  # noqa: E402
import rules  # noqa: E402
import targets  # noqa: E402

REGISTRY = os.path.join(_HERE, "dangers.json")
#: Canonical names of the shell tools (Gemini's native name kept for issue 33's host table).
SHELL_TOOLS = ("Bash", "run_shell_command")
#: The file tools, canonical and native (``hosts.TOOLS``): judged only for the guard's own ground.
FILE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch", "create", "edit", "write_file", "replace",
              "StrReplace", "write")
#: Their inputs' path keys, over the hosts (Claude Code, Gemini: file_path; Copilot: path).
PATH_KEYS = ("file_path", "notebook_path", "path", "absolute_path")
#: The lines of a Codex patch that name the file they write.
PATCH_FILE_LINES = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")
MAX_SHOWN_COMMAND = 4000
#: Claude Code's permission modes whose ``ask`` is the person's prompt (measured at a terminal).
#: Not ``auto``: its classifier may settle an ask without the person (anthropics/claude-code
#: #89561, open; the loopback model has no classifier to measure it), nor ``plan``/``dontAsk``.
ASK_MODES = ("default", "acceptEdits", "bypassPermissions")


class Finding:
    __slots__ = ("row", "lost", "argv")

    def __init__(self, row, lost, argv):
        self.row = row
        self.lost = lost
        self.argv = argv


def parse_argv(argv):
    """(the host named by ``--host``, the first positional EVENT)."""
    host, event, index = None, None, 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--dry-run":
            pass
        elif arg == "--host" and index + 1 < len(argv):
            host = argv[index + 1]
            index += 1
        elif arg.startswith("--host="):
            host = arg.split("=", 1)[1]
        elif not arg.startswith("-") and event is None:
            event = arg
        index += 1
    return host, event


def main(argv, data):
    host, argv_event = parse_argv(argv)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return 0  # not what a host sends: never a block on malformed input
    call = event_module.parse(text, argv_event, host)
    command = shell_command(call)
    if command is None:
        output = decide_file(call)
        if output:
            sys.stdout.write(output)
            sys.stdout.flush()
        return 0
    # --dry-run (the advisory asking whether the gate blocks this call): a once allowance stays.
    output = decide(call, command, consume="--dry-run" not in argv)
    if output:
        sys.stdout.write(output)
        sys.stdout.flush()
    return 0


def shell_command(call):
    """The command of a PreToolUse shell call (a host's shell tool, or an MCP shell tool:
    ``mcp_shell_tool``), or None for anything else. ``call.cwd`` becomes the folder the command
    really runs in (``run_folder``); a folder it cannot start in is None: nothing runs."""
    if call.payload is None or call.name not in ("", "PreToolUse") or call.tool_response is not None:
        return None
    tool_input = call.tool_input if isinstance(call.tool_input, dict) else {}
    if call.tool_name in SHELL_TOOLS or call.native_tool_name in SHELL_TOOLS:
        command = tool_input.get("command")
    elif mcp_shell_tool(call.native_tool_name or call.tool_name):
        command = _mcp_command(tool_input)
    else:
        return None
    if not isinstance(command, str) or not command.strip():
        return None
    folder = run_folder(call.cwd, tool_input)
    if folder is None:
        return None
    call.cwd = folder
    return command


def run_folder(cwd, tool_input):
    """The folder a shell tool's command runs in: the input's folder key (``hosts.SHELL_FOLDER_KEYS``:
    Gemini's ``dir_path``, Codex's ``workdir``, Cursor's ``working_directory``) resolved from
    ``cwd`` as the host does (``path.resolve``: no ``~``), else ``cwd``. None when that folder is
    not there or cannot be told (not a string, relative to no absolute cwd): the host cannot
    start the command in it, so there is nothing to judge; judging in ``cwd`` would be wrong."""
    for key in hosts.SHELL_FOLDER_KEYS:
        if key in tool_input and tool_input[key] is not None:
            value = tool_input[key]
            break
    else:
        return cwd
    if not isinstance(value, str) or "\0" in value:
        return None
    if not value:
        return cwd  # Gemini and Codex both run an empty folder in the cwd
    absolute = isinstance(cwd, str) and os.path.isabs(cwd)
    if not os.path.isabs(value) and not absolute:
        return None
    folder = os.path.normpath(os.path.join(cwd if absolute else "/", value))
    return folder if os.path.isdir(folder) else None


def mcp_shell_tool(tool):
    """Whether ``tool`` is an MCP tool that runs a shell command, in any host's spelling
    (``hosts.MCP_TOOL_NAMES``: ``mcp__srv__run_command``, ``mcp_srv_run_command``, ``MCP:run_command``)."""
    if not isinstance(tool, str):
        return False
    if tool.startswith("MCP:"):
        return _shell_name(tool.rsplit(":", 1)[1])
    if tool.startswith("mcp__"):
        server, sep, name = tool[5:].rpartition("__")
        return bool(server and sep) and _shell_name(name)
    if tool.startswith("mcp_"):  # Gemini: mcp_<server>_<name>, both may hold _
        rest = tool[4:]
        return any(_shell_name(rest[index + 1:]) for index in range(1, len(rest)) if rest[index] == "_")
    return False


_SHELL_NAMES = frozenset(name.replace("_", "") for name in hosts.MCP_SHELL_TOOLS)


def _shell_name(name):
    """``run_command``, ``run-command``, ``runCommand``: one name of ``hosts.MCP_SHELL_TOOLS``."""
    return name.lower().replace("-", "").replace("_", "") in _SHELL_NAMES


def _mcp_command(tool_input):
    """An MCP shell tool's command: ``command`` (or ``cmd``) as a string, or as an argv (with
    any ``args`` list after it) read as the words of one command, each quoted."""
    command = tool_input.get("command")
    if command is None:
        command = tool_input.get("cmd")
    args = tool_input.get("args")
    if isinstance(command, list):
        words, args = command, args if isinstance(args, list) else []
    elif isinstance(command, str) and isinstance(args, list) and args:
        words = [command]
    else:
        return command
    words = words + args
    if not words or not all(isinstance(word, str) for word in words):
        return None
    return " ".join("'%s'" % word.replace("'", "'\\''") for word in words)


def file_paths(call):
    """The files a PreToolUse file-tool call writes (absolute), or [] for anything else."""
    if call.payload is None or call.name not in ("", "PreToolUse") or call.tool_response is not None:
        return []
    if call.tool_name not in FILE_TOOLS and call.native_tool_name not in FILE_TOOLS:
        return []
    tool_input = call.tool_input if isinstance(call.tool_input, dict) else {}
    found = [tool_input.get(key) for key in PATH_KEYS]
    patch = tool_input.get("command") if call.tool_name == "apply_patch" else None
    if isinstance(patch, str):
        for line in patch.splitlines():
            if line.startswith(PATCH_FILE_LINES):
                found.append(line.split(": ", 1)[1].strip())
    cwd = call.cwd if isinstance(call.cwd, str) and os.path.isabs(call.cwd) else None
    out = []
    for path in found:
        if isinstance(path, str) and path and "\0" not in path:
            path = os.path.expanduser(path)
            if os.path.isabs(path) or cwd:
                out.append(os.path.normpath(os.path.join(cwd or "/", path)))
    return out


def decide_file(call, env=None):
    """The deny line for a file-tool call that writes the guard's own ground, or ""."""
    paths = file_paths(call)
    if not paths:
        return ""
    env = dict(os.environ if env is None else env)
    ground = own_ground.Ground(env, call.cwd if isinstance(call.cwd, str) else "/", targets.real(_HOOKS))
    changed = ground.files(paths)
    if not changed:
        return ""
    call.name = "PreToolUse"
    tool = call.native_tool_name or call.tool_name
    return event_module.render_deny(call, own_ground_reason([Finding(OWN_GROUND, changed, (tool,))]))


def decide(call, command, env=None, registry=None, consume=True):
    """The deny line for this call, or "" to let it run."""
    env = dict(os.environ if env is None else env)
    registry = registry or rules.load(REGISTRY, rules.user_registry_path(env))
    cwd = call.cwd
    if not (isinstance(cwd, str) and os.path.isabs(cwd)):
        return ""  # every host sends the session's folder: without one the payload is not a host's
    findings = judge(command, cwd, env, registry)
    if not findings:
        return ""
    call.name = "PreToolUse"  # a payload without hook_event_name is read as one
    if any(finding.row is OWN_GROUND for finding in findings):
        return event_module.render_deny(call, deny_reason(command, findings))  # no allowance opens it
    project = allowances.project_root(cwd)
    if allowed(command, project, consume):
        return ""
    if attended(call, env):
        return event_module.render_ask(call, ask_reason(findings))
    if consume:
        remember(command, project)
    return event_module.render_deny(call, deny_reason(command, findings))


def attended(call, env):
    """Whether a person at a terminal answers this call's ``ask``: only Claude Code in an
    interactive session, which tells its hooks ``CLAUDE_CODE_SESSION_ATTENDED=1`` (measured in
    tests/e2e/test_e2e_ask_channel.py: ``-p`` and the SDK say 0, and there an ask is a deny
    or goes to the driving program), in a mode of ``ASK_MODES``. The guard's own ground is
    never asked: it is denied."""
    return (call.host == hosts.CLAUDE and call.dialect == hosts.CLAUDE
            and call.payload.get("permission_mode") in ASK_MODES
            and env.get("CLAUDE_CODE_SESSION_ATTENDED") == "1")


def judge(command, cwd, env, registry):
    """The findings of the rows on ``command``: what each matching simple command would lose."""
    home = env.get("HOME") or os.path.expanduser("~")
    places = targets.Places(
        targets.real(home) if home else "",
        allowances.project_root(cwd),
        [os.path.normpath(p) for p in registry.system_folders],
        registry.home_exceptions,
        registry.precious_files,
    )
    git = git_state.Git(env=env)
    ground = own_ground.Ground(env, cwd, targets.real(_HOOKS))
    findings = []
    # The folder each command runs in: a cd moves it for the later commands read from the same
    # place (the top level, or one ``sh -c`` string) and run in the same shell process (its
    # scope: not after the ``( … )`` or pipeline stage it ran in); None once a cd went where no
    # one can tell (a variable's unknown value, or the last stage of a pipeline: zsh keeps it, bash not).
    folders = {((), ()): cwd}
    saved = {}  # project -> "stash" | "commit": an earlier command saves its tracked changes (judges.saves)
    carried = []  # what earlier commands moved or linked (targets.carries): the disk is not scoped
    commands = shell.read(command, cwd=cwd)
    if commands.stopped:
        named = _unread_program(command, registry)
        if named:
            findings.append(Finding(TOO_LONG, ["what the part hookmux could not read runs (it names %s)" % named],
                                    (named,)))
    previous = None  # the command before, whose output may be this one's stdin (``cat f | nc h``)
    for simple in commands:
        argv = simple.argv
        if not argv:
            continue
        # As in sh: the shell expands the words with its own variables; the command's prefix
        # assignments (`HOME=/tmp rm -rf ~/x`) reach only the program's environment.
        scope = _with(env, simple.shell_vars)
        here = _folder(folders, simple.origin, simple.scope)
        if argv[0] in ("cd", "pushd") and len(argv) <= 2:
            if len(argv) == 1:
                target = [scope.get("HOME") or ""]
            else:
                target = targets.reach_parts(simple.words[1], here, scope) if argv[1] != "-" else []
            known = len(target) == 1 and target[0] and not simple.last_stage
            folders[(simple.origin, simple.scope)] = target[0] if known else None
            continue
        before = simple.after_ok
        step = judges.stash_step(before.argv, here) if before is not None and here and argv[0] == "git" else None
        feeder = previous if simple.piped_from and previous is not None and previous.stdout == "|" \
            and previous.argv[:1] == (simple.piped_from,) else None
        previous = simple
        where = judges.Where(here, scope, places, git, saved, _with(env, simple.assigns), step, feeder,
                             tuple(carried))
        context = shell_rules.Context(cwd, places.home, scope)
        found = len(findings)
        for row in registry.rows:
            if not rules.matches(registry, row, simple, context):
                continue
            operands = rules.operands_of(registry, row)
            if operands is False:
                continue  # operands hookmux cannot use: the row judges nothing (validate names why)
            lost = judges.judge(row, simple, where, operands)
            if lost:
                findings.append(Finding(row, lost, argv))
        # The guard's own ground, unless a row denies this command already (`rm -rf /*` holds it too).
        changed = ground.shell(simple, here, scope) if len(findings) == found else None
        if changed:
            findings.append(Finding(OWN_GROUND, changed, argv))
        if argv[0] in ("mv", "ln") and here:
            carry = targets.carries(argv, simple.words, here, scope)
            if carry:
                carried.append(carry)
        if argv[0] == "git" and here:
            change = judges.saves(argv, here)
            if change:
                project = allowances.project_root(change[0])
                if change[1]:
                    saved[project] = change[1]
                else:
                    saved.pop(project, None)
    return findings


#: The finding of a call that would change the guard itself (own_ground.py): not a row of the
#: registry, so no configuration can turn it off.
OWN_GROUND = {
    "id": "GUARD-OWN-GROUND",
    "harm": "That is the guard's own ground: hookmux's hooks, its allowances and configuration, or the "
            "host's hook settings. An agent must not switch off or loosen the guard that checks it.",
    "safe_alternative": "Ask the user to make this change themselves, from their own terminal or editor.",
}


#: The finding of a command the reader stopped reading at one of its limits (characters,
#: commands, words, nesting) whose text names a program of a row: limits fail closed there.
TOO_LONG = {
    "id": "TOO-LONG-TO-JUDGE",
    "harm": "The command is too long or too deeply nested for hookmux to read whole, and its text names a "
            "program that can destroy data.",
    "safe_alternative": "Split it into shorter commands, each run on its own.",
}
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


def _unread_program(command, registry):
    """The first program of a row named as a word in ``command``'s text, or ""."""
    programs = sorted(rules.program_words(registry.rows))  # `npx prisma`: prisma, not npx
    for program in programs:
        if not program:
            continue
        start = command.find(program)
        while start >= 0:
            end = start + len(program)
            if (start == 0 or command[start - 1] not in _WORD_CHARS) and \
                    (end == len(command) or command[end] not in _WORD_CHARS or program == "mkfs"):
                return program
            start = command.find(program, end)
    return ""


def explain(command, cwd, env, registry):
    """Each row's verdict on ``command`` for ``hookmux explain``: (row id, matched, why, lost).
    ``why`` is the row's own one line (``shell_rules``); ``lost`` what its judge found."""
    findings = {}
    for finding in judge(command, cwd, env, registry):
        findings.setdefault(finding.row["id"], []).extend(finding.lost)
    commands = shell.read(command, cwd=cwd)
    context = shell_rules.Context(cwd, env.get("HOME"), env)
    out = []
    for row in registry.rows:
        verdict = shell_rules.evaluate(registry.rules[row["id"]], commands, context)
        out.append((row["id"], verdict.matched, verdict.why, findings.get(row["id"], [])))
    if OWN_GROUND["id"] in findings:  # built in, not a row
        out.append((OWN_GROUND["id"], True, "changes the guard itself (built in)", findings[OWN_GROUND["id"]]))
    return out


def _folder(folders, origin, scope):
    """The folder of a command read from ``origin`` in ``scope``: the last cd of that place or
    of one around it, in its shell process or one it was started from."""
    for cut in range(len(origin), -1, -1):
        for depth in range(len(scope), -1, -1):
            folder = folders.get((origin[:cut], scope[:depth]), _NO_CD)
            if folder is not _NO_CD:
                return folder
    return None


_NO_CD = object()


def _with(env, assignments):
    if not assignments:
        return env
    return targets.assigned(assignments, env)


def allowed(command, project, consume=True):
    """Whether the user allowed exactly ``command`` in ``project`` (a ``once`` allowance is used up)."""
    directory = state.state_dir()
    entries = allowances.read(directory)
    if not entries:  # no file, no hmac: hashlib and hmac are imported only past here
        return False
    entry = allowances.find(entries, command, project, key=allowances.read_key(directory))
    if entry is None:
        return False
    if entry.get("once") and consume:
        try:
            return allowances.consume(directory, entry, state)
        except (OSError, ValueError):
            return False
    return True


def remember(command, project):
    """Keep ``command`` among the last denied ones, for ``hookmux allow --last`` (never fails)."""
    try:
        allowances.record_denial(state.state_dir(), command, project, state, MAX_SHOWN_COMMAND)
    except Exception:
        pass


def deny_reason(command, findings):
    own = [finding for finding in findings if finding.row is OWN_GROUND]
    if len(own) == len(findings):
        return own_ground_reason(own)
    lines = ["hookmux danger gate: this command was NOT run. It would destroy what nothing can bring back:"]
    lines += _finding_lines(findings)
    if own:
        lines.append(OWN_GROUND_ADVICE)
        return "\n".join(lines)
    lines.append(
        "Do not try to reach the same result another way (another command, a script, a wrapper). "
        "Stop and ask the user: say what you wanted to do and what it would delete. Only the user "
        "can let it through, from their own terminal (hookmux allow --last, which asks them to "
        "confirm there; it refuses to run without a person at a terminal). Then run the same command again.")
    return "\n".join(lines)


def ask_reason(findings):
    """What the person reads in the host's prompt (the model reads nothing unless they refuse)."""
    lines = ["hookmux danger gate: this command would destroy what nothing can bring back:"]
    lines += _finding_lines(findings)
    lines.append("Allow it only if you mean to lose this.")
    return "\n".join(lines)


def _finding_lines(findings):
    """One line per finding (what it would lose, or change of the guard), then the safer way."""
    lines = ["- [%s] %s would %s %s. %s" % (
        f.row["id"], f.argv[0], "change" if f.row is OWN_GROUND else "lose", "; ".join(f.lost), f.row["harm"])
        for f in findings]
    lines.append("Safer: " + " ".join(dict.fromkeys(f.row["safe_alternative"] for f in findings)))
    return lines


def own_ground_reason(findings):
    """The deny of a call that would change the guard itself: no allowance lets one through."""
    lines = ["hookmux danger gate: this call was NOT run. It would change the guard itself:"]
    for finding in findings:
        lines.append("- [%s] %s would change %s." % (finding.row["id"], finding.argv[0], "; ".join(finding.lost)))
    lines.append(OWN_GROUND["harm"])
    lines.append(OWN_GROUND_ADVICE)
    return "\n".join(lines)


OWN_GROUND_ADVICE = (
    "Do not try to reach the same result another way (another command, a script, a file tool). "
    "Stop and tell the user what you wanted to change and why; only they can make this change, "
    "themselves, from their own terminal or editor.")
