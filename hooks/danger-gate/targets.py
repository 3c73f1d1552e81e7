"""What a path operand of a delete would really reach, and whether nothing could bring it back.

    reach(operand, cwd, env) -> [absolute paths]      # ~, $VAR, ${VAR}, .., globs resolved
    protected(path, places) -> reason or ""           # "/", a system folder, the home folder,
                                                      # one of its top-level folders, the project

An operand is judged by the path the shell would leave: ``~`` and ``~user`` expand, a
variable takes its value from the hook's environment (the one the host gives the command)
and an unset or empty one leaves nothing (``$TMPDIR/*`` with TMPDIR unset is ``/*``). A
glob is matched against the disk (bounded); one that matches nothing stays literal, as in
sh. An operand holding a command substitution cannot be judged here and reaches nothing.
Standard library only.
"""
import os

MAX_GLOB_RESULTS = 2000
_GLOB_CHARS = frozenset("*?[")
#: A variable's value that is not known here (shell.UNKNOWN_VALUE, or a substitution).
UNKNOWN = "\0"
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


class Places:
    """The folders a session's deletes are judged against (computed once per call)."""

    __slots__ = ("home", "project", "system", "home_exceptions", "precious")

    def __init__(self, home, project, system, home_exceptions, precious=()):
        #: The home folder, real path ("" when unknown).
        self.home = home
        #: The project: the cwd's repository root, else the cwd ("" when unknown).
        self.project = project
        #: System folders (absolute, normalised), from the registry row.
        self.system = frozenset(system)
        #: Top-level folders of home that hold only caches (``.cache``), never protected.
        self.home_exceptions = frozenset(home_exceptions)
        #: Files no copy brings back (``~/.ssh/id_*`` private keys): fnmatch patterns, ``~`` = home.
        self.precious = tuple(precious)


def real(path):
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return os.path.normpath(path)


def reach(operand, cwd, env):
    """The absolute paths ``operand`` names (several for a glob); [] when it cannot be judged."""
    if not isinstance(operand, str) or not operand or "\0" in operand:
        return []
    if "$(" in operand or "`" in operand:
        return []
    text = _expand(operand, env)
    if not text:
        return []  # not judged, or nothing left
    if not (text.startswith("/") or cwd):
        return []  # relative to a folder that is not known (after ``cd "$(mktemp -d)"``)
    path = text if text.startswith("/") else os.path.join(cwd, text)
    path = os.path.normpath(path)
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    if not any(char in _GLOB_CHARS for char in path):
        return [path]
    matches = _glob(path)
    if not matches:
        return [path]  # sh keeps a glob that matches nothing as it is
    return matches


def reach_parts(parts, cwd, env, carried=()):
    """``reach`` for a word the shell reader split into parts (``(kind, text)``: ``lit``
    unquoted, ``q`` quoted, ``var``, ``sub``, ``tilde``): a quoted ``~`` or ``*`` is literal;
    an unquoted ``{a,b}`` expands first (``~/{Documents,.ssh}``). A trailing ``/`` follows a
    symlink (``rm -r link/`` deletes what it points to); ``carried``: what earlier commands of
    the call moved or linked (``carries``), so a path they made names what is on disk now."""
    variants = _braces(parts)
    if variants is not None:
        return [path for variant in variants for path in reach_parts(variant, cwd, env, carried)]
    text, globbing = [], False
    for index, (kind, value) in enumerate(parts):
        if kind == "lit":
            if any(char in _GLOB_CHARS for char in value):
                globbing = True
                text.append(value)
            else:
                text.append(_escape(value))
        elif kind == "q":
            text.append(_escape(value))
        elif kind == "tilde":
            if index:
                text.append("~" + value)
                continue
            home = (env.get("HOME") or os.path.expanduser("~")) if not value else os.path.expanduser("~" + value)
            if home.startswith("~"):
                return []  # an unknown user: not judged
            text.append(_escape(home))
        elif kind == "var":
            found = cwd if value == "PWD" else _parameter(value, env)
            if found is None:
                return []
            text.append(_escape(found))
        elif value == "pwd" and cwd:
            text.append(_escape(cwd))  # $(pwd): the folder it runs in
        else:
            return []  # a substitution: its value is not known here
    joined = "".join(text)
    if not joined or not (joined.startswith("/") or cwd):
        return []
    path = joined if joined.startswith("/") else os.path.join(cwd, joined)
    path = os.path.normpath(path)
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    follow = joined.endswith(("/", "/."))
    if carried:
        path = _carry(path, follow, carried)
    if follow and not globbing and os.path.islink(_unescape(path)):
        path = _escape(real(_unescape(path)))
    if not globbing:
        return [_unescape(path)]
    return _glob(path) or [_unescape(path)]


