"""The danger gate's entry (danger_gate.py runs ``run()``): the byte search that ends a call no
row, file tool or ground name could concern before anything is imported, else the gate itself
(gate_core.py), under its deadline. In a module rather than the script: a script is compiled
on every start, a module's bytecode is cached (about 1 ms on the hot path of every call).
"""
import sys

#: Native names of the shell tools, as they appear quoted in a payload (Cursor: ``Shell`` on
#: preToolUse; its beforeShellExecution names no tool, only the event).
SHELL_TOOLS = (b'"Bash"', b'"bash"', b'"run_shell_command"', b'"Shell"', b'"beforeShellExecution"')
#: How an MCP tool's name starts, on every host (``hosts.MCP_TOOL_NAMES``; a test keeps them
#: equal): such a call goes on like a shell call, and gate_core tells an MCP shell tool by its name.
MCP_PREFIXES = (b"mcp_", b"MCP:")
#: Keys of a shell tool's input naming the folder it runs in (``hosts.SHELL_FOLDER_KEYS``; a
#: test keeps them equal): a folder in the guard's ground sends the call on, as its cwd does.
FOLDER_KEYS = (b'"dir_path"', b'"workdir"', b'"working_directory"', b'"cwd"', b'"working_dir"',
               b'"workingDirectory"', b'"directory"')
#: Every program a shipped row of dangers.json matches (``rules.program_words``: ``npx prisma`` is
#: found by ``prisma``; a test keeps them equal), looked up as the command's words (``_named``).
PROGRAMS = (
    b"rm", b"find", b"dd", b"git", b"mkfs", b"mke2fs", b"mkswap", b"wipefs", b"shred", b"blkdiscard", b"rsync",
    b"truncate", b"cp", b"mv", b"tar", b"gtar", b"bsdtar", b"zip", b"rimraf",
    # issue 40: data stores, infrastructure, credentials leaving the machine
    b"docker", b"docker-compose", b"psql", b"mysql", b"mariadb", b"dropdb", b"rails", b"rake", b"prisma",
    b"terraform", b"tofu", b"pulumi", b"curl", b"wget", b"scp", b"sftp", b"rclone", b"nc", b"ncat", b"netcat",
    b"socat", b"telnet",
)
_PROGRAM_NAMES = frozenset(word for word in PROGRAMS if b"-" not in word)  # docker-compose: found as docker
#: Library calls the shell reader reads as ``rm -r`` in interpreter one-liners (``fs.rm``
#: and shell-outs such as ``os.system('rm …')`` name ``rm`` as a word already).
LIBRARY_CALLS = (b"rmtree", b"rm_rf", b"rm_r", b"remove_dir", b"remove_entry", b"remove_tree", b"removedirs",
                 b"rmSync", b"rmdirSync", b"Deno.remove")
#: Disk devices after ``/dev/`` (judges._BLOCK_DEVICE_PREFIXES; a test keeps them equal): a call
#: writing one (``cat img > /dev/sdb``) names no row's program.
DEVICES = (b"sd", b"hd", b"vd", b"xvd", b"nvme", b"mmcblk", b"disk", b"rdisk", b"md", b"dm-", b"mapper/", b"root")
#: Bytes that can hide a program's name from a plain search: quotes and escapes
#: (``r''m``, ``\\rm``) are dropped before it, and ANSI-C quoting (``$'\\x72m'``)
#: sends the call on to the reader.
_HIDING = (b"'", b'\\"', b"\\")
_DYNAMIC = b"$'"
#: What follows ``>&`` when it copies a descriptor (``>&2``, ``>&-``) rather than naming a file.
_DESCRIPTOR = (b"0", b"1", b"2", b"3", b"4", b"5", b"6", b"7", b"8", b"9", b"-")
# JSON escapes that stand for a word break (a newline ends a command).
_SPACES = (b"\\n", b"\\t", b"\\r")
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
#: The file tools, native and canonical (gate_core.FILE_TOOLS; a test keeps them equal): their calls
#: are judged only for the guard's own ground.
FILE_TOOLS = (b'"Write"', b'"Edit"', b'"MultiEdit"', b'"NotebookEdit"', b'"apply_patch"', b'"create"', b'"edit"',
              b'"write_file"', b'"replace"', b'"StrReplace"', b'"write"')
#: Names of the guard's own ground (own_ground.py): a call naming one goes on to the gate, as
#: does one naming the hooks tree it runs from or a folder the environment moved the ground to.
GROUND = (b"hookmux", b".claude", b".copilot", b".codex", b".gemini", b".cursor", b".github", b"danger-gate",
          b"allowances", b"opencode", b".opencode", b".pi", b".qwen")
_GROUND_VARIABLES = (b"HOOKMUX_STATE_DIR", b"HOOKMUX_CONFIG_DIR", b"CLAUDE_CONFIG_DIR", b"COPILOT_HOME", b"CODEX_HOME",
                     b"PI_CODING_AGENT_DIR")
