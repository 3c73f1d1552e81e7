"""The shell reader: from a command string to the simple commands that would run.

Public API (stable; hooks/danger-gate builds on it):

- ``read(command, dialect="posix") -> list[Command]``: every simple command the string
  would run, in order, wrappers stripped and shells, ``eval``, substitutions and
  interpreter one-liners read again. ``dialect="powershell"`` reads a PowerShell line
  (backtick escapes, ``\\`` literal, no heredocs). Never raises; bounded (``MAX_CHARS``
  of input, ``MAX_DEPTH`` nested readings, ``MAX_COMMANDS`` commands). What it cannot
  parse (an unterminated quote, a missing ``)``) is read to the end as tokens.
- ``Command`` (``__slots__``):
    - ``argv``: tuple of words, quotes removed, ``argv[0]`` the program's basename
      (``/usr/bin/rm`` and ``\\rm`` read ``rm``). A variable stays ``$NAME`` / ``${...}``,
      a command substitution reads ``$(…)``.
    - ``words``: one tuple of parts per argv word, each ``(kind, text)``: ``"lit"``
      unquoted text (globs live here), ``"q"`` quoted or escaped text, ``"var"`` a
      parameter expansion (text: ``NAME`` or ``NAME:-default`` etc.), ``"sub"`` a
      substitution whose value is unknown (text: the program it runs, or ""),
      ``"tilde"`` a leading ``~`` (text: the user, or "").
    - ``origin``: tuple of what it came through, outermost first: ``"sudo"``, ``"env"``,
      ``"bash -c"``, ``"bash <<"``, ``"eval"``, ``"$(…)"``, ``"`…`"``, ``"<(…)"``,
      ``"python -c"``, ``"python -c shutil.rmtree"``, ``"xargs"``, ``"find -exec"``, ...
    - ``assigns``: dict of ``VAR=value`` assignments in effect (earlier statements,
      ``export``/``declare``/``local`` …, and the command's own prefix), values rendered like
      argv words; ``UNKNOWN_VALUE`` for a variable set to what only the run knows (``for X in``,
      ``read X``).
    - ``unknown_args``: True when more arguments are appended at run time (xargs,
      parallel, ``find -exec ... {}``).
    - ``writes``: tuple of the files its output redirections write (``> F``, ``>> F``, ``&> F``,
      ``2> F``), rendered like argv words; ``write_words``: the same as parts, like ``words``.
      A command of redirections only (``> F``) reads as ``: > F``, as sh runs it.
    - ``truncate_words``: the parts of the files a redirection empties before the command
      starts (``> F``, ``>| F``, ``&> F``, ``2> F``, ``>& F``; not ``>> F``, not ``>&2``).
    - ``stdout``: where its standard output goes: the parts of the file the last redirection
      of it names (``> F``, ``>> F``, ``1> F``, ``&> F``), ``"|"`` into a pipe, or None (the caller's).
    - ``stdin``: the parts of the file the last ``< F`` (``0< F``) of it reads, or None.
    - ``after_ok``: the ``Command`` that must succeed for this one to run (``a && b``, ``if a;
      then b``), or None.
    - ``piped_from``: the program whose output is this command's stdin or script
      (``curl … | sh``, ``sh -c "$(curl …)"``, ``bash <(curl …)``), or "".
    - ``scope``: the shell processes it runs in, outermost first: one number per ``( … )``,
      substitution and pipeline stage around it (each runs in a child of the shell), so a
      ``cd``, an assignment or a function of one scope holds only for the commands whose
      ``scope`` starts with it. ``last_stage``: it is the last stage of a pipeline, which bash
      runs in a child and zsh in the shell itself (whether its ``cd`` holds, no one can tell).
- ``render(parts) -> str``: one word's text as ``argv`` shows it.

Data stays data: the arguments of ``echo``, ``grep``, a commit message or a heredoc fed to
a program that is not a shell or interpreter are words of that command, never read as
commands (substitutions inside them do run, and are read).
"""

MAX_CHARS = 1_000_000
MAX_DEPTH = 10
MAX_COMMANDS = 500
MAX_PARTS = 256  # per word; past it a double-quoted string without substitutions is taken whole
MAX_WORD_PARTS = 1024  # parts of a word kept (its first and last halves)
MAX_ANSI = 4096  # characters of a $'…' string decoded
MAX_CODE_CALLS = 64

_BLANK = frozenset(" \t")
_META = frozenset(" \t\n;&|()<>")
# Every character that can end a plain run of words or change how it reads. The parser
# translates the text once so that str.find locates the next one in C: a Python loop over
# each character costs ~0.25 us here, too much for 100 KB in a few milliseconds.
_SPECIAL = "\n;&|()<>\\`'\"$~#"
_SENTINEL = "\x01"
_FLAT = dict.fromkeys(map(ord, _SPECIAL), _SENTINEL)
_FLAT[ord(_SENTINEL)] = "\x02"
MAX_WORDS = 4096
_CONDITIONS = frozenset(("if", "elif", "while"))
_KEYWORDS = frozenset(("{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!",
                       "[[", "]]"))
_SHELLS = frozenset(("sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh"))
_NAME_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = _NAME_FIRST | frozenset("0123456789")
_SPECIAL_PARAMS = frozenset("@*#?$!-0123456789")


class Command(object):
    """One simple command that would run (see the module docstring)."""

    __slots__ = ("argv", "words", "origin", "assigns", "shell_vars", "unknown_args", "piped_from", "writes",
                 "write_words", "found_by", "truncate_words", "stdout", "stdin", "after_ok", "scope", "last_stage")

    def __init__(self, words, origin=(), assigns=None, unknown_args=False, piped_from="", writes=(), shell_vars=None,
                 raw=None):
        words = tuple(words)
        argv = [parts[0][1] if len(parts) == 1 and parts[0][0] in _PLAIN else render(parts) for parts in words]
        if argv:
            argv[0] = program_name(argv[0])
        #: normalised words; argv[0] the program's basename
        self.argv = tuple(argv)
        #: per word, its parts ``(kind, text)``
        self.words = words
        #: the wrappers and contexts it came through, outermost first
        self.origin = tuple(origin)
        #: VAR=value assignments in effect
        self.assigns = dict(assigns or {})
        #: the shell's own variables, without the command's prefix assignments: the shell expands
        #: the words (``~``, ``$VAR``) with these, the program's environment has ``assigns``
        self.shell_vars = self.assigns if shell_vars is None else dict(shell_vars)
        #: arguments appended at run time (xargs, find -exec {})
        self.unknown_args = bool(unknown_args)
        #: the argv of the ``find`` whose found files are its arguments (``find -exec``), or ()
        self.found_by = unknown_args if isinstance(unknown_args, tuple) else ()
        #: the program feeding its stdin or script, or ""
        self.piped_from = piped_from
        #: files its output redirections write (each as parts, like ``words``; and rendered)
        self.write_words = tuple(writes)
        self.writes = tuple(render(parts) for parts in self.write_words)
        #: files a redirection empties before it starts (parts)
        self.truncate_words = raw.truncates if raw is not None else ()
        #: where its output goes: a file's parts, "|" (a pipe), or None (the caller's)
        self.stdout = raw.stdout if raw is not None else None
        #: the file its input is read from (``< F``: the parts), or None
        self.stdin = raw.stdin if raw is not None else None
        #: the Command that must succeed first (``a && b``), or None
        self.after_ok = raw.after.command if raw is not None and raw.after is not None else None
        #: the shell processes it runs in (module docstring)
        self.scope = raw.scope if raw is not None else ()
        #: the last stage of a pipeline (bash forks it, zsh does not)
        self.last_stage = raw is not None and raw.pipe_prev is not None and raw.stdout != "|"

    def __repr__(self):
        return "Command(%r, origin=%r%s%s)" % (self.argv, self.origin, ", unknown_args" if self.unknown_args else "",
                                               ", piped_from=%r" % self.piped_from if self.piped_from else "")


_PLAIN = ("lit", "q")


def program_name(word):
    """A program word as rows name it: the basename, without a Windows ``.exe``."""
    name = word.replace("\\", "/").rsplit("/", 1)[-1] if "/" in word or "\\" in word else word
    if name[-4:].lower() == ".exe":
        name = name[:-4]
    return name


def render(parts):
    out = []
    for kind, text in parts:
        if kind == "var":
            out.append("$" + text if _is_name(text) else "${" + text + "}")
        elif kind == "sub":
            out.append("$(…)")
        elif kind == "tilde":
            out.append("~" + text)
        else:
            out.append(text)
    return "".join(out)


def _is_name(text):
    return bool(text) and (text[0] in _NAME_FIRST and all(c in _NAME_CHARS for c in text)
                           or len(text) == 1 and text in _SPECIAL_PARAMS)


def read(command, dialect="posix", cwd=None):
    """The simple commands ``command`` would run (module docstring). Never raises. With ``cwd``
    (an absolute folder: where the call runs), a script file it runs is read from disk too."""
    try:
        if isinstance(command, bytes):
            command = command.decode("utf-8", "replace")
        if not isinstance(command, str):
            return []
        budget = _Budget(len(command))
        budget.stopped = len(command) > MAX_CHARS
        if isinstance(cwd, str) and cwd.startswith("/"):
            budget.cwd = cwd
        out = []
        _read_into(command[:MAX_CHARS], (), {}, 0, dialect, budget, out)
        return Commands(_unique(out), budget.stopped)
    except Exception:  # total: a reader bug must not cost the call its advisory's other rows
        return Commands((), True)


class Commands(list):
    """The simple commands of ``read``; ``stopped``: the reader stopped at one of its limits
    (characters, commands, words of a command, nested readings), so part of the command was not
    read. The gate denies such a command when its text names a program of a gate row."""

    __slots__ = ("stopped",)

    def __init__(self, commands, stopped):
        list.__init__(self, commands)
        self.stopped = stopped