def carries(argv, words, cwd, env):
    """What ``mv SRC DST`` or ``ln -s TARGET LINK`` (two operands) makes a later command of the
    same call reach: ``(kind, new path, the path on disk now)``, or None. A move carries the
    path and what is below it; a link what is below it (and the link itself with a trailing
    ``/``)."""
    if len(argv) < 3 or argv[0] not in ("mv", "ln"):
        return None
    indexes = [index for index in range(1, len(argv)) if not argv[index].startswith("-")]
    options = "".join(argv[index] for index in range(1, len(argv)) if argv[index].startswith("-"))
    if len(indexes) != 2 or "-t" in options or "--target" in options or argv[0] == "ln" and "s" not in options:
        return None
    source = reach_parts(words[indexes[0]], cwd, env)
    dest = reach_parts(words[indexes[1]], cwd, env)
    if len(source) != 1 or len(dest) != 1:
        return None
    source, dest = source[0], dest[0]
    if os.path.isdir(dest) and not os.path.islink(dest):
        dest = os.path.join(dest, os.path.basename(source))
    first = words[indexes[0]][0] if words[indexes[0]] else ("lit", "")
    if argv[0] == "ln" and first[0] in ("lit", "q") and not first[1].startswith("/"):
        # a relative target is relative to the link's folder, not the command's
        source = reach_parts(words[indexes[0]], os.path.dirname(dest), env)
        if len(source) != 1:
            return None
        source = source[0]
    return (argv[0], dest, source)


def _carry(path, follow, carried):
    """``path`` (glob-escaped) as the disk has it now, past each move and link of ``carried``,
    the latest first."""
    for kind, new, old in reversed(carried):
        new, old = _escape(new), _escape(old)
        if path.startswith(new + "/") or path == new and (kind == "mv" or follow):
            path = old + path[len(new):]
    return path


def _braces(parts, limit=64):
    """The words an unquoted ``{a,b}`` in ``parts`` expands to (the first group; each variant is
    expanded again), or None when there is none. At most ``limit`` variants, 4 groups a word."""
    if sum(value.count("{") for kind, value in parts if kind == "lit") > 4:
        return None
    for index, (kind, value) in enumerate(parts):
        if kind != "lit" or "{" not in value:
            continue
        start = value.find("{")
        while start >= 0:
            end = value.find("}", start)
            inner = value[start + 1:end] if end > 0 else ""
            if end > 0 and "," in inner and "{" not in inner:
                head, tail = value[:start], value[end + 1:]
                return [tuple(parts[:index]) + _tilde(index, head + item + tail) + tuple(parts[index + 1:])
                        for item in inner.split(",")[:limit]]
            start = value.find("{", start + 1)
    return None


def _tilde(index, text):
    """A word's first part after brace expansion: a leading ``~`` expands after it, as in sh."""
    if index == 0 and (text == "~" or text.startswith("~/")):
        return (("tilde", ""),) + ((("lit", text[1:]),) if text[1:] else ())
    return (("lit", text),)


def _parameter(text, env):
    """The value of ``NAME``, ``NAME:-word``, ``NAME-word``, ``NAME:=word``; None when not judged."""
    if _is_name(text):
        value = env.get(text, "")
        return None if UNKNOWN in value else value
    for op in (":-", ":=", "-", "="):
        name, sep, word = text.partition(op)
        if sep and _is_name(name) and "$" not in word and "`" not in word:
            value = env.get(name)
            if value is not None and UNKNOWN in value:
                return None
            empty = value is None or (op.startswith(":") and value == "")
            return word if empty else value
    return None


def assigned(assigns, env):
    """``env`` with the command's ``VAR=value`` assignments (as the reader renders them) over it,
    each value expanded as the shell would (``D=~/x``, ``D=$HOME/x``); a value that cannot be
    known here (``$(…)``, a loop variable, ``read``) holds ``UNKNOWN``: its operands are not judged."""
    merged = dict(env)
    for name, value in assigns.items():
        text = None if "\u2026" in value or "`" in value else _expand(value, merged)
        merged[name] = UNKNOWN if text is None else text
    return merged


