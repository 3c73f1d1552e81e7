"""Contraindication advisory: warn before a known-hazardous tool call, once per session.

Reads one PreToolUse payload (Claude Code, Copilot CLI or Codex) on stdin and matches
the rows of ``contraindications.json``: a structured row (``program``, ``subcommand``,
``flags``, ``args``; hooks/_common/shell_rules.py) against the simple commands the shell
reader finds in a shell tool's ``command`` (hooks/_common/shell.py, loaded only then), a
text row (``tool_pattern``/``input_pattern``) against the tool name and ``json.dumps`` of
the tool input. It prints at most one JSON line whose ``additionalContext`` lists
every matching row's id, harm and safer alternative. Advice only: it never
blocks and always exits 0. A row id is announced once per session within
``HOOKMUX_CONTRA_TTL`` seconds (default 3600); a call that matches any row not
yet announced surfaces the whole finding again, unless every such row was advised
before (in any session) and calibrated silence finds it fatigued
(hooks/calibrated-silence, docs/calibrated-silence.md). A matched row whose ``pack`` the user
turned off (``{"packs": {"cloud": false}}`` in ``~/.config/hookmux/dangers.json``, read only
once a row matched) is left out (docs/contraindication.md#packs).

On a host whose model never reads advice before a call (Gemini CLI, ``hosts.ADVICE_AFTER``)
it stays silent before the call and advises after it, in words for a call that already
ran (``after_the_fact.py``).

Runs standalone (``python -S check.py < payload``) or under hooks/_dispatch,
which passes the manifest row's ``args`` to ``main``. ``--registry PATH`` swaps
the registry file.
"""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import _common
except ImportError:  # standalone: the hooks root is not on sys.path
    sys.path.append(os.path.dirname(_HERE))
    import _common
from _common import event as _event
from _common import hosts as _hosts

REGISTRY = os.path.join(_HERE, "contraindications.json")
NAMESPACE = "contraindication"
DEFAULT_TTL = 3600.0
MAX_FIELD_CHARS = 600
MAX_CONTEXT_CHARS = 4000
# Only this much of the serialized input is searched, which bounds the regex work.
MAX_INPUT_CHARS = 100_000
# A row whose leading word occurs more often than this in one call is searched only in the
# text before the next occurrence: the patterns' windows make each occurrence cost up to a few
# hundred steps per later word, so a contrived command repeating "git push" 11,000 times took
# seconds (issue 20.7). Real commands name a tool a handful of times.
MAX_ANCHORS = 32
ROW_FIELDS = ("id", "tool_pattern", "input_pattern", "harm", "safe_alternative")
STRUCTURED_FIELDS = ("id", "harm", "safe_alternative")
# Tools whose ``command`` is read as shell, and the dialect it is read in.
SHELL_TOOLS = {"Bash": "posix", "bash": "posix", "run_shell_command": "posix", "shell": "posix",
               "exec_command": "posix", "PowerShell": "powershell", "powershell": "powershell"}
ID_PATTERN = r"[A-Z0-9][A-Z0-9._-]{0,63}"
# The session folder a row's examples are judged in (hookmux validate, the test suite).
EXAMPLES_CWD = "/home/user/project"


def main(argv=None):
    try:
        output = advise(_event.read_stdin(), _registry_path(argv or []))
        if output:
            sys.stdout.write(output)
    except Exception:
        pass
    return 0


def _registry_path(argv):
    argv = list(argv)
    for index, arg in enumerate(argv):
        if arg == "--registry" and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith("--registry="):
            return arg.split("=", 1)[1]
    return REGISTRY


