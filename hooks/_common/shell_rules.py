"""Structured rows: a hazard as program, subcommand, flags and conditions on the arguments,
judged on the simple commands ``shell.read`` found (shared by the advisory and the gate).

Public API (stable):

- ``compile_row(row) -> Rule``: raises ``RowError(field, message)`` for a row it cannot use.
- ``is_structured(row)``: whether a registry row is in this form (has ``program`` or ``any_of``).
- ``Context(cwd=None, home=None, env=None)``: the session's folder, the user's home, the
  environment (for ``$TMPDIR``); built once per call.
- ``evaluate(rule, commands, context) -> Verdict``: ``matched`` (bool), ``why`` (one line a
  user can read), ``command`` (the ``shell.Command`` that matched, or None).
- ``CONDITIONS``: the argument conditions a row can name.

The row form (one short line of JSON; docs/contraindication.md)::

    {"id": "RM-RECURSIVE-OUTSIDE", "program": "rm",
     "flags": {"all": ["-r|-R|--recursive"]}, "args": {"any": ["path_outside_cwd"]},
     "harm": "...", "safe_alternative": "...",
     "examples": {"advise": ["rm -rf /etc"], "quiet": ["rm -rf ./dist"]}}

- ``program``: a name or a list (``mkfs.*`` matches by prefix); compared without case,
  against ``argv[0]`` (a path is already reduced to its basename).
- ``subcommand``: ``"reset"``, ``"stash drop"`` or a list of such; the first positional words
  after the program's own global options (``git -C repo push``).
- ``flags``: ``{"all"|"any"|"none": [SPELLINGS, ...]}``; ``SPELLINGS`` is ``"-r|-R|--recursive"``.
  A one-letter spelling also matches inside combined short flags in any order (``-rf``,
  ``-fr``); ``--long`` matches ``--long=value`` and its abbreviations (``--rec``) too; ``--``
  matches the end-of-options word.
  Only words after the subcommand and before ``--`` count.
- ``args``: ``{"all"|"any"|"none": [CONDITION, ...]}`` over the positional arguments, a
  CONDITION being a name from ``CONDITIONS`` or ``{"equals"|"prefix"|"suffix"|"contains": [text, ...]}``
  (compared with the argument as ``argv`` shows it).
- ``stdin_from``: programs one of which feeds the command's stdin or script (``curl … | sh``).
- ``writes``: ``{"all"|"any"|"none": [CONDITION, ...]}`` over the files the command's output
  redirections write (``> /dev/sdb``: ``{"any": ["device"]}``).
- ``any_of``: a list of objects with the same keys; the row matches when its own keys and
  any one of these hold (an item's ``program``/``subcommand`` replace the row's, its
  ``flags``/``args`` add to them).
"""
import os

_SPELLING_KEYS = ("all", "any", "none")
ROW_KEYS = ("program", "subcommand", "flags", "args", "stdin_from", "writes", "any_of")
TEXT_KEYS = ("id", "harm", "safe_alternative", "examples", "$comment", "tool_pattern")

# ``compose``'s own options before its subcommand (``docker compose -p shop down -v``).
_COMPOSE_VALUE_OPTIONS = ("-p", "--project-name", "-f", "--file", "--env-file", "--profile", "--project-directory",
                          "--ansi", "--progress", "--parallel")
