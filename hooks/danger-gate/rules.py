"""The gate's rows: the shipped registry with the user's own rows and disabled ids over it.

    load(shipped_path, user_path) -> Registry      # never raises; a row it cannot use is skipped
    user_registry_path(env) -> path                 # $XDG_CONFIG_HOME/hookmux/dangers.json
    matches(registry, row, command, context)        # the row's program/subcommand/flags/args hold

Rows are in the advisory's structured form (``_common/shell_rules.py``: ``program``,
``subcommand``, ``flags``, ``args``, ``any_of``) plus ``loses``, the judge that decides
whether the call would really lose something (judges.py), and optional ``operands``: which
words a ``paths`` or ``emptied`` judge asks about (operands.py; ``rsync``'s destination). The user's file
(``~/.config/hookmux/dangers.json`` unless ``XDG_CONFIG_HOME`` says otherwise) holds
``{"rows": [...], "disabled": ["ID", ...], "packs": {"NAME": false}}``: a row with a shipped id
replaces that row, a new id adds one, a disabled id is off, and so is a row whose ``pack`` is off. Only the user's own file counts: a project cannot turn
the gate off. ``system_folders``, ``home_exceptions`` and ``precious_files`` of the user's file add to the
shipped lists.
"""
import os

ROW_FIELDS = ("id", "loses", "harm", "safe_alternative")
USER_FILE = ("hookmux", "dangers.json")


class Registry:
    __slots__ = ("rows", "rules", "operands", "system_folders", "home_exceptions", "precious_files", "disabled")

    def __init__(self):
        self.rows = []
        #: row id -> the compiled ``shell_rules.Rule``
        self.rules = {}
        #: row id -> its compiled ``operands`` (operands.py), False when unusable; filled by operands_of
        self.operands = {}
        self.system_folders = []
        self.home_exceptions = []
        self.precious_files = []
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


def read_document(path):
    """The JSON object in ``path``; None when it is missing, unreadable or not an object."""
    try:
        with open(path, "rb") as handle:
            document = loads(handle.read(4 << 20).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    return document if isinstance(document, dict) else None


def compiled(row):
    """The row's ``shell_rules.Rule``, or None when the gate cannot use the row."""
    if not isinstance(row, dict):
        return None
    if not all(isinstance(row.get(field), str) and row[field].strip() for field in ROW_FIELDS):
        return None
    import judges
    from _common import shell_rules

    if row["loses"] not in judges.JUDGES:
        return None
    if "operands" in row and row["loses"] not in OPERAND_JUDGES:
        return None
    try:
        return shell_rules.compile_row(row)
    except (ValueError, TypeError):
        return None


#: The judges a row's ``operands`` can name the words for (operands.JUDGES; a test keeps them equal).
OPERAND_JUDGES = ("paths", "emptied")


def operands_of(registry, row):
    """The row's ``operands`` compiled (operands.py) on first use, None without them or when they
    cannot be used (``hookmux validate`` names the problem): compiled only for a row that matched."""
    if "operands" not in row:
        return None
    row_id = row["id"]
    if row_id not in registry.operands:
        import operands

        try:
            registry.operands[row_id] = operands.compile_spec(row["operands"], row["loses"])
        except ValueError:
            registry.operands[row_id] = False
    return registry.operands[row_id]


def load(shipped_path, user_path):
    registry = Registry()
    shipped = read_document(shipped_path) or {}
    user = (read_document(user_path) or {}) if user_path else {}
    for key in ("system_folders", "home_exceptions", "precious_files"):
        for document in (shipped, user):
            values = document.get(key)
            if isinstance(values, list):
                getattr(registry, key).extend(v for v in values if isinstance(v, str) and v)
    disabled = user.get("disabled")
    registry.disabled = [d for d in disabled if isinstance(d, str)] if isinstance(disabled, list) else []
    off = packs_off(user)
    rows = {}
    for document in (shipped, user):
        found = document.get("rows")
        for row in found if isinstance(found, list) else ():
            rule = compiled(row)
            if rule is not None:
                rows[row["id"]] = (row, rule)
    for row_id, (row, rule) in rows.items():
        if row_id not in registry.disabled and row.get("pack") not in off:
            registry.rows.append(row)
            registry.rules[row_id] = rule
    return registry


def packs_off(user):
    """The pack names the user's ``{"packs": {"NAME": false}}`` turns off (the advisory reads the
    same key: one switch for what a pack advises and blocks); a value other than false changes nothing."""
    packs = user.get("packs") if isinstance(user, dict) else None
    return frozenset(name for name, on in packs.items() if on is False) if isinstance(packs, dict) else frozenset()


def matches(registry, row, command, context):
    """Whether ``row`` holds for this one simple command (``shell_rules.evaluate``)."""
    from _common import shell_rules

    return shell_rules.evaluate(registry.rules[row["id"]], [command], context).matched


def program_words(document_rows):
    """The words a command that rows match must name, as plain words for the entry point's
    cheap test: each alternative's programs (``mkfs.*`` -> ``mkfs``), or, for an alternative
    whose ``args`` need one of some exact words (``npx prisma``: ``{"any": [{"equals": "prisma"}]}``),
    those words (the runner's name alone sends nothing on). Read without compiling anything."""
    words = set()
    for row in document_rows:
        if not isinstance(row, dict):
            continue
        for alternative in [row] + [a for a in row.get("any_of") or () if isinstance(a, dict)]:
            needed = _needed_words(alternative)
            program = alternative.get("program")
            for name in needed or ([program] if isinstance(program, str) else program
                                   if isinstance(program, list) else ()):
                if isinstance(name, str) and name.rstrip(".*"):
                    words.add(name.rstrip("*").rstrip(".").lower())
    return words


def _needed_words(alternative):
    """The exact words one of which ``args`` needs (``{"any": [{"equals": W}, ...]}``), else []."""
    args = alternative.get("args")
    entries = args.get("any") if isinstance(args, dict) and list(args) == ["any"] else None
    if not isinstance(entries, list) or not entries:
        return []
    words = []
    for entry in entries:
        value = entry.get("equals") if isinstance(entry, dict) and list(entry) == ["equals"] else None
        values = [value] if isinstance(value, str) else value if isinstance(value, list) else None
        if not values or not all(isinstance(v, str) and v for v in values):
            return []
        words += values
    return words