def advise(stdin_text, registry_path=REGISTRY):
    """The JSON line to print for this payload, or "" to stay silent."""
    call = _event.parse(stdin_text)
    before_after = _hosts.ADVICE_AFTER.get(call.host, (None, None))
    after = call.name == before_after[1]
    if call.payload is None or call.name == before_after[0]:
        return ""
    if not after and (call.name not in ("", "PreToolUse") or call.tool_response is not None):
        return ""
    if not call.tool_name:
        return ""
    rows = matching_call_rows(load_rows(registry_path), call.tool_name, call.tool_input, call.cwd)
    if not rows:
        return ""
    user = user_config(os.environ)
    rows = packs_on(rows, user)
    if not rows or danger_gate_denies(call, stdin_text, user):
        return ""
    ids = [row["id"] for row in rows]
    session_id = call.session_id
    new_ids = _first_time(session_id, ids)
    if not new_ids or session_id and not _silence_allows(new_ids, session_id, stdin_text):
        return ""
    if after:
        text = _after_the_fact().advisory(_advisory_tool_name(call.native_tool_name), rows, _clip)
    else:
        call.name = "PreToolUse"  # a payload without hook_event_name is read as one
        text = _advisory(call.tool_name, rows)
    output = _event.render_context(call, _common.redact_text(text, MAX_CONTEXT_CHARS))
    if session_id:
        _silence_record(rows, session_id, stdin_text)
    return output


DANGER_GATE = os.path.join(os.path.dirname(_HERE), "danger-gate", "danger_gate.py")


#: Packs whose rows stay quiet unless the user's config turns them on (none: docs/contraindication.md#packs).
PACKS_OFF_BY_DEFAULT = frozenset()


def packs_off(user):
    """The packs turned off: ``PACKS_OFF_BY_DEFAULT`` and the user's ``{"packs": {"NAME": false}}``
    (the gate's user file, ``danger_user_registry``), less the ones it sets ``true``. A value that
    is not a boolean, or a name no row carries, changes nothing (``hookmux validate`` names it)."""
    off = set(PACKS_OFF_BY_DEFAULT)
    packs = user.get("packs") if isinstance(user, dict) else None
    for name, on in packs.items() if isinstance(packs, dict) else ():
        if on is False:
            off.add(name)
        elif on is True:
            off.discard(name)
    return off


def packs_on(rows, user):
    """``rows`` without those of a pack that is off."""
    off = packs_off(user)
    return [row for row in rows if row.get("pack") not in off] if off else rows


def danger_gate_denies(call, stdin_text, user=None):
    """Whether the danger gate installed beside this check denies this call. Hosts run both in
    parallel and Claude Code shows the model both answers; when the gate blocks, its deny is
    the one message (docs/danger-gate.md). Asked only on a shell call the advisory would speak
    on; ``--dry-run`` keeps a ``once`` allowance for the gate's own run. An ``ask`` (a person at
    Claude Code's prompt) counts too: the person has read the gate's reason."""
    if call.tool_name != "Bash" or not os.path.isfile(DANGER_GATE) or not _gate_rows_hold(call, user):
        return False
    import subprocess

    args = [sys.executable, "-S", "-E", DANGER_GATE, "--dry-run", "PreToolUse"]
    if call.host == "codex":
        args[-1:-1] = ["--host", "codex"]
    try:
        done = subprocess.run(args, input=stdin_text.encode("utf-8", "surrogatepass"), stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, timeout=6)
    except (OSError, ValueError, subprocess.SubprocessError):
        return False
    return b'"permissionDecision": "deny"' in done.stdout or b'"permissionDecision": "ask"' in done.stdout


DANGER_REGISTRY = os.path.join(os.path.dirname(DANGER_GATE), "dangers.json")


def _gate_rows_hold(call, user=None):
    """Whether a row of the gate (shipped, or the user's own file) holds for this call: the gate
    can deny only then, so only then is it asked (its judges, git's answer and the allowances
    stay the gate's). A force push or a clean ``git status`` costs no process."""
    rows = {}
    if user is None:
        user = user_config(os.environ)
    for document in (_read_document(DANGER_REGISTRY), user):
        found = document.get("rows")
        for row in found if isinstance(found, list) else ():
            if isinstance(row, dict) and isinstance(row.get("id"), str) and _common.shell_rules.is_structured(row):
                rows[row["id"]] = row
    disabled = user.get("disabled")
    disabled = set(d for d in disabled if isinstance(d, str)) if isinstance(disabled, list) else set()
    usable = [row for row_id, row in rows.items() if row_id not in disabled]
    command = shell_command(call.tool_input)
    if not usable or not command:
        return False
    commands = _common.shell.read(command)
    context = _common.shell_rules.Context(cwd=call.cwd or None)
    return any(_common.shell_rules.evaluate(rule, commands, context).matched for rule in compiled_rules(usable))