# Options a program takes before its subcommand whose value is the next word.
GLOBAL_VALUE_OPTIONS = {
    "git": frozenset(("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix")),
    "kubectl": frozenset(("-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s",
                          "--server", "--as", "--token")),
    "docker": frozenset(("-H", "--host", "-c", "--context", "--config", "-l", "--log-level") + _COMPOSE_VALUE_OPTIONS),
    "podman": frozenset(("--connection", "-c", "--url", "--log-level", "--root", "--runroot") + _COMPOSE_VALUE_OPTIONS),
    "docker-compose": frozenset(_COMPOSE_VALUE_OPTIONS + ("-H", "--host", "-c", "--context")),
    "cryptsetup": frozenset(("--type", "-c", "--cipher", "-s", "--key-size", "-h", "--hash", "-d", "--key-file",
                             "-S", "--key-slot", "--header", "--pbkdf", "--label", "--sector-size")),
    "aws": frozenset(("--profile", "--region", "--endpoint-url", "--output", "--query")),
    "gcloud": frozenset(("--project", "--account", "--configuration")),
    "gsutil": frozenset(("-o", "-h", "-u")),
    "az": frozenset(("--subscription",)),
    "npm": frozenset(("--prefix", "-w", "--workspace")),
    "pnpm": frozenset(("-C", "--dir", "--filter", "-F")),
    "yarn": frozenset(("--cwd",)),
    "cargo": frozenset(("-Z", "--config", "--color")),
    "helm": frozenset(("-n", "--namespace", "--kube-context", "--kubeconfig")),
}

