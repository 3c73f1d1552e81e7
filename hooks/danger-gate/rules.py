"""The gate's rows: the shipped registry with the user's own rows and disabled ids over it.

    load(shipped_path, user_path) -> Registry      # never raises; a bad row is skipped
    user_registry_path(env) -> path                 # $XDG_CONFIG_HOME/hookmux/dangers.json

The user's file (``~/.config/hookmux/dangers.json`` unless ``XDG_CONFIG_HOME`` says
otherwise) holds ``{"rows": [...], "disabled": ["ID", ...]}``: a row with a shipped id
replaces that row, a new id adds one, a disabled id is off. Only the user's own file counts:
a project cannot turn the gate off. Keys outside the shipped file's come from it too
(``system_folders``, ``home_exceptions``: the user's lists add to the shipped ones).
"""
import os

ROW_FIELDS = ("id", "loses", "harm", "safe_alternative")
USER_FILE = ("hookmux", "dangers.json")


class Registry:
    __slots__ = ("rows", "system_folders", "home_exceptions", "disabled")

    def __init__(self):
        self.rows = []
        self.system_folders = []
        self.home_exceptions = []
        self.disabled = []


def user_registry_path(env=None):
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME")
    if not (base and os.path.isabs(base)):
        base = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".config")
    return os.path.join(base, *USER_FILE)


def loads(text):
    """``_common.event.loads`` (the C scanner, no json package) where the hooks tree is on the path."""
    try:
        from _common.event import loads as fast
    except ImportError:
        from json import loads as fast
    return fast(text)


def user_registry_exists(env=None):
    try:
        os.stat(user_registry_path(env))
    except (OSError, ValueError):
        return False
    return True


def read_document(path):
    """The JSON object in ``path``; None when it is missing, unreadable or not an object."""
    try:
        with open(path, "rb") as handle:
            document = loads(handle.read(4 << 20).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    return document if isinstance(document, dict) else None


def usable(row):
    """A row the gate can run: the fields it needs, a known judge, a program to match."""
    if not isinstance(row, dict):
        return False
    if not all(isinstance(row.get(field), str) and row[field].strip() for field in ROW_FIELDS):
        return False
    import judges

    if row["loses"] not in judges.JUDGES:
        return False
    return bool(programs(row))


def programs(row):
    program = row.get("program") if isinstance(row, dict) else None
    if isinstance(program, str) and program:
        return [program]
    if isinstance(program, list):
        return [p for p in program if isinstance(p, str) and p]
    return []


def load(shipped_path, user_path):
    registry = Registry()
    shipped = read_document(shipped_path) or {}
    user = read_document(user_path) or {} if user_path else {}
    for key in ("system_folders", "home_exceptions"):
        for document in (shipped, user):
            values = document.get(key)
            if isinstance(values, list):
                getattr(registry, key).extend(v for v in values if isinstance(v, str) and v)
    disabled = user.get("disabled")
    registry.disabled = [d for d in disabled if isinstance(d, str)] if isinstance(disabled, list) else []
    rows = {}
    for document in (shipped, user):
        found = document.get("rows")
        for row in found if isinstance(found, list) else ():
            if usable(row):
                rows[row["id"]] = row
    registry.rows = [row for row_id, row in rows.items() if row_id not in registry.disabled]
    return registry


def program_words(registry):
    """Every program name a row matches (for the entry point's cheap test)."""
    return {word for row in registry.rows for word in programs(row)}


def matches(row, argv):
    """INTERIM until hooks/_common/shell_rules.py lands: program, git-style subcommand, flag groups."""
    if not argv or os.path.basename(argv[0]) not in programs(row):
        return False
    words = argv[1:]
    subcommand = row.get("subcommand")
    if subcommand:
        import judges

        _, found, words = judges.git_parts(argv, "")
        if found != subcommand:
            return False
    for group in row.get("flags") or ():
        if not any(_has_flag(words, spelling) for spelling in group):
            return False
    return True


def _has_flag(words, spelling):
    for word in words:
        if word == "--":
            return False
        if spelling.startswith("--"):
            if word == spelling or word.startswith(spelling + "="):
                return True
        elif word.startswith("-") and not word.startswith("--") and spelling[1:] in word[1:]:
            return True
    return False