def danger_user_registry(environ):
    """The gate's user registry (danger-gate/rules.py ``user_registry_path``; a test keeps the
    two equal)."""
    base = environ.get("XDG_CONFIG_HOME")
    if not (base and os.path.isabs(base)):
        base = os.path.join(environ.get("HOME") or os.path.expanduser("~"), ".config")
    return os.path.join(base, "hookmux", "dangers.json")


def user_config(environ):
    """The user's hookmux danger config (``danger_user_registry``) as an object; {} when it is
    missing or unreadable. Holds the gate's rows and ``disabled`` and the advisory's ``packs``."""
    return _read_document(danger_user_registry(environ))


def _read_document(path):
    try:
        with open(path, "rb") as handle:
            document = _event.loads(handle.read(4 << 20).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return {}
    return document if isinstance(document, dict) else {}


def load_rows(path=REGISTRY):
    """The registry's usable rows; malformed ones are skipped (a bad regex is skipped when matching).

    Kept per file while its ``warm.stamp_of`` stays: a process that runs this check again
    (``hookmux serve``'s workers) reads the registry once, and again when it changes."""
    from _common import warm

    try:
        stamp = warm.stamp_of(os.stat(path))
    except OSError:
        return []
    known = _ROWS.get(path)
    if known is not None and known[0] == stamp:
        return known[1]
    usable = _read_rows(path)
    _ROWS[path] = (stamp, usable)
    return usable


_ROWS = {}


def _read_rows(path):
    try:
        with open(path, "r", encoding="utf-8") as handle:
            document = _event.loads(handle.read())
    except (OSError, ValueError, RecursionError):
        return []
    rows = document.get("rows") if isinstance(document, dict) else None
    if not isinstance(rows, list):
        return []
    usable = []
    ids = set()
    for row in rows:
        if not isinstance(row, dict) or row.get("require_bg_active"):
            continue
        fields = STRUCTURED_FIELDS if "program" in row or "any_of" in row else ROW_FIELDS
        if not all(isinstance(row.get(field), str) and row[field].strip() for field in fields):
            continue
        if not _valid_id(row["id"]) or row["id"] in ids:
            continue
        ids.add(row["id"])
        usable.append(row)
    return usable


def _valid_id(text):
    """``re.fullmatch(ID_PATTERN, text)`` without importing re."""
    return (0 < len(text) <= 64 and text[0] in _ID_FIRST_CHARS
            and all(char in _ID_CHARS for char in text[1:]))


_ID_FIRST_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_ID_CHARS = _ID_FIRST_CHARS | frozenset("._-")


def matching_call_rows(rows, tool_name, tool_input, cwd=""):
    """The rows (in registry order) that hold for this call: structured rows on the commands
    the shell reader finds (shell tools only), text rows on the serialized input."""
    text_rows = [row for row in rows if "input_pattern" in row]
    matched = []
    if text_rows:
        serialized = _event.dumps(tool_input)[:MAX_INPUT_CHARS]
        matched = matching_rows(text_rows, tool_name, serialized)
    dialect = shell_dialect(tool_name)
    command = shell_command(tool_input) if dialect else ""
    if command and len(text_rows) < len(rows) and _needs_reader(command, rows):
        found = {verdict.row_id for verdict in verdicts(rows, command, dialect, cwd) if verdict.matched}
        matched = [row for row in rows if row in matched or row["id"] in found and "input_pattern" not in row]
    return matched


def _needs_reader(command, rows):
    """False only when ``command`` is one plain simple command (no quote, escape, expansion,
    operator or assignment) whose program no structured row names and the reader does not
    look through: then the reader would return just its words and no row could hold, so
    neither module is loaded. Exact, not a guess (test_the_plain_command_gate_never_changes_a_result)."""
    if len(command) > 4096 or not _PLAIN_CHARS.issuperset(command):
        return True
    words = command.split()
    if not words:
        return False
    name = words[0].rsplit("/", 1)[-1].lower()
    if name.endswith(".exe"):
        name = name[:-4]
    return (name in _reader_names(rows) or name.startswith(("python", "pypy"))
            or any(name.startswith(p) for p in _reader_prefixes(rows)))


_PLAIN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_./,:@+%^")


def _reader_names(rows):
    key = id(rows)
    known = _NAMES.get(key)
    if known is None or known[0] is not rows:
        names = set(_LOOKED_THROUGH)
        for row in rows:
            if "input_pattern" in row:
                continue
            for item in [row] + [i for i in row.get("any_of") or [] if isinstance(i, dict)]:
                programs = item.get("program") or ()
                names.update(p.strip().lower() for p in ([programs] if isinstance(programs, str) else programs)
                             if isinstance(p, str))
        if len(_NAMES) > 64:
            _NAMES.clear()
        known = _NAMES[key] = (rows, frozenset(n for n in names if not n.endswith("*")),
                               tuple(n[:-1] for n in names if n.endswith("*")))
    return known[1]


def _reader_prefixes(rows):
    _reader_names(rows)
    return _NAMES[id(rows)][2]


_NAMES = {}
# shell.LOOKED_THROUGH, kept equal by test_the_gate_knows_what_the_reader_looks_through (importing
# shell.py to read it would cost the plain call what the gate saves).
_LOOKED_THROUGH = frozenset((
    "sudo", "doas", "env", "command", "builtin", "exec", "nohup", "nice", "time", "timeout", "stdbuf", "ionice",
    "chrt", "taskset", "setsid", "nocorrect", "noglob", "unbuffer", "chronic", "caffeinate", "busybox", "xargs",
    "parallel", "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh", "eval",
    "find", "gfind", "fd", "watch", "su", "pwsh", "powershell", "python", "pypy", "node", "nodejs", "bun", "deno",
    "ruby", "jruby", "perl", "php", "awk", "gawk", "mawk", "nawk", "flock", "script", "systemd-run", "tmux", "npx",
    "bunx", "uvx", "pipx", "uv", "poetry", "pipenv", "pdm", "hatch", "pnpm", "yarn", "npm"))


def shell_dialect(tool_name):
    """How a tool's command is read: "posix", "powershell", or None for a tool that is no shell.
    A name that starts with a shell tool's counts, as the text rows' tool_pattern search did."""
    dialect = SHELL_TOOLS.get(tool_name)
    if dialect is None and tool_name[:4] in ("Bash", "bash", "Powe", "powe"):
        for name, value in SHELL_TOOLS.items():
            if tool_name.startswith(name):
                return value
    return dialect


def shell_command(tool_input):
    """The command string of a shell tool's input ("" when there is none); Codex may send argv."""
    if not isinstance(tool_input, dict):
        return ""
    command = tool_input.get("command", tool_input.get("cmd"))
    if isinstance(command, list) and all(isinstance(word, str) for word in command):
        if len(command) >= 3 and command[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh") and command[1] in ("-c", "-lc"):
            return command[2]
        return " ".join("'%s'" % word.replace("'", "'\\''") for word in command)
    return command if isinstance(command, str) else ""


def verdicts(rows, command, dialect="posix", cwd=""):
    """Every structured row's Verdict on ``command`` (shell_rules.Verdict: matched, why)."""
    shell, rules_module = _common.shell, _common.shell_rules
    commands = shell.read(command, dialect)
    context = rules_module.Context(cwd=cwd or None)
    return [rules_module.evaluate(rule, commands, context) for rule in compiled_rules(rows)]


def compiled_rules(rows):
    """The structured rows compiled (a row that does not compile is skipped), kept per rows list."""
    key = id(rows)
    known = _RULES.get(key)
    if known is not None and known[0] is rows:
        return known[1]
    rules_module = _common.shell_rules
    rules = []
    for row in rows:
        if "input_pattern" in row:
            continue
        try:
            rules.append(rules_module.compile_row(row))
        except ValueError:
            continue
    if len(_RULES) > 64:
        _RULES.clear()
    _RULES[key] = (rows, rules)
    return rules


_RULES = {}


def matching_rows(rows, tool_name, serialized_input):
    """Text rows whose tool_pattern finds ``tool_name`` and whose input_pattern finds the input (AND, ignoring case)."""
    matched = []
    lowered = serialized_input.lower()
    for row in rows:
        if "input_pattern" not in row:
            continue
        # The word-start test first: most calls name no hazard's word, and then
        # neither a pattern nor the re module (~9 ms to import here) is needed.
        words = leading_words(row["input_pattern"])
        if words and not any(_starts_a_word(word, lowered) for word in words):
            continue
        import re

        try:
            flags = _flags(re)
            if not re.search(row["tool_pattern"], tool_name, flags):
                continue
            text = _anchored_prefix(words, serialized_input) if words else serialized_input
            if not re.search(row["input_pattern"], text, flags):
                continue
        except (re.error, RecursionError, OverflowError):
            continue
        matched.append(row)
    return matched


def _starts_a_word(word, text):
    """Whether ``word`` occurs in ``text`` where ``\\b`` can match before it (re.ASCII), as the
    pattern requires: "ri" in "source" does not count. Undecided after MAX_ANCHORS places
    (True: the pattern decides)."""
    if word[:1] not in _ASCII_WORD_CHARS:
        return word in text
    start = text.find(word)
    for _ in range(MAX_ANCHORS):
        if start < 0:
            return False
        if start == 0 or text[start - 1] not in _ASCII_WORD_CHARS:
            return True
        start = text.find(word, start + 1)
    return start >= 0


_ASCII_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _anchored_prefix(words, text):
    """``text`` up to the (MAX_ANCHORS + 1)-th place where one of ``words`` starts a word."""
    key = tuple(words)
    pattern = _ANCHORS.get(key)
    if pattern is None:
        import re

        if len(_ANCHORS) > 4096:
            _ANCHORS.clear()
        pattern = _ANCHORS[key] = re.compile(r"\b(?:%s)" % "|".join(map(re.escape, words)), _flags(re))
    starts = pattern.finditer(text)
    for count, match in enumerate(starts, 1):
        if count > MAX_ANCHORS:
            return text[: match.start()]
    return text


_ANCHORS = {}  # leading words -> the pattern finding where they start a word


def _flags(re):
    """re.IGNORECASE | re.ASCII, combined once (an enum operation per use otherwise)."""
    if not _FLAGS:
        _FLAGS.append(re.IGNORECASE | re.ASCII)
    return _FLAGS[0]


_FLAGS = []
_WORD_CHARS = _ASCII_WORD_CHARS | frozenset("-")  # what a leading word may hold
_FLAG_CHARS = frozenset("aiLmsux-")


def leading_words(pattern):
    """Words one of which every match of ``pattern`` contains, or None when that is not evident.

    Compiling a pattern costs far more than a word-start test, so a row is compiled
    only when its input contains one of these words. They are claimed only when
    every top-level alternative starts with ``\\bword`` or ``\\b(?:word|word)``
    (a pattern wrapped whole in ``(?:...)`` counts by its inside). Remembered per
    pattern, for a process that runs this check again.
    """
    if pattern in _WORDS:
        return _WORDS[pattern]
    if len(_WORDS) > 4096:
        _WORDS.clear()
    words = _WORDS[pattern] = _leading_words(pattern)
    return words


_WORDS = {}


def _leading_words(pattern):
    alternatives = _alternatives(pattern)
    if not alternatives:
        return None
    words = []
    for alternative in alternatives:
        found = _leading_words_of(alternative)
        if not found:
            return None
        words.extend(found)
    return words


def _leading_words_of(alternative):
    if not alternative.startswith("\\b"):
        return None
    if alternative.startswith("(?:", 2):
        end = alternative.find(")", 5)
        if end < 0:
            return None
        words, tail = alternative[5:end].split("|"), alternative[end + 1 : end + 2]
    else:
        end = 2
        while end < len(alternative) and alternative[end] in _WORD_CHARS:
            end += 1
        words, tail = [alternative[2:end]], alternative[end : end + 1]
        if tail and tail in "?*{":
            words, tail = [words[0][:-1]], ""
    if tail and tail in "?*{" or not all(word and set(word) <= _WORD_CHARS for word in words):
        return None
    return [word.lower() for word in words]


def _alternatives(pattern):
    """The top-level alternatives of ``pattern``; None in verbose mode (comments and
    whitespace would need a real parser)."""
    while True:
        bars, close_of_first = _scan(pattern)
        if bars is None:
            return None
        if not bars and pattern.startswith("(?:") and close_of_first == len(pattern) - 1:
            pattern = pattern[3:-1]
            continue
        cuts = [-1] + bars + [len(pattern)]
        return [pattern[cuts[i] + 1 : cuts[i + 1]] for i in range(len(cuts) - 1)]


def _scan(pattern):
    """(positions of top-level ``|``, position of the parenthesis closing one at 0)."""
    bars = []
    close_of_first = -1
    depth = 0
    index = 0
    length = len(pattern)
    while index < length:
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if char == "[":
            index += 1
            if pattern[index : index + 1] == "^":
                index += 1
            if pattern[index : index + 1] == "]":
                index += 1
            while index < length and pattern[index] != "]":
                index += 2 if pattern[index] == "\\" else 1
        elif char == "(":
            depth += 1
            if pattern[index + 1 : index + 2] == "?":
                run = index + 2
                while run < length and pattern[run] in _FLAG_CHARS:
                    run += 1
                if "x" in pattern[index + 2 : run]:
                    return None, -1
        elif char == ")":
            depth -= 1
            if depth == 0 and close_of_first < 0 and pattern.startswith("("):
                close_of_first = index
        elif char == "|" and depth <= 0:
            bars.append(index)
        index += 1
    return bars, close_of_first


def _ttl():
    raw = os.environ.get("HOOKMUX_CONTRA_TTL", "")
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_TTL
    if value != value:
        return DEFAULT_TTL
    return max(0.0, value)


def _first_time(session_id, ids):
    """The ids new for the session. Without a session id, or when state cannot be
    read or written, all of them (advice is cheap)."""
    if not session_id:
        return ids
    try:
        return _common.mark_seen(NAMESPACE, session_id, ids, _ttl())
    except Exception:
        return ids


def _silence_allows(new_ids, session_id, stdin_text):
    """Calibrated silence, for repeats only: an id never advised before is novel and
    always surfaces (the gate says so itself); the finding shows when any new id is allowed.
    Every id is asked, so each occurrence is counted even when the advisory stays quiet."""
    try:
        silence = _silence()
        event = silence.digest(stdin_text)[:16]
        answers = [silence.should_interject(NAMESPACE, {"finding": key, "session_id": session_id, "event": event})
                   for key in new_ids]
        return any(allow for allow, _ in answers)
    except Exception:
        return True


def _silence_record(rows, session_id, stdin_text):
    try:
        silence = _silence()
        origin = silence.digest(stdin_text)[:16]
        for row in rows:
            repeat = {"tool": row["tool_pattern"], "input": row["input_pattern"]} if "input_pattern" in row \
                else {"tool": "Bash|PowerShell", "input": _program_pattern(row)}
            silence.record_interjection(NAMESPACE, row["id"], session_id, repeat=repeat, origin=origin)
    except Exception:
        pass


def _program_pattern(row):
    """A regex recognising a later call that repeats a structured row's hazard, for calibrated
    silence's watch: the program, then its subcommand and one of its flags within the same
    command (approximate on purpose: it only tells "ignored" from "acted on")."""
    import re

    items = [row] + [item for item in row.get("any_of") or [] if isinstance(item, dict)]

    def listed(value):
        return [value] if isinstance(value, str) else [v for v in value or () if isinstance(v, str)]

    programs = [p for item in items for p in listed(item.get("program"))]
    names = sorted({re.escape(p.rstrip("*")) for p in programs if p.strip("*")})
    if not names:
        return r"\bNEVER-MATCHES\b"
    pattern = r"\b(?:%s)" % "|".join(names)
    subs = [s.split() for item in items for s in listed(item.get("subcommand"))]
    if subs:
        pattern += r"(?=[^;&|\n]*\b(?:%s)\b)" % "|".join(re.escape(sub[-1]) for sub in subs if sub)
    spellings = []
    for item in items:
        flags = item.get("flags") if isinstance(item.get("flags"), dict) else {}
        for key in ("all", "any"):
            for entry in listed(flags.get(key)):
                spellings.extend(entry.split("|"))
    alternatives = []
    for spelling in sorted(set(spellings)):
        if len(spelling) == 2 and spelling[0] == "-" and spelling[1] != "-":
            alternatives.append(r"\s-[A-Za-z]*%s" % re.escape(spelling[1]))
        elif spelling:
            alternatives.append(r"\s%s(?![\w-])" % re.escape(spelling))
    if alternatives:
        pattern += r"(?=[^;&|\n]*(?:%s))" % "|".join(alternatives)
    return pattern


def _silence():
    """hooks/calibrated-silence/calibrated_silence.py, loaded by path once a row matches."""
    module = _LOADED.get("silence")
    if module is None:
        try:  # the interpreter's own frozen import machinery: no importlib import
            from _frozen_importlib import module_from_spec
            from _frozen_importlib_external import spec_from_file_location
        except ImportError:
            from importlib._bootstrap import module_from_spec
            from importlib._bootstrap_external import spec_from_file_location

        path = os.path.join(os.path.dirname(_HERE), "calibrated-silence", "calibrated_silence.py")
        spec = spec_from_file_location("hookmux_calibrated_silence", path)
        module = module_from_spec(spec)
        spec.loader.exec_module(module)
        module = _LOADED.setdefault("silence", module)
    return module


_LOADED = {}


def _after_the_fact():
    """after_the_fact.py beside this file, loaded by path (as ``_silence``) once a row matched after a call."""
    module = _LOADED.get("after")
    if module is None:
        from importlib._bootstrap import module_from_spec
        from importlib._bootstrap_external import spec_from_file_location

        spec = spec_from_file_location("hookmux_after_the_fact", os.path.join(_HERE, "after_the_fact.py"))
        module = module_from_spec(spec)
        spec.loader.exec_module(module)
        module = _LOADED.setdefault("after", module)
    return module


def _advisory_tool_name(tool_name):
    import re

    return tool_name if re.fullmatch(_SAFE_TOOL_NAME, tool_name) else "tool"


_SAFE_TOOL_NAME = r"[A-Za-z][A-Za-z0-9_.:-]{0,63}"


def _advisory(tool_name, rows):
    import re

    plural = "s" if len(rows) > 1 else ""
    # The name comes from the payload and rows match it with re.search: never echo escapes,
    # newlines or a paragraph of text into what the model reads.
    shown = tool_name if re.fullmatch(_SAFE_TOOL_NAME, tool_name) else "tool"
    lines = [
        "hookmux contraindication advisory (advice only; the call was not blocked): "
        "this %s call matches known hazard%s %s." % (shown, plural, ", ".join(row["id"] for row in rows))
    ]
    for row in rows:
        lines.append(
            "- %s: %s Safer: %s"
            % (row["id"], _clip(row["harm"]), _clip(row["safe_alternative"]))
        )
    return "\n".join(lines)


def _clip(text):
    text = " ".join(text.split())
    return text if len(text) <= MAX_FIELD_CHARS else text[: MAX_FIELD_CHARS - 3] + "..."


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
