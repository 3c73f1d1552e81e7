"""Bounded append-only JSON-lines ledgers under the hookmux state dir.

- ``append_records(path, records, max_bytes)``: one ``os.write`` of whole lines on an
  ``O_APPEND`` descriptor, under the folder's lock, so concurrent writers lose nothing
  and never interleave. When the file outgrows ``max_bytes`` the same writer keeps its
  newest half (whole lines, atomically replaced) while still holding the lock.
- ``read_records(path)``: the JSON objects of the file, newest last; malformed lines
  are skipped, a missing file is empty, any other read failure raises ``OSError``.
- ``from_outcomes(...)`` / ``dispatch_record(...)`` / ``write_dispatch(...)``: the
  dispatcher's terminal ledger, built from the engine's outcome records.
  A record holds the event, the rows' manifest names, outcome codes and durations;
  never the payload, a prompt, tool input, a session id or exception text.

The state helpers (``state_dir``, ``file_lock``, ``atomic_write_text``) come from
``state.py`` beside this file, loaded by path like ``_common`` loads its names.
Writing imports no ``json`` (records are encoded with the C string quoter the
``json`` package uses); only reading does.
"""
import os
import time

try:
    from _json import encode_basestring_ascii as _quote
except ImportError:  # an interpreter without the accelerator
    _quote = None

LEDGER_VERSION = 1
DEFAULT_MAX_BYTES = 1 << 20
MIN_MAX_BYTES = 4096
LOCK_TIMEOUT = 1.0  # a record is best-effort: never hold a hook up for it
DISPATCH_FILE = ("ledger", "dispatch.jsonl")
# HOOKMUX_LEDGER=0 (or off/false/no) turns the dispatch ledger off.
SWITCH = "HOOKMUX_LEDGER"
MAX_ROWS = 32
OUTCOMES = ("ok", "timeout", "failed-open")
_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_NAME_CHARS = _FIRST | frozenset("._/:-")
_STATE = []


def _state():
    if not _STATE:
        try:  # the interpreter's own frozen import machinery: no importlib import
            from _frozen_importlib import module_from_spec
            from _frozen_importlib_external import spec_from_file_location
        except ImportError:
            from importlib._bootstrap import module_from_spec
            from importlib._bootstrap_external import spec_from_file_location

        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "state.py")
        spec = spec_from_file_location("_common.state", path)
        module = module_from_spec(spec)
        spec.loader.exec_module(module)
        _STATE.append(module)
    return _STATE[0]


def state_dir():
    return _state().state_dir()


def switched_off(name=SWITCH):
    return os.environ.get(name, "").strip().lower() in ("0", "off", "false", "no")


def max_bytes(name, default=DEFAULT_MAX_BYTES):
    try:
        return max(MIN_MAX_BYTES, int(os.environ.get(name, "")))
    except ValueError:
        return default


def append_records(path, records, limit=DEFAULT_MAX_BYTES):
    """Append ``records`` (dicts) as JSON lines; returns the number of lines written."""
    data = "".join(encode(record) + "\n" for record in records)
    if not data:
        return 0
    state = _state()
    directory = os.path.dirname(os.path.abspath(path))
    # The lock makes the folder when it is missing.
    with state.file_lock(os.path.join(directory, ".lock"), timeout=LOCK_TIMEOUT):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | state.NOFOLLOW, 0o600)
        try:
            os.write(fd, data.encode("utf-8"))
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if size > limit:
            _compact(state, path, limit)
    return data.count("\n")


def encode(value):
    """Compact JSON with sorted keys, as ``json.dumps(value, separators=(",", ":"), sort_keys=True)``,
    for what a record holds: dicts, lists, strings, numbers, booleans and None."""
    if _quote is None:
        import json

        return json.dumps(value, separators=(",", ":"), sort_keys=True)
    if isinstance(value, str):
        return _quote(value)
    if value is None or value is True or value is False:
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError("not a finite number")
        return float.__repr__(value)
    if isinstance(value, dict):
        return "{" + ",".join(_quote(str(key)) + ":" + encode(value[key]) for key in sorted(value)) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(encode(item) for item in value) + "]"
    raise TypeError("cannot encode %s" % type(value).__name__)