#: Programs that run the script file named after them (issue 39): the gate reads that file, whose
#: commands are not in the call's bytes. A path as a command's program (``./deploy.sh``) runs one too.
SCRIPT_RUNNERS = frozenset((b"sh", b"bash", b"zsh", b"dash", b"ksh", b"source", b"."))
#: Words before a command's program that leave it the program (``sudo ./x``, ``X=1 bash f``).
_BEFORE_PROGRAM = frozenset((b"sudo", b"env", b"nohup", b"time", b"nice", b"exec", b"command", b"then", b"do",
                             b"else", b"{", b"!"))
#: Bytes that end a command (a JSON newline, ``;``, ``&``, ``|``, a group, a substitution).
_COMMAND_ENDS = (b"\\n", b";", b"&", b"|", b"(", b")", b"`")
#: Folders of installed programs: a command run by such a path is no script of the project.
_SYSTEM_PATHS = (b"/bin/", b"/sbin/", b"/usr/", b"/lib", b"/nix/", b"/opt/homebrew/", b"/snap/")
# Seconds the gate may take before it lets the call run.
DEADLINE = 5


def _names_a_program(data, words, names=frozenset()):
    """Whether ``data`` names one of ``words`` (searched for) or of ``names`` (a set of plain
    words, looked up), before and after the bytes that can hide a name are dropped."""
    if _named(data, names) or _finds(data, words):
        return True
    for escape in _SPACES:
        data = data.replace(escape, b" ")
    for hiding in _HIDING:
        data = data.replace(hiding, b"")
    return _named(data, names) or _finds(data, words)


#: Every byte that is not a word character becomes a space: the command's words, split once.
_SPLIT = bytes(byte if byte in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_" else 32
               for byte in range(256))


def _named(data, names):
    """Whether a word of ``data`` (runs of word characters: ``docker-compose`` holds ``docker``)
    is in ``names``: one pass over the text and a set lookup per word, however many rows."""
    return bool(names) and not names.isdisjoint(data.translate(_SPLIT).split())


def _empties_a_file(text):
    """Whether the command's text holds a ``>`` that can empty a file (the REDIRECT row names no
    program): not ``>>``, ``>&2``, ``2>&1``, ``>(…)``, ``->``/``=>``, nor into ``/dev/null``."""
    if b"\\u003e" in text:  # JSON may spell > (and &) as escapes
        text = text.replace(b"\\u003e", b">").replace(b"\\u0026", b"&")
    start = text.find(b">")
    while start >= 0:
        after = text[start + 1:start + 2]
        if text[start - 1:start] not in (b">", b"-", b"=") and after not in (b">", b"("):
            end = start + 1 + (after in (b"|", b"&"))
            while text[end:end + 1] == b" ":
                end += 1
            target = text[end:end + 1]
            if target not in (b"", b'"') and not text.startswith(b"/dev/null", end) \
                    and not (after == b"&" and target in _DESCRIPTOR):
                return True
        start = text.find(b">", start + 1)
    return False


def _runs_a_file(text):
    """Whether a command of ``text`` (from the command's key on) runs a script file: ``bash F``,
    ``source F``, ``. F``, or a path as its program (``./deploy.sh``, ``bin/x``). Only each
    command's first words are looked at: ``ls ./src`` runs no file."""
    if b"/" not in text and b"sh " not in text and b"source " not in text and b". " not in text:
        return False
    value = text.find(b'"', text.find(b":") + 1)
    text = text[value + 1:] if value >= 0 else text
    for end in _COMMAND_ENDS:
        text = text.replace(end, b"\n")
    for line in text.split(b"\n"):
        words = line.replace(b'\\"', b"").replace(b"'", b"").split()
        index = 0
        while index < len(words) and (words[index] in _BEFORE_PROGRAM or b"=" in words[index]):
            index += 1
        if index >= len(words):
            continue
        program = words[index].replace(b"\\/", b"/")
        if program in SCRIPT_RUNNERS:
            options = [word for word in words[index + 1:] if word.startswith(b"-")]
            if len(options) < len(words) - index - 1 and not any(b"c" in word for word in options):
                return True
        elif b"/" in program and not program.startswith(_SYSTEM_PATHS) and not program.startswith(b'"'):
            return True
    return False


def _names_a_device(data):
    start = data.find(b"/dev/")
    while start >= 0:
        if data.startswith(DEVICES, start + 5):
            return True
        start = data.find(b"/dev/", start + 5)
    return False


def _finds(data, words):
    for word in words:
        start = data.find(word)
        while start >= 0:
            end = start + len(word)
            if (start == 0 or data[start - 1] not in _WORD) and (end == len(data) or data[end] not in _WORD
                                                                 or word == b"mkfs"):
                return True
            start = data.find(word, end)
    return False


def _ground_words():
    import posix

    words = list(GROUND)
    if __file__.startswith("/") and __file__.count("/") > 3:
        words.append(__file__.rsplit("/", 2)[0].encode("utf-8", "surrogateescape"))
    for name in _GROUND_VARIABLES:
        value = posix.environ.get(name)
        if value and value.startswith(b"/") and len(value) > 1:
            words.append(value.rstrip(b"/"))
    return words