class _Budget(object):
    """What one ``read`` may still spend: commands interpreted, characters read again."""

    __slots__ = ("commands", "chars", "stopped", "functions", "scripts", "cwd", "files", "scope", "scopes")

    def __init__(self, length):
        #: functions the call defined so far: name -> header raw (its ``body``)
        self.functions = {}
        #: scripts the call wrote so far (``cat > F <<E``, ``echo … > F``): path -> text
        self.scripts = {}
        #: the folder the call runs in (script files are read only with one), or None
        self.cwd = None
        #: script files read from disk so far (``MAX_SCRIPTS``)
        self.files = 0
        #: the scope of the command being interpreted: a text read again from it starts there
        self.scope = ()
        #: scope numbers handed out so far
        self.scopes = 0
        self.stopped = False
        self.commands = 0
        self.chars = min(length, MAX_CHARS) // 2 + 16384


def _unique(commands):
    seen = set()
    kept = []
    for command in commands:
        key = (command.argv, command.origin, command.unknown_args, command.piped_from, command.writes)
        if key not in seen:
            seen.add(key)
            kept.append(command)
    return kept


def _read_into(text, origin, env, depth, dialect, budget, out):
    if not text:
        return
    if depth > MAX_DEPTH or budget.chars <= 0:
        budget.stopped = True
        return
    if depth:  # read again (sh -c, eval, a one-liner's shell-out): from the shared budget
        budget.stopped = budget.stopped or len(text) > budget.chars
        text = text[: budget.chars]
        budget.chars -= len(text)
    base = budget.scope
    parser = _Parser(text, origin, depth, dialect, budget)
    parser.parse()
    envs = {base: env}  # a scope's variables: its own assignments over a copy of its parent's
    try:
        for raw in parser.raws:
            if budget.commands >= MAX_COMMANDS:
                budget.stopped = True
                return
            budget.scope = raw.scope
            _interpret(raw.words, raw.origin, _scope_env(envs, raw.scope), depth, dialect, budget, out, raw)
    finally:
        budget.scope = base


def _scope_env(envs, scope):
    """The variables of ``scope``: a copy of its parent scope's the first time it runs a command."""
    env = envs.get(scope)
    if env is None:
        env = envs[scope] = dict(_scope_env(envs, scope[:-1]) if scope else {})
    return env


def in_scope(outer, inner):
    """Whether what scope ``outer`` did (a cd, an assignment, a function) holds in ``inner``."""
    return inner[: len(outer)] == outer


class _Raw(object):
    """A simple command as parsed, before wrappers and shells are looked through."""

    __slots__ = ("words", "origin", "heredoc", "heredoc_quoted", "herestring", "piped_from", "pipe_prev", "done",
                 "writes", "guard", "truncates", "stdout", "stdin", "after", "negated", "command", "body", "scope")

    def __init__(self, origin):
        self.done = False
        self.words = []
        self.origin = origin
        self.heredoc = None
        self.heredoc_quoted = False
        self.herestring = None
        self.piped_from = ""
        self.writes = ()
        #: what runs next depends on its success (``&&``, the condition of ``if``/``while``)
        self.guard = False
        self.pipe_prev = None
        self.truncates = ()
        self.stdout = None
        self.stdin = None
        #: the raw before it at the same level whose success it needs (``a && b``), or None
        self.after = None
        #: run under ``!``: its failure is what counts
        self.negated = False
        #: the Command read from it (after wrappers), once interpreted
        self.command = None
        #: a function definition's header (``f()``, ``function f``): the raws of its body, once read
        self.body = None
        #: the shell processes it runs in (``Command.scope``)
        self.scope = ()