def _escape(text):
    """``glob.escape`` without importing glob (``[`` wraps each glob character)."""
    if not any(char in _GLOB_CHARS for char in text):
        return text
    return "".join("[%s]" % char if char in _GLOB_CHARS else char for char in text)


def _unescape(path):
    for char in _GLOB_CHARS:
        path = path.replace("[%s]" % char, char)
    return path


def protected(path, places):
    """Why deleting ``path`` (recursively) could not be undone, or "" when it can be risked."""
    if path == "/":
        return "the root folder /"
    # rm removes a symlink, not what it points to: only the folders above the last name resolve.
    parent, name = os.path.split(path)
    resolved = os.path.join(real(parent), name) if name else real(path)
    for candidate in _unique((path, resolved)):
        if candidate in places.system:
            return "the system folder %s" % candidate
        if places.home and candidate == places.home:
            return "the home folder %s" % candidate
        if places.home and os.path.dirname(candidate) == places.home:
            name = os.path.basename(candidate)
            if name not in places.home_exceptions:
                return "%s, a top-level folder of the home folder" % candidate
        if places.project and candidate == places.project:
            return "the whole project %s" % candidate
    # An ancestor of any of these holds it: deleting /home or ~/.. deletes the home folder.
    for candidate in _unique((path, resolved)):
        prefix = candidate.rstrip("/") + "/"
        for inner, what in ((places.home, "the home folder"), (places.project, "the project")):
            if inner and inner.startswith(prefix):
                return "%s, which holds %s %s" % (candidate, what, inner)
    return ""


def holder(folder, places):
    """Why emptying ``folder`` could not be undone: the home folder, one of its top-level folders
    or a system folder (not the project, not "/": their own checks judge those), else ""."""
    why = protected(folder, places)
    if not why or folder == "/" or "which holds" in why or why.startswith("the whole project"):
        return ""
    return why


def precious(path, places):
    """Why deleting the file ``path`` could not be undone (a private key), else ""."""
    import fnmatch

    resolved = real(path)
    for pattern in places.precious:
        if pattern.startswith("~/"):
            if not places.home:
                continue
            pattern = os.path.join(places.home, pattern[2:])
        for candidate in _unique((path, resolved)):
            if fnmatch.fnmatchcase(candidate, pattern) and not candidate.endswith(".pub"):
                return "the private key %s" % candidate
    return ""


def _unique(items):
    return list(dict.fromkeys(items))


def expand(text, env):
    """``text`` with ``~`` and ``$NAME``/``${NAME}`` expanded; None when it cannot be judged."""
    found = _expand(text, env)
    return None if found is None or UNKNOWN in found else found


def _expand(text, env):
    """``text`` with ``~``/``~user`` and ``$NAME``/``${NAME}`` expanded; None when it cannot be judged."""
    if text.startswith("~"):
        head, sep, rest = text.partition("/")
        home = os.path.expanduser(head) if head == "~" or _is_name(head[1:]) else head
        if head == "~":
            home = env.get("HOME") or home
        if home.startswith("~"):
            return None  # an unknown user: not judged
        text = home + sep + rest
    if "$" not in text:
        return text
    out = []
    index = 0
    while index < len(text):
        char = text[index]
        if char != "$":
            out.append(char)
            index += 1
            continue
        nxt = text[index + 1:index + 2]
        if nxt == "{":
            end = text.find("}", index + 2)
            if end < 0:
                return None
            name = text[index + 2:end]
            if not _is_name(name):
                return None  # ${X:-...} and the like: not judged
            out.append(env.get(name, ""))
            index = end + 1
        elif nxt and (nxt in _NAME_CHARS and not nxt.isdigit()):
            end = index + 1
            while end < len(text) and text[end] in _NAME_CHARS:
                end += 1
            out.append(env.get(text[index + 1:end], ""))
            index = end
        else:
            return None  # $1, $?, $$ ...: not judged
    return "".join(out)


def _is_name(text):
    return bool(text) and all(char in _NAME_CHARS for char in text) and not text[0].isdigit()


def _glob(pattern):
    import glob

    found = []
    try:
        for match in glob.iglob(pattern):
            found.append(os.path.normpath(match))
            if len(found) >= MAX_GLOB_RESULTS:
                break
    except (OSError, ValueError, RecursionError):
        return []
    return found