def _compact(state, path, limit):
    """Keep the newest whole lines that fit in half of ``limit``."""
    with open(os.open(path, os.O_RDONLY | state.NOFOLLOW), "rb") as handle:
        handle.seek(max(0, os.fstat(handle.fileno()).st_size - limit // 2))
        tail = handle.read()
    cut = tail.find(b"\n")
    kept = tail[cut + 1 :] if cut >= 0 else b""
    state.atomic_write_text(path, kept.decode("utf-8", "replace"))


def read_records(path):
    """Every JSON object line of ``path`` in file order; [] when it does not exist.

    A process that reads the same file again (``hookmux serve``'s workers) parses only what was
    appended since: the records read before are kept, keyed by the file's identity, as long as
    it only grew (a compaction writes a new file). Callers must not change the records."""
    try:
        with open(os.open(path, os.O_RDONLY | _state().NOFOLLOW), "rb") as handle:
            info = os.fstat(handle.fileno())
            identity = (info.st_dev, info.st_ino)
            known = _READ.get(path)
            if known is not None and known[0] == identity and known[1] <= info.st_size:
                handle.seek(known[1])
                offset, records = known[1], list(known[2])
            else:
                offset, records = 0, []
            data = handle.read()
    except FileNotFoundError:
        _READ.pop(path, None)
        return []
    whole = data.rfind(b"\n") + 1  # a last line without its end is parsed, not kept
    records.extend(_parse(data[:whole]))
    _READ[path] = (identity, offset + whole, tuple(records))
    return records + _parse(data[whole:]) if whole < len(data) else records


_READ = {}  # path -> (file identity, bytes parsed, their records)


def _parse(data):
    if not data:
        return []
    import json

    records = []
    for line in data.decode("utf-8", "replace").splitlines():
        if not line.startswith("{"):
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


# ---------------------------------------------------------------- the dispatch ledger


def dispatch_path():
    return os.path.join(state_dir(), *DISPATCH_FILE)


def safe_name(value, fallback="?"):
    """``value`` when it is a short plain identifier (a manifest name, an event), else ``fallback``."""
    if isinstance(value, str) and 0 < len(value) <= 64 and value[0] in _FIRST and _NAME_CHARS.issuperset(value):
        return value
    return fallback


def dispatch_record(event, host, outcome, reason, duration_ms, rows, now=None):
    """One terminal record. ``rows``: (name, outcome code, ms) of each selected row."""
    return {
        "v": LEDGER_VERSION,
        "t": round(time.time() if now is None else now, 3),
        "event": safe_name(event),
        "host": safe_name(host),
        "outcome": outcome if outcome in OUTCOMES else "failed-open",
        "reason": safe_name(reason, "other") if reason else None,
        "ms": round(float(duration_ms), 2),
        "rows": [
            [safe_name(name), safe_name(code, "other"), round(float(ms), 2)]
            for name, code, ms in list(rows)[:MAX_ROWS]
        ],
    }


def row_code(outcome):
    """The ledger's code for one selected row's outcome record (the engine's ``Outcome``)."""
    if outcome.kind == "breaker":  # skipped: its circuit breaker is open (breaker.py)
        return "breaker-open"
    if not outcome.ran:
        return "import-error" if outcome.kind == "error" else "not-run"
    if outcome.kind == "timeout":
        return "timeout"
    if outcome.kind != "ok":
        return "error"
    if outcome.contexts:
        return "emitted" if outcome.used else "dropped"
    return "silent"


def from_outcomes(event, host, outcomes, reason, duration_ms, now=None):
    """The dispatch record for the engine's outcome records (``reason``: the dispatcher's own
    failure, or None). Rows that were not selected are left out."""
    rows = [(o.name, row_code(o), o.elapsed_ms or 0.0) for o in outcomes or () if o.selected]
    codes = {code for _, code, _ in rows}
    outcome = "ok"
    if reason:
        outcome = "failed-open"
    elif codes & {"timeout", "not-run"}:
        outcome = "timeout"
    elif codes & {"error", "import-error"}:
        outcome, reason = "failed-open", "import-error" if "import-error" in codes else "row-error"
    return dispatch_record(event or "none", host, outcome, reason, duration_ms, rows, now)


def of_call(call, outcomes, reason, started):
    """``from_outcomes`` as ``run()``'s observer has it: the event and host of ``call`` (None: the
    payload did not parse), the time since ``started`` (``time.monotonic()``). The command
    hook's transport and hookmux serve's worker both record a dispatch this way."""
    event, host = (call.name, call.host) if call is not None else (None, None)
    return from_outcomes(event, host, outcomes, reason, (time.monotonic() - started) * 1000)


def write_dispatch(record):
    """Append one dispatch record unless switched off; never raises."""
    try:
        if switched_off():
            return False
        append_records(dispatch_path(), [record], max_bytes("HOOKMUX_LEDGER_MAX_BYTES"))
        return True
    except Exception:
        return False