class _Parser(object):
    """Stage one: quoting, segments, substitutions, redirects and heredocs -> ``_Raw`` list."""

    def __init__(self, text, origin, depth, dialect, budget):
        self.s = text
        self.n = len(text)
        self.flat = text.translate(_FLAT)
        self.origin = origin
        self.depth = depth
        self.budget = budget
        self.raws = []
        self.pending = []  # heredocs whose bodies start after the next newline
        self.esc = "`" if dialect == "powershell" else "\\"
        self.backticks = dialect != "powershell"
        self.dialect = dialect
        self.defining = None  # a function header (``f()``) whose body opens next
        self.bodies = []  # open function bodies: (header raw, "{" or "(", level, first raw's index)
        self.braces = 0
        #: the scope the text is read in, and the scopes opened in it so far (innermost last)
        self.scope = budget.scope
        self.opened = []

    def _open_scope(self):
        self.budget.scopes += 1
        self.opened.append(self.budget.scopes)

    def _close_scope(self):
        if self.opened:
            self.opened.pop()

    def _scope_now(self):
        return self.scope + tuple(self.opened) if self.opened else self.scope

    def parse(self):
        self.read_list(0, self.origin, None, self.depth)

    # -- lists and commands ---------------------------------------------------------------

    def read_list(self, i, origin, close, depth):
        """Commands from ``i`` up to ``close`` (")" or None: the end); the index after it."""
        s, n = self.s, self.n
        flat = self.flat
        raw = None
        prev_in_pipe = None
        groups = 0
        condition = False  # the next command is the condition of an if/elif/while
        previous = None  # the raw whose success the next command of this list needs (``a && b``)
        negate = False  # the next command runs under ``!``
        while i < n:
            c = s[i]
            if c in _BLANK:
                i = _run_end(s, i, " \t")
            elif c == self.esc and s[i + 1 : i + 2] == "\n":
                i += 2
            elif c == "\n":
                previous = raw if raw is not None and raw.guard and not raw.negated else None  # if a; then b
                raw = self._finish(raw)
                prev_in_pipe = None
                i = self._heredocs(i + 1)
            elif c == "#" and (i == 0 or s[i - 1] in _META):
                j = s.find("\n", i)
                i = n if j < 0 else j
            elif c == ";":
                previous = raw if raw is not None and raw.guard and not raw.negated else None
                raw = self._finish(raw)
                prev_in_pipe = None
                i = _run_end(s, i, "; \t")
            elif c == "&":
                if s[i + 1 : i + 2] == ">":
                    raw = raw or self._new(origin, prev_in_pipe, previous, negate)
                    i = self._redirect(i, raw, origin, depth)
                    continue
                if raw is not None and s[i + 1 : i + 2] == "&":
                    raw.guard = True  # the next command runs only when this one succeeds
                    previous = raw if raw.words and not raw.negated else None
                else:
                    previous = None
                raw = self._finish(raw)
                prev_in_pipe = None
                i += 2 if s[i + 1 : i + 2] == "&" else 1
            elif c == "|":
                previous = None
                if s[i + 1 : i + 2] == "|":
                    raw = self._finish(raw)
                    prev_in_pipe = None
                    i += 2
                else:
                    if raw is not None and raw.stdout is None:
                        raw.stdout = "|"
                    if raw is not None and not raw.done:  # a stage before the last: a child of the shell
                        self.budget.scopes += 1
                        raw.scope = raw.scope + (self.budget.scopes,)
                    prev_in_pipe = raw
                    raw = self._finish(raw)
                    i += 2 if s[i + 1 : i + 2] == "&" else 1
            elif c == "(":
                # a subshell groups commands: counted, not recursed into, so 100,000 of them cost no stack
                end = _run_end(s, i, "(")
                previous = None
                header = self._function_header(raw, end)
                if header:
                    raw = self._finish(raw)
                    i = header
                    continue
                if not (raw is not None and raw.words and self.dialect == "powershell"):
                    raw = self._finish(raw)
                    self._open_body("(", groups)
                    groups += end - i
                    for _ in range(end - i):
                        self._open_scope()
                i = end
            elif c == ")":
                previous = None
                raw = self._finish(raw)
                if groups:
                    groups -= 1
                    self._close_scope()
                    self._close_body("(", groups)
                elif close is not None:
                    return i + 1
                i += 1
            elif c in "<>" and s[i + 1 : i + 2] != "(":
                raw = raw or self._new(origin, prev_in_pipe, previous, negate)
                i = self._redirect(i, raw, origin, depth)
            elif c not in _WORD_STOP and c != "~" and c != "#" and self._plain_run(i):
                words, i = self._run
                for word in words:
                    if not word:
                        continue
                    if word == "{" and raw is not None and self._function_word(raw):
                        self.defining = raw  # function f { …; }
                        raw.body = ()
                        raw = self._finish(raw)
                    if raw is None:
                        if word in _KEYWORDS:
                            condition = word in _CONDITIONS
                            negate = negate or word == "!"
                            if word == "{":
                                self._open_body("{", self.braces)
                                self.braces += 1
                            elif word == "}" and self.braces:
                                self.braces -= 1
                                self._close_body("{", self.braces)
                            continue
                        self.defining = None
                        if len(self.raws) >= MAX_COMMANDS:
                            self.budget.stopped = True
                            return n
                        raw = self._new(origin, prev_in_pipe, previous, negate)
                        raw.guard, condition, negate = condition, False, False
                    if len(raw.words) < MAX_WORDS:
                        raw.words.append([("lit", word)])
                    else:
                        self.budget.stopped = True
            else:
                j = s.find("'", i + 1) if c == "'" else -1
                if j > 0 and (j + 1 >= n or s[j + 1] in _META):
                    parts, i = [("q", s[i + 1 : j])], j + 1  # a whole '…' word: no scan needed
                else:
                    parts, i = self.read_word(i, origin, depth)
                if raw is None:
                    if len(self.raws) >= MAX_COMMANDS:
                        self.budget.stopped = True
                        return n
                    if len(parts) == 1 and parts[0][0] == "lit" and parts[0][1] in _KEYWORDS:
                        condition = parts[0][1] in _CONDITIONS
                        negate = negate or parts[0][1] == "!"
                        continue
                    self.defining = None
                    raw = self._new(origin, prev_in_pipe, previous, negate)
                    raw.guard, condition, negate = condition, False, False
                elif (len(parts) == 1 and parts[0][0] == "lit" and parts[0][1].isdigit()
                      and s[i : i + 1] in ("<", ">")):
                    continue  # a file descriptor number: 2>/dev/null
                if parts and len(raw.words) < MAX_WORDS:
                    raw.words.append(parts)
                elif parts:
                    self.budget.stopped = True
                    break  # a command of MAX_WORDS words: the bound; what follows is not read
        self._finish(raw)
        return i

    def _plain_run(self, i):
        """A run of plain words from ``i`` to the next special character, split in C; sets
        ``self._run`` to (words, end). False when the first word continues past the run."""
        s, n = self.s, self.n
        j = self.flat.find(_SENTINEL, i)
        j = n if j < 0 else j
        chunk = s[i:j]
        words = chunk.replace("\t", " ").split(" ")
        if j < n and s[j] not in _META and chunk[-1:] not in _BLANK:
            last = words.pop()  # continues past the run (a"b", a$x): read as one word
            j -= len(last)
            if j == i:
                return False
        elif j < n and s[j] in "<>" and words[-1].isdigit():
            words.pop()  # a file descriptor: 2>/dev/null
        self._run = (words, j)
        return True

    # -- function definitions: ``f() { …; }``, ``f() (…)``, ``function f { …; }`` ----------------

    @staticmethod
    def _function_word(raw):
        """Whether ``raw`` is ``function NAME`` (a header whose body follows)."""
        words = raw.words
        return (len(words) == 2 and words[0] == [("lit", "function")] and len(words[1]) == 1
                and words[1][0][0] == "lit" and words[1][0][1][:1] not in ("-", ""))

    def _function_header(self, raw, i):
        """At ``NAME (`` (``i`` after the ``(``): when ``)`` follows, ``raw`` is a function's
        header: marked, and the index after the ``)``; else 0."""
        if raw is None or not raw.words or self.dialect == "powershell":
            return 0
        words = raw.words
        if len(words) != 1 and not self._function_word(raw):
            return 0
        name = words[-1]
        if len(name) != 1 or name[0][0] != "lit" or not name[0][1] or name[0][1] in _KEYWORDS:
            return 0
        j = self._skip_blanks(i)
        if self.s[j : j + 1] != ")" or i - 1 >= 0 and self.s[i - 1 : i] == "(" and self.s[i - 2 : i - 1] == "(":
            return 0
        self.defining = raw
        raw.body = ()
        return j + 1

    def _open_body(self, kind, level):
        if self.defining is not None:
            self.bodies.append((self.defining, kind, level, len(self.raws)))
            self.defining = None

    def _close_body(self, kind, level):
        if self.bodies and self.bodies[-1][1] == kind and self.bodies[-1][2] == level:
            header, _, _, first = self.bodies.pop()
            header.body = tuple(self.raws[first:])

    def _new(self, origin, prev, after=None, negated=False):
        raw = _Raw(origin)
        raw.scope = self._scope_now()
        raw.pipe_prev = prev
        raw.after = after
        raw.negated = negated
        return raw

    def _finish(self, raw):
        if raw is not None and not raw.words and raw.writes and not raw.done:
            raw.words = [[("lit", ":")]]  # redirections only (`> F`): sh runs them as `: > F`
        if raw is not None and raw.words and not raw.done:
            raw.done = True
            if len(self.raws) < MAX_COMMANDS:
                self.raws.append(raw)
            else:
                self.budget.stopped = True
        return None

    def _redirect(self, i, raw, origin, depth):
        s = self.s
        if s.startswith("<<<", i):
            i = self._skip_blanks(i + 3)
            parts, i = self.read_word(i, origin, depth)
            raw.herestring = render(parts)
            return i
        if s.startswith("<<", i) and self.dialect != "powershell":
            i += 2
            strip = s[i : i + 1] == "-"
            if strip:
                i += 1
            i = self._skip_blanks(i)
            parts, i = self.read_word(i, origin, depth)
            quoted = any(kind != "lit" for kind, _ in parts)
            self.pending.append((raw, render(parts), strip, quoted))
            return i
        start = i
        i += 1
        while i < self.n and s[i] in "<>&|":
            i += 1
        op = s[start:i]
        writes = ">" in op and s[start] != "<" or op == "<>"
        # the descriptor: `2>` (a number word before it), `&>` both, else stdout
        fd = s[start - 1] if start and s[start - 1].isdigit() and (start == 1 or s[start - 2] in _META) else "1"
        i = self._skip_blanks(i)
        if i < self.n and s[i] not in _META or s[i : i + 2] in ("<(", ">("):
            parts, i = self.read_word(i, origin, depth)  # substitutions in the target run: read them
            if writes and len(raw.writes) < 16:
                raw.writes += (tuple(parts),)
            duplicate = op in (">&", "<&") and (render(parts).isdigit() or render(parts) == "-")
            if op in (">", ">|", "&>") or op == ">&" and not duplicate:
                if len(raw.truncates) < 16:
                    raw.truncates += (tuple(parts),)
            if writes and op != "<>" and (fd == "1" or op.startswith("&")):
                raw.stdout = None if duplicate else tuple(parts)
            if op == "<" and fd in ("0", "1"):  # `< F`, `0< F` (fd "1" here: none was written)
                raw.stdin = tuple(parts)
        return i

    def _skip_blanks(self, i):
        while i < self.n and self.s[i] in _BLANK:
            i += 1
        return i

    def _heredocs(self, i):
        s, n = self.s, self.n
        pending, self.pending = self.pending, []
        for raw, delim, strip, quoted in pending:
            lines = []
            while i < n:
                j = s.find("\n", i)
                end = n if j < 0 else j
                line = s[i:end]
                i = end + 1 if j >= 0 else n
                if (line.lstrip("\t") if strip else line) == delim:
                    break
                lines.append(line.lstrip("\t") if strip else line)
            raw.heredoc = "\n".join(lines)
            raw.heredoc_quoted = quoted
        return i

    # -- words ------------------------------------------------------------------------------

    def read_word(self, i, origin, depth):
        """One word from ``i``: its parts and the index after it."""
        s, n = self.s, self.n
        esc = self.esc
        parts = []
        start = i
        if s[i : i + 1] == "~" and (self.dialect != "powershell" or i + 1 >= n or s[i + 1] in "/\\" or s[i + 1] in _META):
            # (PowerShell's file cmdlets take a bare ~ as the home folder too)
            j = i + 1
            while j < n and s[j] not in _META and s[j] not in "/'\"$`\\":
                j += 1
            parts.append(("tilde", s[i + 1 : j]))
            i = j
        while i < n:
            c = s[i]
            if c in _META:
                if c in "<>" and s[i + 1 : i + 2] == "(" and i == start:
                    parts.append(self._substitution(i + 2, origin + (c + "(…)",), depth))
                    i = self._after
                    continue
                break
            if c == esc:
                nxt = s[i + 1 : i + 2]
                if nxt == esc:
                    end = _run_end(s, i, esc)  # escaped escapes, in C
                    parts.append(("q", esc * ((end - i) // 2)))
                    i = end - (end - i) % 2
                elif nxt == "\n":
                    i += 2
                elif nxt:
                    parts.append(("q", _PS_ESCAPES.get(nxt, nxt) if esc == "`" else nxt))
                    i += 2
                else:
                    parts.append(("lit", c))
                    i += 1
            elif c == "'":
                j = s.find("'", i + 1)
                j = n if j < 0 else j
                parts.append(("q", s[i + 1 : j]))
                i = j + 1
            elif c == '"':
                i = self._dquote(i + 1, parts, origin, depth)
            elif c == "$" and s[i + 1 : i + 2] == "$":
                i = _run_end(s, i, "$")  # $$$$…: the shell's pid, over and over
                parts.append(("var", "$"))
            elif c == "$":
                i = self._dollar(i, parts, origin, depth, False)
            elif c == "`" and self.backticks and s[i + 1 : i + 2] == "`":
                end = _run_end(s, i, "`")  # empty substitutions; an odd one out opens one
                i = end - (end - i) % 2
                parts.append(("sub", ""))
            elif c == "`" and self.backticks:
                i = self._backtick(i, parts, origin, depth)
            else:
                j = i + 1
                while True:
                    j = self.flat.find(_SENTINEL, j)
                    if j < 0:
                        j = n
                    elif s[j] in "~#":  # plain inside a word
                        j = _run_end(s, j, "~#")
                        continue
                    break
                for blank in " \t":
                    k = s.find(blank, i, j)
                    if k >= 0:
                        j = k
                parts.append(("lit", s[i:j]))
                i = j
        if len(parts) < 2:
            return parts, i
        parts = _merge(parts)
        if len(parts) > MAX_WORD_PARTS:  # both ends kept: a path's tail says what it reaches
            parts = parts[: MAX_WORD_PARTS // 2] + parts[-MAX_WORD_PARTS // 2 :]
        return parts, i

    def _dquote(self, i, parts, origin, depth):
        s, n = self.s, self.n
        esc = self.esc
        while i < n:
            if len(parts) > MAX_PARTS:
                end = _closing_quote(s, i, esc)
                region = s[i:end]
                if "$(" not in region and "`" not in region:
                    parts.append(("q", region))
                    return end + 1
            c = s[i]
            if c == '"':
                if not parts:
                    parts.append(("q", ""))
                return i + 1
            if c == esc:
                nxt = s[i + 1 : i + 2]
                if esc == "`":
                    parts.append(("q", _PS_ESCAPES.get(nxt, nxt)))
                elif nxt == "\n":
                    pass
                elif nxt in ('"', "\\", "$", "`"):
                    parts.append(("q", nxt))
                else:
                    parts.append(("q", "\\" + nxt))
                i += 2
            elif c == "$":
                i = self._dollar(i, parts, origin, depth, True)
            elif c == "`" and self.backticks:
                i = self._backtick(i, parts, origin, depth)
            else:
                j = i + 1
                while j < n and s[j] not in _DQUOTE_STOP:
                    j += 1
                parts.append(("q", s[i:j]))
                i = j
        return n

    def _dollar(self, i, parts, origin, depth, quoted):
        s, n = self.s, self.n
        nxt = s[i + 1 : i + 2]
        if nxt == "'" and not quoted and self.dialect != "powershell":
            text, i = _ansi_c(s, i + 2)
            parts.append(("q", text))
            return i
        if nxt == '"' and not quoted:
            return self._dquote(i + 2, parts, origin, depth)
        if nxt == "(":
            if s[i + 2 : i + 3] == "(" and self.dialect != "powershell":
                parts.append(("sub", ""))
                return self._arithmetic(i + 3, origin, depth)
            parts.append(self._substitution(i + 2, origin + ("$(…)",), depth))
            return self._after
        if nxt == "{":
            j, inner = self._braced(i + 2)
            if ("$(" in inner or "`" in inner) and depth < MAX_DEPTH:
                _Nested(self, inner, origin, depth + 1)
            parts.append(("var", inner))
            return j
        if nxt and (nxt in _NAME_FIRST or self.dialect == "powershell" and nxt.isalpha()):
            j = i + 2
            while j < n and (s[j] in _NAME_CHARS or self.dialect == "powershell" and s[j] == ":"):
                j += 1
            parts.append(("var", s[i + 1 : j]))
            return j
        if nxt and nxt in _SPECIAL_PARAMS:
            parts.append(("var", nxt))
            return i + 2
        parts.append(("q" if quoted else "lit", "$"))
        return i + 1

    def _braced(self, i):
        s, n = self.s, self.n
        level = 1
        j = i
        while j < n:
            c = s[j]
            if c == "\\":
                j += 2
                continue
            if c == "{":
                level += 1
            elif c == "}":
                level -= 1
                if level == 0:
                    return j + 1, s[i:j]
            j += 1
        return n, s[i:n]

    def _substitution(self, i, origin, depth):
        """``$(…)``/``<(…)`` from ``i`` (just inside): read its commands; the part it leaves.
        Sets ``self._after`` to the index after the closing parenthesis."""
        before = len(self.raws)
        if depth + 1 > MAX_DEPTH:
            self.budget.stopped = True
            self._after = _skip_balanced(self.s, i)
            return ("sub", "")
        self._open_scope()  # a substitution runs in a child of the shell
        self._after = self.read_list(i, origin, ")", depth + 1)
        self._close_scope()
        return ("sub", _first_program(self.raws[before:]))

    def _backtick(self, i, parts, origin, depth):
        s, n = self.s, self.n
        j = i + 1
        chunks = []
        while j < n and s[j] != "`":
            if s[j] == "\\" and j + 1 < n:
                chunks.append(s[j + 1] if s[j + 1] in "`\\$" else s[j : j + 2])
                j += 2
            else:
                chunks.append(s[j])
                j += 1
        inner = "".join(chunks)
        before = len(self.raws)
        if depth + 1 <= MAX_DEPTH and inner.strip():
            _Nested(self, inner, origin + ("`…`",), depth + 1, as_list=True)
        elif inner.strip():
            self.budget.stopped = True
        parts.append(("sub", _first_program(self.raws[before:])))
        return j + 1

    def _arithmetic(self, i, origin, depth):
        """``$((…))`` from ``i`` (just inside): only its substitutions run. The parentheses are
        counted a stretch (up to the next ``)``) at a time, in C."""
        s, n = self.s, self.n
        level = 2
        while i < n:
            j = self.flat.find(_SENTINEL, i)
            if j < 0:
                return n
            if s[j] == ")":
                level -= 1
                if level == 0:
                    return j + 1
                i = j + 1
                continue
            close = s.find(")", j)
            if close < 0:
                close = n
            special = self._arithmetic_special(j, close)
            if special < 0:
                level += s.count("(", j, close)
                i = close  # its ")" is counted on the next turn
                continue
            level += s.count("(", j, special)
            if s[special] == "`":
                i = self._backtick(special, [], origin, depth)
            else:
                self._substitution(special + 2, origin + ("$(…)",), depth)
                i = self._after
            if len(self.raws) >= MAX_COMMANDS:
                return n
        return n

    def _arithmetic_special(self, i, end):
        """The first backtick or ``$(`` that is not ``$((`` in ``s[i:end]``, or -1."""
        s = self.s
        tick = s.find("`", i, end) if self.backticks else -1
        if tick >= 0:
            end = tick
        if s.count("$(", i, end) == s.count("$((", i, end):
            return tick
        j = s.find("$(", i, end)
        while s[j + 2 : j + 3] == "(":
            j = s.find("$(", j + 3, end)
        return j


class _Nested(object):
    """Reads ``text`` with a parser sharing the outer one's output: as a command list
    (backticks), or as double-quoted text whose substitutions run (``${X:-$(…)}``, heredocs)."""

    def __init__(self, outer, text, origin, depth, as_list=False):
        inner = _Parser(text, origin, depth, outer.dialect, outer.budget)
        inner.raws = outer.raws
        if isinstance(outer, _Parser):
            inner.scope = outer._scope_now()
        if as_list:  # backticks: a substitution, run in a child of the shell
            inner._open_scope()
            inner.read_list(0, origin, None, depth)
        else:
            inner._dquote(0, [], origin, depth)


_WORD_STOP = _META | frozenset("\\`'\"$")


def _run_end(s, i, chars):
    """The index after the run of ``chars`` starting at ``i`` (lstrip works in C, in steps
    of 4096 so a long text is never copied whole)."""
    n = len(s)
    while i < n:
        chunk = s[i : i + 4096]
        rest = len(chunk.lstrip(chars))
        i += len(chunk) - rest
        if rest:
            break
    return i
_DQUOTE_STOP = frozenset('"\\$`')
_PS_ESCAPES = {"n": "\n", "t": "\t", "0": "\0", "r": "\r"}
_ANSI = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f",
         "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def _ansi_c(s, i):
    """``$'…'`` from just inside: the decoded text and the index after the closing quote."""
    out = []
    n = len(s)
    start = i
    while i < n:
        c = s[i]
        if c == "'":
            return "".join(out), i + 1
        if i - start > MAX_ANSI:
            j = s.find("'", i)
            j = n if j < 0 else j
            out.append(s[i:j])
            return "".join(out), j + 1
        if c == "\\" and i + 1 < n:
            nxt = s[i + 1]
            if nxt in _ANSI:
                out.append(_ANSI[nxt])
                i += 2
            elif nxt == "x":
                j = i + 2
                while j < n and j < i + 4 and s[j] in _HEX:
                    j += 1
                out.append(chr(int(s[i + 2 : j], 16)) if j > i + 2 else "\\x")
                i = j
            elif nxt in _OCT:
                j = i + 1
                while j < n and j < i + 4 and s[j] in _OCT:
                    j += 1
                out.append(chr(int(s[i + 1 : j], 8) & 0xFF))
                i = j
            else:
                out.append(c + nxt)
                i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out), n


_HEX = frozenset("0123456789abcdefABCDEF")
_OCT = frozenset("01234567")


def _closing_quote(s, i, esc, quote='"'):
    """The index of the ``quote`` closing a string that continues at ``i`` (len(s): none)."""
    while True:
        j = s.find(quote, i)
        if j < 0:
            return len(s)
        k = j
        while k > i and s[k - 1] == esc:
            k -= 1
        if (j - k) % 2 == 0:
            return j
        i = j + 1


def _skip_balanced(s, i):
    """The index after the ``)`` closing an opening just before ``i`` (iterative: no depth)."""
    level = 1
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = s.find("'", i + 1)
            i = n if j < 0 else j + 1
            continue
        if c == "(":
            level += 1
        elif c == ")":
            level -= 1
            if level == 0:
                return i + 1
        i += 1
    return n


def _merge(parts):
    merged = []
    for kind, text in parts:
        if merged and merged[-1][0] == kind and kind in ("lit", "q"):
            merged[-1] = (kind, merged[-1][1] + text)
        else:
            merged.append((kind, text))
    return merged


def _first_program(raws):
    for raw in raws:
        if raw.words:
            words = raw.words
            index = 0
            while index < len(words) - 1 and _assignment(words[index]) is not None:
                index += 1
            name = program_name(render(words[index]))
            if name in _WRAPPERS and name not in _RUNS_LATER and index + 1 < len(words):
                name = program_name(render(words[index + 1]))
            return name
    return ""


# -- stage two: wrappers, shells, interpreters -----------------------------------------------

def _assignment(parts):
    """(name, value parts) when the word is ``NAME=value``, else None."""
    if not parts or parts[0][0] != "lit":
        return None
    text = parts[0][1]
    eq = text.find("=")
    if eq <= 0 or not _is_name(text[:eq]) or text[0] not in _NAME_FIRST:
        return None
    if text[eq - 1] == "+":
        return None
    rest = [("lit", text[eq + 1 :])] if text[eq + 1 :] else []
    return text[:eq], rest + list(parts[1:])


def _lit(text):
    return [("lit", text)]


#: What a variable holds when the command sets it to something only known at run time
#: (``for d in …``, ``read d``, ``X=$(…)`` renders ``$(…)``): it is never judged empty.
UNKNOWN_VALUE = "\u2026"
# Statements that set variables for the commands after them.
_SETS_VARIABLES = frozenset(("export", "declare", "typeset", "local", "readonly", "for", "select", "read",
                             "mapfile", "readarray", "getopts", "[", "test"))
# Tests that hold only for a non-empty operand: `[ -d "$X" ] && rm -rf "$X"/*` guards the delete.
_NON_EMPTY_TESTS = frozenset(("-n", "-d", "-e", "-f", "-s", "-L", "-h", "-r", "-w", "-x"))


def _declare(words, env):
    """``export X=1``, ``declare -r X=1``, ``for X in …``, ``read -r X``: X is set from here on."""
    name = render(words[0])
    if name in ("[", "test"):
        for index, word in enumerate(words[2:], 2):
            if render(words[index - 1]) in _NON_EMPTY_TESTS:
                for kind, text in word:
                    if kind == "var" and _is_name(text) and text not in env:
                        env[text] = UNKNOWN_VALUE  # tested non-empty: not judged empty after it
        return
    if name in ("for", "select"):
        if len(words) > 1 and _is_name(render(words[1])):
            env[render(words[1])] = UNKNOWN_VALUE
        return
    for word in words[1:] if name != "getopts" else words[2:3]:
        assigned = _assignment(word)
        if assigned is not None:
            env[assigned[0]] = render(assigned[1])
        elif name in ("read", "mapfile", "readarray", "getopts") and _is_name(render(word)):
            env[render(word)] = UNKNOWN_VALUE


def _named_by_variable(words, assigns):
    """``R=rm; $R -rf x``, ``RM="rm -rf"; $RM x``: a command word that is only a variable the call
    set runs its value's words (split as the shell splits an unquoted expansion)."""
    first = words[0]
    if len(first) != 1 or first[0][0] != "var":
        return words
    value = assigns.get(first[0][1])
    if not value or value == UNKNOWN_VALUE or not value.split():
        return words
    return [_lit(word) for word in value.split()] + list(words[1:])


def _interpret(words, origin, env, depth, dialect, budget, out, raw=None, unknown=False, piped=""):
    words = list(words)
    local = None
    while words:
        assigned = _assignment(words[0])
        if assigned is None:
            break
        local = dict(env) if local is None else local
        local[assigned[0]] = render(assigned[1])
        words.pop(0)
    if not words:
        if local is not None and raw is not None:
            env.update(local)  # a plain assignment statement lasts for the later commands
        return
    assigns = local if local is not None else env
    shell_vars = dict(env)  # before a wrapper (`env VAR=…`) adds to the program's environment
    if raw is not None and render(words[0]) in _SETS_VARIABLES and (raw.guard or render(words[0]) not in ("[", "test")):
        _declare(words, env)
    if raw is not None and not piped:
        piped = raw.piped_from or (_first_program([raw.pipe_prev]) if raw.pipe_prev is not None else "")
    if budget.commands >= MAX_COMMANDS:
        budget.stopped = True
        return
    budget.commands += 1
    words = _named_by_variable(words, assigns)
    for _ in range(16):  # wrappers in wrappers: sudo env nice timeout …
        name = program_name(render(words[0]))
        unwrap = _WRAPPERS.get(name)
        if unwrap is None:
            break
        inner = unwrap(words, assigns, origin, depth, dialect, budget, out)
        if inner is None:
            break
        if not inner:
            return
        words = _named_by_variable(inner, assigns)
        origin = origin + (name,)
        if name in ("xargs", "parallel"):
            unknown = True  # what it is fed, not a find's files
    name = program_name(render(words[0]))
    key = "sh" if name in ("$SHELL", "${SHELL}", "$BASH", "${BASH}") else name.lower()  # "$SHELL" -c '…'
    command = Command(words, origin, assigns, unknown, piped, raw.writes if raw is not None else (), shell_vars, raw)
    if raw is not None and raw.command is None:
        raw.command = command
    out.append(command)
    if raw is not None and raw.body is not None:  # a function's header: what it runs is read at each call
        budget.functions[render(raw.words[-1])] = raw
        return
    header = budget.functions.get(name) if budget.functions else None
    if header is not None and raw is not None and not in_scope(header.scope, raw.scope):
        header = None  # defined in a ( … ) or a pipeline stage that ended before this call
    if depth >= MAX_DEPTH:
        budget.stopped = budget.stopped or key in _SHELLS or key == "eval" or bool(header)  # not read
        return
    args = words[1:]
    if raw is not None and raw.stdout not in (None, "|") and key in ("cat", "echo", "printf") or key == "tee":
        _remember_script(key, args, raw, assigns, budget)
    if header is not None and header.body:
        _run_body(header.body, args, origin + (name + "()",), len(header.origin), env, depth, dialect, budget, out,
                  len(header.scope))
        return
    if key in _SHELLS or key == "busybox" and args and render(args[0]) in _SHELLS:
        _shell(key, args if key != "busybox" else args[1:], raw, command, assigns, origin, depth, dialect, budget, out)
    elif key == "eval":
        _read_into(" ".join(render(w) for w in args), origin + ("eval",), dict(assigns), depth + 1, dialect,
                   budget, out)
    elif key in ("source", ".") and args:
        _run_script(args[0], args[1:], key + " FILE", True, origin, assigns, depth, dialect, budget, out)
    elif key in ("find", "gfind", "fd"):
        _find(args, assigns, origin, depth, dialect, budget, out)
    elif key in ("watch",):
        rest = _skip_options(args, 0, "nq", ("--interval",))
        if rest < len(args):
            _read_into(" ".join(render(w) for w in args[rest:]), origin + ("watch",), dict(assigns), depth + 1,
                       dialect, budget, out)
    elif key == "su":
        for index, word in enumerate(args[:-1]):
            if render(word) in ("-c", "--command"):
                _read_into(render(args[index + 1]), origin + ("su -c",), dict(assigns), depth + 1, dialect,
                           budget, out)
    elif key in ("pwsh", "powershell"):
        for index, word in enumerate(args[:-1]):
            if render(word).lower() in ("-c", "-command"):
                _read_into(" ".join(render(w) for w in args[index + 1 :]), origin + (key + " -Command",),
                           dict(assigns), depth + 1, "powershell", budget, out)
                break
    else:
        code = _interpreter_code(key, args, raw)
        if code is not None:
            _scan_code(code[0], code[1], origin + (code[2],), assigns, depth, dialect, budget, out)
        elif _runs_by_path(words[0]):
            _run_script(words[0], args, "./FILE", False, origin, assigns, depth, dialect, budget, out)
        elif raw is not None and raw.heredoc and not raw.heredoc_quoted:
            _Nested(_Sink(out, origin, dialect, budget), raw.heredoc, origin + ("<<",), depth + 1)


class _Sink(object):
    """Where a ``_Nested`` read outside the parser puts its commands: interpreted straight away."""

    def __init__(self, out, origin, dialect, budget):
        self.out = out
        self.dialect = dialect
        self.budget = budget
        self.raws = _InterpretingList(out, dialect, budget)


class _InterpretingList(list):
    def __init__(self, out, dialect, budget):
        list.__init__(self)
        self._out = out
        self._dialect = dialect
        self._budget = budget

    def append(self, raw):
        list.append(self, raw)
        _interpret(raw.words, raw.origin, {}, MAX_DEPTH - 1, self._dialect, self._budget, self._out, raw)


def _shell(key, args, raw, command, assigns, origin, depth, dialect, budget, out):
    index = 0
    script = None
    while index < len(args):
        word = render(args[index])
        if word == "--":
            index += 1
            break
        if word[:2] in ("-o", "+o") and len(word) == 2 or word in ("--rcfile", "--init-file"):
            index += 2
            continue
        if word[:1] in ("-", "+") and len(word) > 1:
            if word[:2] != "--" and "c" in word[1:]:
                script = index + 1
            index += 1
            continue
        break
    label = key
    if script is not None:
        if script < len(args):
            text = render(args[script])
            sub = [t for kind, t in args[script] if kind == "sub"]
            if sub and not command.piped_from:
                command.piped_from = sub[0]
            _read_into(text if not sub else _sub_free(args[script]), origin + (label + " -c",), dict(assigns),
                       depth + 1, dialect, budget, out)
        return
    if index < len(args):
        sub = [t for kind, t in args[index] if kind == "sub"]
        if sub and not command.piped_from:
            command.piped_from = sub[0]
        else:  # a script file
            _run_script(args[index], args[index + 1 :], key + " FILE", True, origin, assigns, depth, dialect,
                        budget, out)
        return
    if raw is not None and raw.heredoc is not None:
        _read_into(raw.heredoc, origin + (label + " <<",), dict(assigns), depth + 1, dialect, budget, out)
    elif raw is not None and raw.herestring is not None:
        _read_into(raw.herestring, origin + (label + " <<<",), dict(assigns), depth + 1, dialect, budget, out)
    elif raw is not None and raw.pipe_prev is not None:
        script = _piped_script(raw.pipe_prev)
        if script:
            _read_into(script, origin + (label + " <|",), dict(assigns), depth + 1, dialect, budget, out)


# -- functions and scripts the call runs ---------------------------------------------------------

MAX_SCRIPT_BYTES = 64 * 1024  # a script file larger is not read
MAX_SCRIPTS = 16  # script files read from disk per call
#: Folders of installed programs: a program run by such a path is not a script of the project.
_SYSTEM_PATHS = ("/bin/", "/sbin/", "/usr/", "/lib", "/nix/", "/opt/homebrew/", "/snap/", "/System/")
_POSITIONAL = frozenset("123456789@*")


def _run_body(raws, args, prefix, cut, env, depth, dialect, budget, out, scope_cut=None):
    """A function's body (or a script's commands) run with ``args`` as ``$1``…``$9``, ``$@``,
    ``$*``; each command's origin is ``prefix`` and what its own origin adds past ``cut``, its
    scope the caller's and what its own adds past ``scope_cut`` (where it was defined)."""
    env = dict(env)
    caller = budget.scope
    scope_cut = len(caller) if scope_cut is None else scope_cut
    for raw in raws:
        if budget.commands >= MAX_COMMANDS:
            budget.stopped = True
            return
        copy = _with_arguments(raw, args, prefix + raw.origin[cut:])
        copy.scope = caller + raw.scope[scope_cut:]
        _interpret(copy.words, copy.origin, env, depth + 1, dialect, budget, out, copy)


def _with_arguments(raw, args, origin):
    copy = _Raw(origin)
    for slot in _Raw.__slots__:
        setattr(copy, slot, getattr(raw, slot))
    copy.origin = origin
    copy.command = None
    copy.words = _positional(raw.words, args)
    copy.writes = tuple(tuple(word) for word in _positional(raw.writes, args))
    copy.truncates = tuple(tuple(word) for word in _positional(raw.truncates, args))
    if isinstance(raw.stdout, tuple):
        copy.stdout = tuple(_positional([raw.stdout], args)[0])
    return copy


def _positional(words, args):
    """``words`` with the positional parameters the call gives replaced by its words (``"$@"``
    is one word per argument); a parameter it does not give stays as it is."""
    out = []
    for word in words:
        if not any(kind == "var" and text in _POSITIONAL for kind, text in word):
            out.append(word)
            continue
        if len(word) == 1 and word[0][1] in ("@", "*"):
            out.extend(list(arg) for arg in args)
            continue
        parts = []
        for kind, text in word:
            if kind != "var" or text not in _POSITIONAL:
                parts.append((kind, text))
            elif text in ("@", "*"):
                for index, arg in enumerate(args):
                    parts.extend(([("q", " ")] if index else []) + list(arg))
            elif int(text) <= len(args):
                parts.extend(args[int(text) - 1])
            else:
                parts.append((kind, text))
        out.append(_merge(parts))
    return out


def _runs_by_path(word):
    """Whether the command word runs a file by its path (``./deploy.sh``, ``bin/x``), not an
    installed program (``/usr/bin/rm``)."""
    text = render(word)
    return "/" in text and not text.startswith(_SYSTEM_PATHS) and all(kind in ("lit", "q", "tilde") for kind, _ in word)


def _script_path(parts, assigns, budget):
    """The path ``parts`` names, absolute when the call's folder is known; None when only the run knows it."""
    import os

    if not parts or any(kind not in ("lit", "q", "tilde") for kind, _ in parts):
        return None
    text = render(parts)
    if parts[0][0] == "tilde":
        if parts[0][1]:
            return None
        home = assigns.get("HOME") or os.environ.get("HOME")
        if not home or home == UNKNOWN_VALUE:
            return None
        text = home + text[1:]
    if budget.cwd is not None:
        text = os.path.join(budget.cwd, text)
    return os.path.normpath(text)


def _remember_script(key, args, raw, assigns, budget):
    """``cat > F <<E``, ``echo … > F``, ``tee F <<E``: the text F holds for a later ``bash F``."""
    if key == "tee":
        text = raw.heredoc if raw.heredoc is not None else raw.herestring
        targets = [word for word in args if not render(word).startswith("-")]
    else:
        text = _piped_script(raw)
        targets = [raw.stdout]
    for target in targets[:4]:
        path = _script_path(target, assigns, budget)
        if path is not None and text and len(budget.scripts) < MAX_SCRIPTS:
            budget.scripts[path] = text


def _run_script(word, args, label, as_shell, origin, assigns, depth, dialect, budget, out):
    """A script file the call runs (``bash F``, ``source F``, ``./F``), read as the commands it
    holds: a script the same call wrote, else a small text file on disk. Never executed."""
    path = _script_path(word, assigns, budget)
    if path is None:
        return
    text = budget.scripts.get(path)
    if text is None and budget.cwd is not None and budget.files < MAX_SCRIPTS:
        budget.files += 1
        text = text_file(path)
    if not text or not as_shell and not _shell_script(text):
        return
    if depth + 1 > MAX_DEPTH or budget.chars <= 0:
        budget.stopped = True
        return
    budget.stopped = budget.stopped or len(text) > budget.chars
    text = text[: budget.chars]
    budget.chars -= len(text)
    parser = _Parser(text, origin + (label,), depth + 1, dialect, budget)
    parser.parse()
    _run_body(parser.raws, args, (), 0, assigns, depth, dialect, budget, out)


def text_file(path):
    """The text of a regular file of at most ``MAX_SCRIPT_BYTES`` with no NUL byte, or None
    (a script the reader follows, a SQL file a judge reads). Opened read-only and non-blocking
    (a FIFO does not wait for a writer)."""
    import os
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SCRIPT_BYTES:
            return None
        data = os.read(fd, MAX_SCRIPT_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > MAX_SCRIPT_BYTES or b"\0" in data:
        return None
    return data.decode("utf-8", "replace")


def _shell_script(text):
    """Whether a file run as ``./F`` is a shell script: no ``#!`` line, or one naming a shell."""
    if not text.startswith("#!"):
        return True
    words = text[2:].split("\n", 1)[0].split()
    if words and program_name(words[0]) == "env":
        words = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
    return bool(words) and program_name(words[0]) in _SHELLS


def _piped_script(raw):
    """The text ``echo …``, ``printf …`` or ``cat <<EOF`` writes into a pipe (a shell reads it as
    its script: ``echo 'git reset --hard' | sh``), or ""."""
    words = raw.words
    index = 0
    while index < len(words) - 1 and _assignment(words[index]) is not None:
        index += 1
    name = program_name(render(words[index])) if words else ""
    args = [render(w) for w in words[index + 1 :]]
    if name == "echo":
        while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
            args.pop(0)
        return " ".join(args)
    if name == "printf" and args:
        if len(args) > 1:
            return "\n".join(args[1:])
        return args[0].replace("\\n", "\n")
    if name == "cat" and not args:
        return raw.heredoc if raw.heredoc is not None else raw.herestring or ""
    return ""


def _sub_free(parts):
    """A ``-c`` string made of substitutions: its literal rest (the substitutions were read)."""
    return "".join(text for kind, text in parts if kind in ("lit", "q"))


def _skip_options(words, index, value_letters, value_longs=(), stop_at_plain=True):
    """The index of the first word after ``index`` that is not an option."""
    while index < len(words):
        word = render(words[index])
        if word == "--":
            return index + 1
        if not word.startswith("-") or word == "-":
            return index
        if word.startswith("--"):
            index += 1
            if "=" not in word and word in value_longs:
                index += 1
            continue
        letters = word[1:]
        index += 1
        for position, letter in enumerate(letters):
            if letter in value_letters:
                if position == len(letters) - 1:
                    index += 1
                break
    return index


def _plain_wrapper(value_letters, value_longs=(), skip_after=0):
    def unwrap(words, assigns, origin, depth, dialect, budget, out):
        index = _skip_options(words, 1, value_letters, value_longs) + skip_after
        return words[index:] if index < len(words) else []
    return unwrap


def _unwrap_env(words, assigns, origin, depth, dialect, budget, out):
    index = 1
    while index < len(words):
        word = render(words[index])
        if word == "--":
            index += 1
            break
        if word in ("-u", "--unset", "-C", "--chdir"):
            if word in ("-u", "--unset") and index + 1 < len(words):
                assigns.pop(render(words[index + 1]), None)
            index += 2
            continue
        if word in ("-S", "--split-string") or word.startswith("--split-string=") or word.startswith("-S") and len(word) > 2:
            text = render(words[index + 1]) if word in ("-S", "--split-string") and index + 1 < len(words) else \
                word.split("=", 1)[1] if word.startswith("--") else word[2:]
            rest = " ".join(render(w) for w in words[index + 2 :]) if word in ("-S", "--split-string") else ""
            _read_into(text + (" " + rest if rest else ""), origin + ("env -S",), dict(assigns), depth + 1, dialect,
                       budget, out)
            return []
        if word.startswith("-") and len(word) > 1:
            index += 1
            continue
        assigned = _assignment(words[index])
        if assigned is not None:
            assigns[assigned[0]] = render(assigned[1])
            index += 1
            continue
        break
    return words[index:] if index < len(words) else []


def _unwrap_command(words, assigns, origin, depth, dialect, budget, out):
    index = 1
    while index < len(words) and render(words[index]).startswith("-"):
        flag = render(words[index])
        if flag == "--":
            index += 1
            break
        if "v" in flag or "V" in flag:
            return None  # `command -v rm` only asks where rm is
        index += 1
    return words[index:] if index < len(words) else []


def _unwrap_busybox(words, assigns, origin, depth, dialect, budget, out):
    if len(words) > 1 and render(words[1]) in _SHELLS:
        return None  # read as a shell by _interpret
    return words[1:] if len(words) > 1 else []


def _unwrap_xargs(words, assigns, origin, depth, dialect, budget, out):
    index = _skip_options(words, 1, "EILnPsdaR", ("--eof", "--replace", "--max-lines", "--max-args",
                                                   "--max-procs", "--max-chars", "--delimiter", "--arg-file"))
    return words[index:] if index < len(words) else [_lit("echo")]


def _unwrap_parallel(words, assigns, origin, depth, dialect, budget, out):
    index = _skip_options(words, 1, "jSNnLdIEa", ("--jobs", "--sshlogin", "--delimiter", "--arg-file"))
    rest = words[index:]
    for position, word in enumerate(rest):
        if render(word) in (":::", "::::", ":::+", "::::+"):
            rest = rest[:position]
            break
    if len(rest) == 1 and (" " in render(rest[0])):
        _read_into(render(rest[0]), origin + ("parallel",), dict(assigns), depth + 1, dialect, budget, out)
        return []
    return rest


def _unwrap_flock(words, assigns, origin, depth, dialect, budget, out):
    """``flock [opts] FILE COMMAND…`` runs COMMAND; ``flock [opts] FILE -c 'STRING'`` a shell string;
    ``flock [opts] FD`` (a number) runs nothing."""
    index, lock_seen = 1, False
    while index < len(words):
        word = render(words[index])
        if word in ("-c", "--command") and index + 1 < len(words):
            _read_into(render(words[index + 1]), origin + ("flock -c",), dict(assigns), depth + 1, dialect,
                       budget, out)
            return []
        if word == "--":
            index += 1
            continue
        if word.startswith("-") and len(word) > 1:
            index += 2 if word in ("-w", "--wait", "--timeout", "-E", "--conflict-exit-code") else 1
            continue
        if lock_seen:
            return words[index:]
        lock_seen = True
        index += 1
    return []


def _unwrap_script(words, assigns, origin, depth, dialect, budget, out):
    """``script -qc 'STRING' [FILE]`` (util-linux): the string runs in a shell; else nothing runs
    but the user's shell."""
    for index, word in enumerate(words[1:-1], 1):
        text = render(word)
        if text in ("-c", "--command") or text.startswith("-") and not text.startswith("--") and text.endswith("c"):
            _read_into(render(words[index + 1]), origin + ("script -c",), dict(assigns), depth + 1, dialect,
                       budget, out)
            return []
    for word in words[1:]:
        text = render(word)
        if text.startswith("--command="):
            _read_into(text.split("=", 1)[1], origin + ("script -c",), dict(assigns), depth + 1, dialect, budget,
                       out)
            return []
    return None


#: Project runners whose ``run`` (``exec``, ``dlx``) subcommand runs the words after its options:
#: runner -> (subcommands, option letters taking a value, long options taking a value).
_RUNNERS = {
    "uv": (("run",), "pw", ("--with", "--python", "--package", "--directory", "--project", "--env-file",
                              "--extra", "--group", "--index", "--with-requirements", "--with-editable")),
    "poetry": (("run",), "CP", ("--directory", "--project")),
    "pipenv": (("run",), "", ()),
    "pdm": (("run",), "p", ("--project",)),
    "hatch": (("run",), "", ()),
    "pnpm": (("exec", "dlx"), "C", ("--dir", "--filter", "--package")),
    "yarn": (("exec", "dlx"), "p", ("--package",)),
    "npm": (("exec", "x"), "cpw", ("--package", "--call", "--workspace")),
}


def _unwrap_runner(words, assigns, origin, depth, dialect, budget, out):
    name = program_name(render(words[0]))
    subcommands, letters, longs = _RUNNERS[name]
    index = _skip_options(words, 1, letters, longs)
    if index >= len(words) or render(words[index]) not in subcommands:
        return None
    index = _skip_options(words, index + 1, letters, longs)
    return words[index:]


def _unwrap_npx(words, assigns, origin, depth, dialect, budget, out):
    """``npx [-y] [-p PKG] PROGRAM ARGS…``, ``bunx``, ``uvx``, ``pipx run``: PROGRAM runs."""
    index = 1
    if program_name(render(words[0])) == "pipx":
        if len(words) < 2 or render(words[1]) != "run":
            return None
        index = 2
    index = _skip_options(words, index, "pc", ("--package", "--call", "--from", "--with", "--python", "--spec"))
    return words[index:]


#: tmux commands whose trailing words are a shell command (``send-keys`` types them).
_TMUX_RUNS = frozenset(("new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane",
                        "respawnp", "respawn-window", "respawnw", "run-shell", "run", "send-keys", "send"))
_TMUX_KEYS = frozenset(("Enter", "C-m", "KPEnter", "C-j"))


def _unwrap_tmux(words, assigns, origin, depth, dialect, budget, out):
    index = _skip_options(words, 1, "LSfT", ())
    if index >= len(words) or render(words[index]) not in _TMUX_RUNS:
        return None
    index = _skip_options(words, index + 1, "cstnexyFlpb", ())
    rest = [render(word) for word in words[index:] if render(word) not in _TMUX_KEYS]
    if rest:
        _read_into(" ".join(rest), origin + ("tmux",), dict(assigns), depth + 1, dialect, budget, out)
    return []


_WRAPPERS = {
    "sudo": _plain_wrapper("ughpCDrtUTR", ("--user", "--group", "--host", "--prompt", "--close-from",
                                           "--chdir", "--role", "--type", "--other-user", "--command-timeout")),
    "doas": _plain_wrapper("uC"),
    "env": _unwrap_env,
    "command": _unwrap_command,
    "builtin": _plain_wrapper(""),
    "exec": _plain_wrapper("a"),
    "nohup": _plain_wrapper(""),
    "nice": _plain_wrapper("n", ("--adjustment",)),
    "time": _plain_wrapper("fo", ("--format", "--output")),
    "timeout": _plain_wrapper("sk", ("--signal", "--kill-after"), skip_after=1),
    "stdbuf": _plain_wrapper("ioe", ("--input", "--output", "--error")),
    "ionice": _plain_wrapper("cnpPu", ("--class", "--classdata")),
    "chrt": _plain_wrapper("", (), skip_after=1),
    "taskset": _plain_wrapper("", (), skip_after=1),
    "setsid": _plain_wrapper(""),
    "nocorrect": _plain_wrapper(""),
    "noglob": _plain_wrapper(""),
    "unbuffer": _plain_wrapper(""),
    "chronic": _plain_wrapper(""),
    "caffeinate": _plain_wrapper("tw"),
    "busybox": _unwrap_busybox,
    "xargs": _unwrap_xargs,
    "parallel": _unwrap_parallel,
    "flock": _unwrap_flock,
    "script": _unwrap_script,
    "systemd-run": _plain_wrapper("upEMHS", ("--unit", "--property", "--setenv", "--host", "--machine", "--uid",
                                             "--gid", "--nice", "--working-directory", "--description", "--slice",
                                             "--on-active", "--on-boot", "--on-startup", "--on-calendar",
                                             "--timer-property", "--path-property", "--socket-property")),
    "tmux": _unwrap_tmux,
    "npx": _unwrap_npx,
    "bunx": _unwrap_npx,
    "uvx": _unwrap_npx,
    "pipx": _unwrap_npx,
}
_WRAPPERS.update((name, _unwrap_runner) for name in _RUNNERS)
#: Wrappers whose next word is not the program they run (a lock file, a subcommand, an option).
_RUNS_LATER = frozenset(("flock", "script", "systemd-run", "tmux", "npx", "bunx", "uvx", "pipx")) | frozenset(_RUNNERS)
WRAPPERS = frozenset(_WRAPPERS)
# Every program the reader does more with than list its words (see plain_command_needs_reader).
LOOKED_THROUGH = WRAPPERS | _SHELLS | frozenset((
    "eval", "find", "gfind", "fd", "watch", "su", "pwsh", "powershell", "busybox", "python", "pypy", "node",
    "nodejs", "bun", "deno", "ruby", "jruby", "perl", "php", "awk", "gawk", "mawk", "nawk"))


def _find(args, assigns, origin, depth, dialect, budget, out):
    index = 0
    while index < len(args):
        word = render(args[index])
        if word in ("-exec", "-execdir", "-ok", "-okdir", "-x", "--exec", "-X", "--exec-batch"):
            end = index + 1
            while end < len(args) and render(args[end]) not in (";", "+"):
                end += 1
            inner = args[index + 1 : end]
            if inner:
                _interpret(inner, origin + ("find " + word,), dict(assigns), depth + 1, dialect, budget, out,
                           unknown=("find",) + tuple(render(arg) for arg in args))
            index = end + 1
        else:
            index += 1


# -- interpreter one-liners ---------------------------------------------------------------------

_PYTHONS = ("python", "pypy")


def _interpreter_code(key, args, raw):
    """(code, language, origin label) for an interpreter given code inline or on stdin, else None."""
    lang = None
    if key in ("awk", "gawk", "mawk", "nawk"):
        # the program is the first word after the options (none with -f FILE): system("…") runs a shell
        index = _skip_options(args, 0, "Ffv", ("--field-separator", "--assign", "--file"))
        if index < len(args) and not any(render(w) in ("-f", "--file") or render(w).startswith("--file=")
                                         for w in args[:index]):
            return render(args[index]), "awk", key
        return None
    if key.startswith(_PYTHONS) and key.replace(".", "").rstrip("0123456789") in ("python", "pypy"):
        lang, flags = "python", ("-c",)
    elif key in ("node", "nodejs", "bun"):
        lang, flags = "js", ("-e", "--eval", "-p", "--print", "-pe")
    elif key == "deno":
        lang, flags = "js", ("eval",)
    elif key in ("ruby", "jruby"):
        lang, flags = "ruby", ("-e",)
    elif key == "perl":
        lang, flags = "perl", ("-e", "-E")
    elif key == "php":
        lang, flags = "php", ("-r",)
    else:
        return None
    label = "%s %s" % (key, flags[0])
    for index, word in enumerate(args):
        text = render(word)
        matched = text in flags or lang == "perl" and text[:1] == "-" and text[-1:] in "eE" and text[1:].isalpha()
        if lang == "python" and text[:1] == "-" and text[-1:] == "c" and text[1:].isalpha():
            matched = True
        if matched and index + 1 < len(args):
            return render(args[index + 1]), lang, label
        if not text.startswith("-") and text != "eval":
            break
    if raw is not None and (raw.heredoc is not None or raw.herestring is not None):
        plain = [render(w) for w in args if not render(w).startswith("-")]
        if not plain or plain == ["-"]:
            return (raw.heredoc if raw.heredoc is not None else raw.herestring), lang, key + " <<"
    return None


# name -> (kind, languages): "shell" runs its first string argument through a shell,
# "argv" takes a list of words, the rest are library calls mapped onto the command they equal.
_CODE_CALLS = (
    ("os.system", "shell"), ("os.popen", "shell"), ("subprocess.run", "either"), ("subprocess.call", "either"),
    ("subprocess.check_call", "either"), ("subprocess.check_output", "either"), ("subprocess.Popen", "either"),
    ("subprocess.getoutput", "shell"), ("subprocess.getstatusoutput", "shell"), ("commands.getoutput", "shell"),
    ("os.execvp", "argv1"), ("os.execv", "argv1"), ("pty.spawn", "either"),
    ("execSync", "shell"), ("exec(", "shell-js"), ("spawnSync", "spawn"), ("spawn(", "spawn"),
    ("execFileSync", "spawn"), ("execFile(", "spawn"), ("Bun.spawn", "either"), ("Deno.Command", "spawn"),
    ("system", "shell-rb"), ("IO.popen", "shell"), ("Open3.capture2", "shell"), ("Open3.capture3", "shell"),
    ("Open3.popen3", "shell"), ("%x(", "inline"), ("qx(", "inline"), ("qx{", "inline"), ("shell_exec", "shell"),
    ("passthru", "shell"), ("proc_open", "shell"),
    ("shutil.rmtree", "rm -rf"), ("rmtree", "rm -rf"), ("remove_tree", "rm -rf"), ("os.removedirs", "rm -r"),
    ("os.remove", "rm -f"), ("os.unlink", "rm -f"), ("os.rmdir", "rmdir"),
    ("FileUtils.rm_rf", "rm -rf"), ("FileUtils.rm_r", "rm -r"), ("FileUtils.remove_dir", "rm -rf"),
    ("FileUtils.remove_entry", "rm -rf"), ("FileUtils.rmtree", "rm -rf"), ("FileUtils.rm", "rm -f"),
    ("File.delete", "rm -f"), ("rmSync", "fs.rm"), ("fs.rm(", "fs.rm"), ("promises.rm(", "fs.rm"),
    ("rmdirSync", "fs.rm"), ("unlinkSync", "rm -f"), ("Deno.remove", "fs.rm"), ("unlink", "rm -f"),
)


_AFTER_DOT = frozenset(("rmSync", "rmdirSync", "unlinkSync", "execSync", "spawnSync", "execFileSync", "exec(",
                        "spawn(", "execFile(", "rmtree"))  # rmtree: __import__('shutil').rmtree, s.rmtree


def _scan_code(code, lang, origin, assigns, depth, dialect, budget, out):
    """Shell-outs and destructive library calls in an interpreter's code, read as commands."""
    label = origin[-1]
    calls = 0
    taken = set()  # where a call's name ends: shutil.rmtree is not read again as rmtree
    strings = None
    for needle, kind in _CODE_CALLS:
        if kind == "shell-js" and lang != "js" or kind == "shell-rb" and lang not in ("ruby", "perl", "php", "awk"):
            continue
        if lang == "awk" and kind != "shell-rb":
            continue
        if needle in ("unlink",) and lang not in ("perl", "php"):
            continue
        start = code.find(needle)
        while start >= 0 and calls < MAX_CODE_CALLS:
            calls += 1
            end = start + len(needle)
            before = code[start - 1 : start]
            if before and (before in _NAME_CHARS or before == "." and "." not in needle and needle not in _AFTER_DOT):
                start = code.find(needle, end)
                continue
            if end < len(code) and code[end] in _NAME_CHARS and needle[-1] not in "({" or end in taken:
                start = code.find(needle, end)
                continue
            taken.add(end)
            if strings is None:
                strings = _string_spans(code)
            if _inside(strings, start):  # print('shutil.rmtree("/etc")') only says it
                start = code.find(needle, end)
                continue
            _code_call(code, end, needle, kind, origin, label, assigns, depth, dialect, budget, out)
            start = code.find(needle, end)
    if lang in ("ruby", "perl"):
        start = code.find("`")
        while start >= 0 and calls < MAX_CODE_CALLS:
            calls += 1
            close = code.find("`", start + 1)
            if close < 0:
                break
            _read_into(code[start + 1 : close], origin, dict(assigns), depth + 1, dialect, budget, out)
            start = code.find("`", close + 1)


_QUOTES = dict.fromkeys(map(ord, "'\"`"), _SENTINEL)


def _string_spans(code):
    """(starts, ends) of the string literals in ``code`` ('…', "…", `…`, triple quotes), found
    by jumping from quote to quote in C."""
    flat = code.translate(_QUOTES) if _SENTINEL not in code else None
    starts, ends = [], []
    n = len(code)
    i = 0
    while i < n:
        j = flat.find(_SENTINEL, i) if flat is not None else _next_quote(code, i)
        if j < 0:
            break
        quote = code[j]
        if code.startswith(quote * 3, j):
            close = code.find(quote * 3, j + 3)
            end = n if close < 0 else close + 3
        else:
            end = _closing_quote(code, j + 1, "\\", quote) + 1
            line_end = code.find("\n", j + 1, end) if quote != "`" else -1
            if line_end >= 0:
                end = line_end  # a quote alone on its line (`# don't …`) opens no string past it
        starts.append(j)
        ends.append(min(end, n))
        i = end
    return starts, ends


def _next_quote(code, i):
    found = [j for j in (code.find("'", i), code.find('"', i), code.find("`", i)) if j >= 0]
    return min(found) if found else -1


def _inside(spans, position):
    from bisect import bisect_right

    starts, ends = spans
    index = bisect_right(starts, position) - 1
    return index >= 0 and starts[index] < position < ends[index]


def _code_call(code, end, needle, kind, origin, label, assigns, depth, dialect, budget, out):
    if kind == "inline":
        close = code.find(")" if needle[-1] == "(" else "}", end)
        _read_into(code[end : close if close >= 0 else len(code)], origin, dict(assigns), depth + 1, dialect,
                   budget, out)
        return
    args = _call_args(code, end)
    if not args:
        return
    first = args[0]
    if kind in ("shell", "shell-js", "shell-rb", "either"):
        if isinstance(first, list):
            _emit_argv(first, origin, assigns, depth, dialect, budget, out)
        elif first is not None:
            _read_into(first, origin, dict(assigns), depth + 1, dialect, budget, out)
        return
    if kind in ("spawn", "argv1"):
        words = [first] if isinstance(first, str) else []
        rest = args[1] if len(args) > 1 and isinstance(args[1], list) else []
        if kind == "argv1" and isinstance(args[1] if len(args) > 1 else None, list):
            words, rest = [], args[1]
        if isinstance(first, list):
            words, rest = first, []
        _emit_argv(words + rest, origin, assigns, depth, dialect, budget, out)
        return
    path = first if isinstance(first, str) else None
    if any(home in code[end : end + 120].split(",", 1)[0] for home in _HOME_EXPRESSIONS):
        path = "~"  # shutil.rmtree(Path.home()), fs.rmSync(os.homedir(), …)
    if kind == "fs.rm":
        flags = "-rf" if "recursive" in code[end : end + 300] else "-f"
        argv = ["rm", flags]
    else:
        argv = kind.split()
    if path is None:
        target = [("sub", "")]
    elif path[:1] == "~":  # os.path.expanduser("~/x"), File.expand_path("~")
        user, _, rest = path[1:].partition("/")
        target = [("tilde", user)] + ([("q", "/" + rest)] if rest or path.endswith("/") else [])
    else:
        target = [("q", path)]
    words = [_lit(word) for word in argv] + [target]
    budget.commands += 1
    out.append(Command(words, origin[:-1] + (label + " " + needle.rstrip("({"),), assigns))


def _emit_argv(argv, origin, assigns, depth, dialect, budget, out):
    argv = [word for word in argv if isinstance(word, str)]
    if argv:
        _interpret([[("q", word)] for word in argv], origin, dict(assigns), depth + 1, dialect, budget, out)


_HOME_EXPRESSIONS = ("Path.home()", "homedir()", "Dir.home", "ENV['HOME']", 'ENV["HOME"]', "environ['HOME']",
                     'environ["HOME"]', "$ENV{HOME}", "process.env.HOME", "getenv('HOME')", 'getenv("HOME")')


def _call_args(code, i):
    """The literal arguments of the call whose name ends at ``i``: str for a string literal,
    list of str for a list literal, None for anything else. At most 4, within 2000 characters."""
    n = min(len(code), i + 2000)
    while i < n and code[i] in " \t":
        i += 1
    paren = i < n and code[i] == "("
    if paren:
        i += 1
    args = []
    while i < n and len(args) < 4:
        while i < n and code[i] in " \t\n,":
            i += 1
        if i >= n:
            break
        c = code[i]
        if c in "'\"`":
            text, i = _string_literal(code, i)
            args.append(text)
        elif c == "[":
            items = []
            i += 1
            while i < n and code[i] != "]":
                if code[i] in "'\"`":
                    text, i = _string_literal(code, i)
                    items.append(text)
                elif code[i] in ",\n \t":
                    i += 1
                else:
                    items.append(None)
                    while i < n and code[i] not in ",]":
                        i += 1
            args.append(items)
            i += 1
        elif c == ")" or c == ";" or not paren and c == "\n":
            break
        else:
            # an expression: take the first string literal in it (os.path.expanduser("~/x"))
            j = i
            level = 0
            while j < n and not (level == 0 and code[j] in ",)"):
                if code[j] in "([{":
                    level += 1
                elif code[j] in ")]}":
                    level -= 1
                elif code[j] in "'\"":
                    break
                j += 1
            if j < n and code[j] in "'\"":
                text, i = _string_literal(code, j)
                args.append(text)
                while i < n and code[i] not in ",);":
                    i += 1
            else:
                args.append(None)
                i = j
        if not paren:
            break
    return args


def _string_literal(code, i):
    quote = code[i]
    n = len(code)
    if code.startswith(quote * 3, i):
        close = code.find(quote * 3, i + 3)
        close = n if close < 0 else close
        return code[i + 3 : close], close + 3
    out = []
    j = i + 1
    while j < n and code[j] != quote:
        if code[j] == "\\" and j + 1 < n:
            out.append({"n": "\n", "t": "\t"}.get(code[j + 1], code[j + 1]))
            j += 2
        else:
            out.append(code[j])
            j += 1
    return "".join(out), j + 1