def _value(data, key):
    """The JSON string after ``key`` (escapes kept), or b""."""
    start = data.find(key)
    if start < 0:
        return b""
    start = data.find(b'"', data.find(b":", start + len(key)) + 1)
    end = data.find(b'"', start + 1)
    return data[start + 1:end] if start >= 0 and end > start else b""


def _names_ground(text, data):
    """Whether ``text`` (the command or the tool's input) names the guard's ground, or the call's
    cwd is in it: a folder of one of its names, or under the hooks tree or a moved folder (a
    project path that only contains a name, ``~/src/hookmux-site``, is not)."""
    words = _ground_words()
    if _names_a_program(text, words):
        return True
    cwd = _value(data, b'"cwd"').replace(b"\\/", b"/").rstrip(b"/") + b"/"
    folders = [cwd]
    for key in FOLDER_KEYS:  # the shell tool's own folder, relative to the cwd
        value = _value(data, key).replace(b"\\/", b"/").rstrip(b"/")
        if value:
            folders.append((value if value.startswith(b"/") else cwd + value) + b"/")
    return any(folder.startswith(word + b"/") if word.startswith(b"/") else b"/" + word + b"/" in folder
               for folder in folders for word in words)


def _mcp_tool(data):
    """Whether the call's tool is an MCP tool (its name, as ``tool_name`` or ``toolName``)."""
    if b'"mcp_' not in data and b'"MCP:' not in data:
        return False
    return (_value(data, b'"tool_name"') or _value(data, b'"toolName"')).startswith(MCP_PREFIXES)


def _file_tool_text(data):
    """The payload less its transcript path (``~/.claude/projects/…`` on every Claude Code call)."""
    start = data.find(b'"transcript_path"')
    if start < 0:
        return data
    value = _value(data[start:], b'"transcript_path"')
    return data[:start] + data[start:].replace(value, b"", 1)


def user_registry(environ):
    """``rules.user_registry_path`` in bytes, from ``posix.environ``: no ``os`` on the hot path
    (a test keeps the two equal). None without HOME (no user rows are looked for then)."""
    base = environ.get(b"XDG_CONFIG_HOME")
    if not base or not base.startswith(b"/"):
        home = environ.get(b"HOME")
        if not home:
            return None
        base = home + b"/.config"
    return base + b"/hookmux/dangers.json"


def _user_registry_exists():
    import posix

    path = user_registry(posix.environ)
    if path is None:
        return False
    try:
        posix.stat(path)
    except (OSError, ValueError):
        return False
    return True


def _user_words():
    """Program names of the user's own rows (their registry is read only when it exists)."""
    _on_path()
    import rules

    document = rules.read_document(rules.user_registry_path()) or {}
    rows = document.get("rows")
    return [word.encode("utf-8", "replace") for word in rules.program_words(rows if isinstance(rows, list) else [])]


class _Timeout(BaseException):
    pass


def _expire(signum, frame):
    raise _Timeout()


def run():
    try:
        data = sys.stdin.buffer.read()
        # The hot path: a call that is no shell call, or names none of the rows' programs,
        # imports nothing.
        if not any(tool in data for tool in SHELL_TOOLS) and not _mcp_tool(data):
            if not any(tool in data for tool in FILE_TOOLS) or not _names_ground(_file_tool_text(data), b""):
                return 0
            return _gate(data)
        start = data.find(b'"command"')
        if start < 0:
            start = data.find(b'"cmd"')  # an MCP shell tool's
        if start < 0:
            start = data.find(b'command\\"')  # toolArgs sent as a JSON string
            if start < 0:
                return 0
        text = data[start:]  # not the cwd or the paths before it: ~/git/project names no program
        if not _names_a_program(text, LIBRARY_CALLS, _PROGRAM_NAMES) and _DYNAMIC not in text and not _names_a_device(text) \
                and not _empties_a_file(text) and not _runs_a_file(text):
            if not _names_ground(_file_tool_text(text), data) and (
                    not _user_registry_exists() or not _names_a_program(text, _user_words())):
                return 0
        return _gate(data)
    except BaseException:
        return 0


def _gate(data):
    try:
        _without_pythonpath()
        import _signal as signal  # the signal module imports enum (~15 ms)

        signal.signal(signal.SIGALRM, _expire)
        signal.alarm(DEADLINE)
        _on_path()
        import gate_core

        return gate_core.main(sys.argv[1:], data)
    except BaseException:
        return 0


def _without_pythonpath():
    """No module of ``$PYTHONPATH`` for the gate (a project's json.py), wired with -E or not."""
    import posix

    extra = posix.environ.get(b"PYTHONPATH")
    if extra:
        drop = set(extra.decode("utf-8", "surrogateescape").split(":"))
        sys.path[:] = [entry for entry in sys.path if entry not in drop and entry.rstrip("/") not in drop]


def _on_path():
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