SYSTEM_DIRS = frozenset((
    "/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/proc", "/root",
    "/run", "/sbin", "/srv", "/sys", "/usr", "/var", "/home", "/Users", "/System", "/Library",
    "/Applications", "/private", "/mnt", "/media", "/snap", "/nix", "/boot/efi", "/usr/bin", "/usr/lib",
    "/usr/local", "/usr/share", "/var/lib", "/var/log", "/private/etc", "/private/var",
))
TEMP_DIRS = ("/tmp", "/var/tmp", "/private/tmp", "/private/var/folders", "/dev/shm", "/var/folders")
_HARMLESS_DEVICES = ("/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/fd/",
                     "/dev/shm/", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/full")
_GLOB = frozenset("*?[")


class RowError(ValueError):
    """A row this module cannot use: ``field`` names where, the message says why."""

    def __init__(self, field, message):
        ValueError.__init__(self, "%s: %s" % (field, message))
        self.field = field
        self.message = message


class Rule(object):
    __slots__ = ("id", "alternatives", "programs")

    def __init__(self, row_id, alternatives):
        #: the row's id
        self.id = row_id
        #: the condition sets, one of which must hold (the row's own keys merged into each)
        self.alternatives = alternatives
        #: every program name the row can match (lower case; "mkfs.*" kept as written)
        self.programs = frozenset(p for alt in alternatives for p in alt.programs)


class _Conditions(object):
    __slots__ = ("programs", "subcommands", "flags", "args", "stdin_from", "writes")

    def __init__(self, programs, subcommands, flags, args, stdin_from, writes=()):
        self.programs = programs
        self.subcommands = subcommands
        self.flags = flags
        self.args = args
        self.stdin_from = stdin_from
        self.writes = writes


class Verdict(object):
    __slots__ = ("row_id", "matched", "why", "command")

    def __init__(self, row_id, matched, why, command=None):
        #: the row's id
        self.row_id = row_id
        #: whether the row holds for one of the commands
        self.matched = matched
        #: one line: what matched, or how close the nearest command came
        self.why = why
        #: the shell.Command that matched, or None
        self.command = command

    def __repr__(self):
        return "Verdict(%r, %r, %r)" % (self.row_id, self.matched, self.why)


class Context(object):
    """What a path is judged against: the session's folder, home, temp folders."""

    __slots__ = ("cwd", "home", "temps", "env")

    def __init__(self, cwd=None, home=None, env=None):
        env = os.environ if env is None else env
        #: the environment (read for HOME and TMPDIR)
        self.env = env
        home = home or env.get("HOME") or "/root"
        #: the user's home folder, normalised
        self.home = os.path.normpath(home) if home.startswith("/") else "/root"
        cwd = os.path.normpath(cwd) if isinstance(cwd, str) and cwd.startswith("/") else None
        #: the session's folder; None when unknown or too broad to vouch for what is below it
        self.cwd = None if cwd is None or _broad(cwd, self.home) else cwd
        temps = list(TEMP_DIRS) + [self.home + "/.cache", self.home + "/Library/Caches",
                                   self.home + "/Library/Developer/Xcode/DerivedData"]
        tmpdir = env.get("TMPDIR", "")
        if tmpdir.startswith("/") and not _broad(os.path.normpath(tmpdir), self.home):
            temps.append(os.path.normpath(tmpdir))
        #: folders below which deleting is routine
        self.temps = tuple(temps)


def _broad(path, home):
    return path == "/" or path == home or path in SYSTEM_DIRS


def is_structured(row):
    return isinstance(row, dict) and ("program" in row or "any_of" in row)


# -- compiling ---------------------------------------------------------------------------------

def compile_row(row):
    """The Rule for a structured row; RowError names the first problem."""
    if not isinstance(row, dict):
        raise RowError("row", "must be an object")
    row_id = row.get("id")
    top = _conditions(row, "")
    items = row.get("any_of")
    if items is None:
        alternatives = [top]
    else:
        if not isinstance(items, list) or not items:
            raise RowError("any_of", "must be a non-empty list of objects")
        alternatives = [_merge(top, _conditions(item, "any_of[%d]." % index)) for index, item in enumerate(items)]
    for index, alternative in enumerate(alternatives):
        if not alternative.programs:
            raise RowError("program" if items is None else "any_of[%d].program" % index, "missing")
    return Rule(row_id, alternatives)


def _conditions(row, place):
    if not isinstance(row, dict):
        raise RowError(place.rstrip(".") or "row", "must be an object")
    for key in row:
        if place and key not in ROW_KEYS[:-1]:
            raise RowError(place + key, "unknown key")
    programs = _names(row.get("program"), place + "program")
    subcommands = tuple(tuple(text.split()) for text in _names(row.get("subcommand"), place + "subcommand", False))
    flags = _spec(row.get("flags"), place + "flags", _spellings)
    args = _spec(row.get("args"), place + "args", _condition)
    stdin_from = _names(row.get("stdin_from"), place + "stdin_from")
    writes = _spec(row.get("writes"), place + "writes", _condition)
    return _Conditions(programs, subcommands, flags, args, stdin_from, writes)


def _names(value, field, lower=True):
    if value is None:
        return ()
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not values or not all(isinstance(v, str) and v.strip() for v in values):
        raise RowError(field, "must be a non-empty string or list of strings")
    return tuple(v.strip().lower() if lower else v.strip() for v in values)


def _spec(value, field, item):
    """[(key, entries), ...]: each group is judged on its own, so merged groups AND."""
    if value is None:
        return []
    if not isinstance(value, dict) or not value:
        raise RowError(field, 'must be an object with "all", "any" or "none"')
    spec = []
    for key, entries in value.items():
        if key not in _SPELLING_KEYS:
            raise RowError("%s.%s" % (field, key), 'unknown key (use "all", "any" or "none")')
        if isinstance(entries, (str, dict)):
            entries = [entries]
        if not isinstance(entries, list) or not entries:
            raise RowError("%s.%s" % (field, key), "must be a non-empty list")
        spec.append((key, tuple(item(entry, "%s.%s[%d]" % (field, key, index)) for index, entry in enumerate(entries))))
    return spec


def _spellings(entry, field):
    if not isinstance(entry, str) or not entry.strip():
        raise RowError(field, 'must be a string of spellings such as "-r|-R|--recursive"')
    spellings = tuple(part.strip() for part in entry.split("|"))
    if not all(spellings):
        raise RowError(field, "has an empty spelling")
    return spellings


def _condition(entry, field):
    if isinstance(entry, str):
        if entry not in CONDITIONS:
            raise RowError(field, "unknown condition %r (known: %s)" % (entry, ", ".join(sorted(CONDITIONS))))
        return (entry, None)
    if isinstance(entry, dict) and len(entry) == 1:
        (kind, values), = entry.items()
        if kind in ("equals", "prefix", "suffix", "contains"):
            values = [values] if isinstance(values, str) else values
            if isinstance(values, list) and values and all(isinstance(v, str) and v for v in values):
                return (kind, tuple(values))
    raise RowError(field, 'must be a condition name or {"equals"|"prefix"|"suffix"|"contains": [text, ...]}')


def _merge(top, item):
    def pick(a, b):
        return b if b else a

    return _Conditions(pick(top.programs, item.programs), pick(top.subcommands, item.subcommands),
                       top.flags + item.flags, top.args + item.args, pick(top.stdin_from, item.stdin_from),
                       top.writes + item.writes)


# -- evaluating ---------------------------------------------------------------------------------

def evaluate(rule, commands, context):
    """The rule's Verdict over ``commands`` (a list of shell.Command)."""
    best = (-1, "no command runs %s" % _or(sorted(rule.programs)))
    for command in commands:
        for alternative in rule.alternatives:
            stage, why = _check(alternative, command, context)
            if stage is None:
                return Verdict(rule.id, True, why, command)
            if stage > best[0]:
                best = (stage, why)
    return Verdict(rule.id, False, best[1])


def _or(names):
    return "/".join(names) if len(names) < 6 else "/".join(names[:5]) + "/..."


def _program_matches(programs, name):
    name = name.lower()
    for program in programs:
        if program == name or program.endswith("*") and name.startswith(program[:-1]):
            return True
    return False


def _check(cond, command, context):
    """(None, why) when ``cond`` holds for ``command``, else (stage reached, why not)."""
    if not command.argv or not _program_matches(cond.programs, command.argv[0]):
        return -1, ""
    name = command.argv[0]
    label = _label(command)
    rest = 1
    if cond.subcommands:
        found = None
        for sub in cond.subcommands:
            end = _subcommand_end(command, sub)
            if end is not None:
                found, rest = sub, end
                break
        if found is None:
            return 1, "%s: not %s" % (label, _or([" ".join(sub) for sub in cond.subcommands]))
        label = "%s %s" % (label, " ".join(found))
    if cond.stdin_from and not _program_matches(cond.stdin_from, command.piped_from or "-"):
        return 2, "%s: its input does not come from %s" % (label, _or(list(cond.stdin_from)))
    flag_words, arg_indexes = _split(command, rest)
    seen = []
    for key, group in cond.flags:
        hits = [_flag(spellings, flag_words) for spellings in group]
        if key == "all" and None in hits:
            return 3, "%s: no %s flag" % (label, "|".join(group[hits.index(None)]))
        hits = [hit for hit in hits if hit is not None]
        if key == "any" and not hits:
            return 3, "%s: none of the flags %s" % (label, ", ".join("|".join(s) for s in group))
        if key == "none" and hits:
            return 3, "%s: has %s" % (label, hits[0])
        if key != "none":
            seen.extend(hit for hit in hits if hit not in seen)
    reasons = []
    if cond.writes:
        writes = getattr(command, "writes", ())
        redirected = _Redirected(command, writes)
        if not writes and any(key != "none" for key, _ in cond.writes):
            return 2, "%s: not redirected into a file" % label
        for key, group in cond.writes:
            whys = [_any_arg(c, redirected, range(len(writes)), context) for c in group]
            if key == "all" and None in whys or key == "any" and not any(whys):
                return 4, "%s: writes no file that is %s" % (label, " or ".join(_describe(c) for c in group))
            if key == "none" and any(whys):
                return 4, "%s: writes %s" % (label, [w for w in whys if w][0])
            if key != "none":
                reasons.extend("writes " + why for why in whys if why)
    for key, group in cond.args:
        whys = [_any_arg(c, command, arg_indexes, context) for c in group]
        if key == "all" and None in whys:
            return 4, "%s: no argument is %s" % (label, _describe(group[whys.index(None)]))
        whys = [why for why in whys if why is not None]
        if key == "any" and not whys:
            return 4, "%s: no argument is %s" % (label, " or ".join(_describe(c) for c in group))
        if key == "none" and whys:
            return 4, "%s: %s" % (label, whys[0])
        if key != "none":
            reasons.extend(whys[:1] if key == "any" else whys)
    parts = [label]
    if seen:
        parts.append("with " + " ".join(seen))
    why = " ".join(parts)
    if reasons:
        why += ": " + "; ".join(reasons)
    elif cond.stdin_from:
        why += ": its input comes from " + command.piped_from
    return None, why


class _Redirected(object):
    """The files a command's redirections write, shaped like a command's arguments."""

    __slots__ = ("argv", "words", "assigns", "origin", "unknown_args")

    def __init__(self, command, writes):
        self.argv = tuple(writes)
        self.words = getattr(command, "write_words", None) or tuple((("lit", word),) for word in writes)
        self.assigns = command.assigns
        self.origin = command.origin
        self.unknown_args = False


def _label(command):
    if command.origin:
        return "%s (via %s)" % (command.argv[0], " > ".join(command.origin))
    return command.argv[0]


def _subcommand_end(command, sub):
    """The index after ``sub``'s last word when the command's first positional words are it."""
    argv = command.argv
    value_options = GLOBAL_VALUE_OPTIONS.get(argv[0].lower(), ())
    index = 1
    for word in sub:
        while index < len(argv) and argv[index].startswith("-") and argv[index] != "-":
            index += 2 if argv[index] in value_options else 1
        if index >= len(argv) or argv[index] != word:
            return None
        index += 1
    return index


def _split(command, start):
    """(flag words, indexes of positional arguments) from ``start``."""
    flags = []
    positional = []
    argv = command.argv
    index = start
    while index < len(argv):
        word = argv[index]
        if word == "--":
            flags.append(word)
            positional.extend(range(index + 1, len(argv)))
            break
        if word.startswith("-") and word != "-":
            flags.append(word)
        else:
            positional.append(index)
        index += 1
    return flags, positional


def _flag(spellings, words):
    """The word that spells one of ``spellings``, or None."""
    for spelling in spellings:
        for word in words:
            if word == spelling:
                return word
            if spelling.startswith("--"):
                if spelling != "--" and word.startswith(spelling + "="):
                    return word
                # getopt_long and git take a long option's unique abbreviation (`rm --recur`; an
                # ambiguous one fails to run). Not a whole word of it: --force is not --force-with-lease
                if (2 < len(word) < len(spelling) and word.startswith("--") and spelling.startswith(word)
                        and spelling[len(word)] != "-" and "=" not in spelling):
                    return word
            elif spelling.startswith("-") and len(spelling) == 2:
                if not word.startswith("--") and len(word) > 2 and spelling[1] in word[1:] and not word[1:2].isdigit():
                    return word
            elif spelling.startswith("-") and word.startswith(spelling + "="):
                return word
    return None


def _describe(condition):
    kind, values = condition
    if values is None:
        return kind
    return "%s %s" % (kind, "/".join(values))


def _any_arg(condition, command, indexes, context):
    """Why one of the arguments meets ``condition``, or None."""
    kind, values = condition
    if kind == "unknown":
        if command.unknown_args:
            return "its arguments come from %s" % ("xargs" if "xargs" in command.origin else "the found files"
                                                   if any(o.startswith("find") for o in command.origin)
                                                   else "its input")
        for index in indexes:
            if command.argv[index] == "{}":
                return "{} is each found file"
        return None
    test = CONDITIONS.get(kind)
    for index in indexes:
        word = command.argv[index]
        if test is not None:
            why = test(word, command.words[index], command, context)
        elif kind == "equals":
            why = "%s" % word if word in values else None
        elif kind == "prefix":
            why = "%s" % word if any(word.startswith(v) for v in values) else None
        elif kind == "suffix":
            why = "%s" % word if any(word.endswith(v) for v in values) else None
        else:
            why = "%s" % word if any(v in word for v in values) else None
        if why:
            return why
    return None


# -- paths --------------------------------------------------------------------------------------

def resolve(parts, command, context):
    """(path text, how) for one word: how is "known", "empty" (a variable or substitution that
    may be empty was left out) or "unknown" (guarded: ``${X:?}``, or a value nobody can tell)."""
    out = []
    how = "known"
    assigns = command.assigns
    for kind, text in parts:
        if kind == "lit" or kind == "q":
            out.append(text)
        elif kind == "tilde":
            out.append(context.home if not text else "/home/" + text)
        elif kind == "var":
            name, op = _var(text)
            value = _assigned(assigns[name], context) if name in assigns else None
            if name in assigns and ("…" in assigns[name] or "`" in assigns[name]):
                return "".join(out), "unknown"  # set by the command to what only the run knows
            if value is not None:
                out.append(value)
            elif name == "HOME":
                out.append(context.home)
            elif name == "PWD" and context.cwd:
                out.append(context.cwd)
            elif op[:2] in (":-", ":=") or op[:1] in ("-", "="):
                out.append(op.lstrip(":")[1:])
            elif op[:2] == ":?" or op[:1] == "?" or name in ("#", "?", "$", "!"):
                return "".join(out), "unknown"
            else:
                how = "empty"
        elif text == "pwd" and context.cwd:
            out.append(context.cwd)  # $(pwd): the session's folder itself
        else:
            how = "empty"
    return "".join(out), how


def _assigned(value, context):
    """An assigned value as the shell leaves it (``D=~/x``, ``D=$HOME/x``), or None when it
    holds another expansion (judged as one that may be empty)."""
    if value == "~" or value.startswith("~/"):
        value = context.home + value[1:]
    for home in ("${HOME}", "$HOME"):
        if value.startswith(home) and value[len(home):len(home) + 1] in ("", "/"):
            value = context.home + value[len(home):]
    return None if "$" in value else value


def _var(text):
    index = 0
    while index < len(text) and (text[index].isalnum() or text[index] == "_"):
        index += 1
    if index == 0 and text:
        index = 1
    return text[:index], text[index:]


def judge(parts, command, context):
    """("inside"|"outside"|"catastrophic"|"none"|"unknown", normalised path) for one argument."""
    path, how = resolve(parts, command, context)
    if how == "unknown":
        return "unknown", path
    if not path:
        return "none", path
    globbed = any(kind == "lit" and not _GLOB.isdisjoint(text) for kind, text in parts)
    if not path.startswith("/"):
        if context.cwd:
            path = context.cwd + "/" + path
        else:
            norm = os.path.normpath(path)
            if norm == ".." or norm.startswith("../"):
                return "outside", norm
            return "inside", norm
    norm = os.path.normpath(path)
    if norm.startswith("//"):
        norm = "/" + norm.lstrip("/")
    base = norm
    while globbed and base != "/" and not _GLOB.isdisjoint(os.path.basename(base)):
        base = os.path.dirname(base)
    home = context.home
    if base == "/" or base == home or base in SYSTEM_DIRS or os.path.dirname(home) == base:
        return "catastrophic", norm
    if how == "empty":
        return "none", norm
    if context.cwd and norm.startswith(context.cwd + "/"):
        return "inside", norm
    below_home = norm.startswith(home + "/")
    for folder in context.temps:
        # a cache folder in home counts, itself too (it is made again); home below a temp folder
        # (a test's HOME) does not make home one
        in_home = folder.startswith(home + "/")
        if (norm.startswith(folder + "/") or in_home and norm == folder) and (not below_home or in_home):
            return "inside", norm
    return "outside", norm


def _outside(word, parts, command, context):
    if word in (".", "./"):
        return None  # the current folder as a whole: glob_everything's case (rm refuses ".")
    verdict, path = judge(parts, command, context)
    if verdict == "catastrophic":
        return "%s is %s" % (_shown(word, path), _what(path, context))
    if verdict == "outside":
        return "%s is outside the session's folder and the temp folders" % _shown(word, path)
    return None


def _shown(word, path):
    return word if word == path else "%s (%s)" % (word, path or '""')


def _what(path, context):
    base = path.rstrip("*").rstrip("/") or "/"
    if base == "/" or path.startswith("/*"):
        return "the filesystem root"
    if base == context.home or base.startswith(context.home + "/"):
        return "the home folder"
    return "a system folder"


def _system(word, parts, command, context):
    verdict, path = judge(parts, command, context)
    if verdict in ("catastrophic", "outside") and path.startswith("/"):
        top = "/" + path.split("/")[1] if path != "/" else "/"
        if top in SYSTEM_DIRS and not path.startswith(context.home + "/") or path == "/":
            return "%s is in a system folder" % _shown(word, path)
    return None


def _glob(word, parts, command, context):
    return "%s is a glob" % word if any(k == "lit" and not _GLOB.isdisjoint(t) for k, t in parts) else None


def _glob_everything(word, parts, command, context):
    if word in ("*", "./*", ".*", "./.*", "**", "*/") and any(k == "lit" and "*" in t for k, t in parts) \
            or word in (".", "./"):
        return "%s is everything in the current folder" % word
    return None


def _variable(word, parts, command, context):
    for kind, text in parts:
        if kind == "sub" or kind == "var" and _var(text)[1][:2] != ":?" and _var(text)[0] not in command.assigns:
            return "%s depends on a value that may be empty" % word
    return None


#: What a tool makes again by itself, wherever it is: deleting only these is routine (a find
#: of the advisory; what the gate's ``git clean`` would remove). A name, or ``*.suffix``.
REGENERABLE_NAMES = frozenset(("*.pyc", "*.pyo", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
                               ".DS_Store", "*.class", "node_modules", "DerivedData", ".tox", ".nox", ".next",
                               ".nuxt", ".turbo", ".parcel-cache", ".cache", ".coverage", "htmlcov", "*.egg-info",
                               ".gradle"))
#: Build output by convention: regenerable when git does not track it (``git clean``), not by
#: name alone (``tools/build/`` may hold sources: a find by that name stays advised).
BUILD_OUTPUT_NAMES = frozenset(("dist", "build", "target", "coverage", ".venv", "out"))


def regenerable(name, untracked=False):
    """Whether the file or folder name ``name`` is regenerable output (``untracked``: also
    ``BUILD_OUTPUT_NAMES``)."""
    if name in REGENERABLE_NAMES or untracked and name in BUILD_OUTPUT_NAMES:
        return True
    return any(pattern[0] == "*" and len(name) >= len(pattern) and name.endswith(pattern[1:])
               for pattern in REGENERABLE_NAMES)


def regenerable_path(path, untracked=False):
    """Whether ``path`` (relative, ``/`` between names) is in or is regenerable output."""
    return any(regenerable(name, untracked) for name in path.strip("/").split("/") if name)
_FIND_ACTIONS = frozenset(("-delete", "-exec", "-execdir", "-ok", "-okdir"))
_FIND_OTHER_SELECTION = frozenset(("-o", "-or", "-not", "!", ",", "-path", "-ipath", "-wholename", "-iwholename",
                                   "-regex", "-iregex", "-lname", "-ilname"))


def _regenerable_find(word, parts, command, context):
    """The find (the command, or the one whose files it is given: ``find -exec rm -rf {} +``)
    selects by name only regenerable output (``REGENERABLE_NAMES``), every name test before its
    action (``find . -delete -name x`` deletes everything first)."""
    argv, names, acted = getattr(command, "found_by", ()) or command.argv, [], False
    if argv[0] not in ("find", "gfind"):
        return None
    for index, arg in enumerate(argv):
        if arg in ("-name", "-iname") and index + 1 < len(argv):
            if acted:
                return None
            names.append(argv[index + 1])
        elif arg in _FIND_ACTIONS:
            acted = True
        elif arg in _FIND_OTHER_SELECTION:
            return None
    if names and all(name in REGENERABLE_NAMES for name in names):
        return "it selects only regenerable output (%s)" % ", ".join(names)
    return None


def _device(word, parts, command, context):
    path, how = resolve(parts, command, context)
    if path.startswith("/dev/") and not any(path == d or d.endswith("/") and path.startswith(d)
                                            for d in _HARMLESS_DEVICES):
        return "%s is a device" % word
    return None


CONDITIONS = {
    "path_outside_cwd": _outside,
    "system_path": _system,
    "glob": _glob,
    "glob_everything": _glob_everything,  # also "." and "./": the whole current folder
    "variable": _variable,
    "device": _device,
    "regenerable_find": _regenerable_find,  # a find by name of regenerable output only
    "unknown": None,  # handled in _any_arg: the arguments come at run time (xargs, find -exec {})
}
