"""Calibrated silence: a gate on *repeats* of an advisory, driven by recorded reactions.

    allow, reason = should_interject(type, {"finding": key, "session_id": sid})
    ... print the advisory only when allow ...
    record_interjection(type, key, sid)          # only after really emitting it

``type`` names the consumer ("contraindication"), the finding identity ``key`` is the
consumer's own (a row id). Reactions (``record_reaction``; see ``reactions.py`` for
how hookmux observes them) are ``acted``, ``ignored``, ``annoyed`` or ``unknown``.

Invariants (docs/calibrated-silence.md, each tested at its boundary):
- a key never interjected before is novel and always allowed;
- cold start: allowed until acted + ignored reaches MIN_SAMPLES (annoyed and unknown
  do not count); out of cold start, recent annoyed reactions of the type raise fatigue:
  ``(ignored + annoyed) / (acted + ignored + annoyed) >= THRESHOLD`` suppresses;
- every REFRESH-th suppressed occurrence in a row is allowed again (0: never);
- kill switch ``HOOKMUX_SILENCE=off``, an unreadable ledger, or any exception allows;
  malformed ledger lines are skipped;
- every occurrence that reaches the gate is counted, allowed or suppressed.

State: ``<state_dir>/calibrated-silence/history.jsonl`` (bounded, appended under a
lock; duplicates from a replayed event are ignored when read) and one small file per
session with the advisories awaiting a reaction. Only types, keys, reaction codes,
times and session digests are stored. Standard library only; importing this module
imports nothing beyond os and time.
"""
import os
import time

NAMESPACE = "calibrated-silence"
HISTORY = "history.jsonl"
VERSION = 1
REACTIONS = ("acted", "ignored", "annoyed", "unknown")
ANY_KEY = "*"
KILL_SWITCH = "HOOKMUX_SILENCE"
MAX_SESSION_ENTRIES = 64
MAX_PATTERN_CHARS = 4000
MAX_ORIGINS = 16
LOCK_TIMEOUT = 1.0

# name: (environment variable, default, smallest allowed, type)
TUNABLES = {
    "min_samples": ("HOOKMUX_SILENCE_MIN_SAMPLES", 3, 1, int),
    "threshold": ("HOOKMUX_SILENCE_THRESHOLD", 0.75, 0.0, float),
    "window": ("HOOKMUX_SILENCE_WINDOW", 20, 1, int),
    "annoyed_seconds": ("HOOKMUX_SILENCE_ANNOYED_SECONDS", 7 * 86400.0, 0.0, float),
    "refresh": ("HOOKMUX_SILENCE_REFRESH", 10, 0, int),
    "acted_after": ("HOOKMUX_SILENCE_ACTED_AFTER", 3, 1, int),
    "pending_seconds": ("HOOKMUX_SILENCE_PENDING_SECONDS", 3600.0, 1.0, float),
    "max_bytes": ("HOOKMUX_SILENCE_MAX_BYTES", 512 * 1024, 4096, int),
}
_KEY_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789*")
_KEY_CHARS = _KEY_FIRST | frozenset("._:/-")
_HOOKS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LOADED = {}


def settings():
    """The tunables, from the environment; a value that is not a number means the default."""
    values = {}
    for name, (variable, default, lowest, kind) in TUNABLES.items():
        try:
            value = kind(os.environ.get(variable, ""))
        except ValueError:
            value = default
        values[name] = default if value != value else max(lowest, value)
    return values


def disabled():
    return os.environ.get(KILL_SWITCH, "").strip().lower() in ("0", "off", "false", "no")


# ---------------------------------------------------------------- the gate


def should_interject(type, context):
    """(allow, reason) for showing the advisory ``context["finding"]`` of ``type`` again."""
    try:
        if disabled():
            return True, "disabled"
        context = context if isinstance(context, dict) else {}
        key = context.get("finding")
        if not key or not isinstance(key, str):
            return True, "no-finding"
        if context.get("novel"):
            return True, "novel"
        now = time.time()
        tunables = settings()
        try:
            records = _ledger().read_records(history_path())
        except Exception:
            return True, "ledger-unreadable"
        allow, reason = decide(records, type, key, now, tunables)
        _append(
            [_record("occurrence", type, key, context.get("session_id"), now, allow=allow, why=reason,
                     event=_clean_event(context.get("event")))],
            tunables,
        )
        return allow, reason
    except Exception:
        return True, "error"


def decide(records, type, key, now, tunables):
    """The decision for ``key`` from the history ``records`` (pure; no I/O)."""
    key = clean_key(key)
    stats = tally(records, type, key, now, tunables)
    if not stats["interjections"]:
        return True, "novel"
    samples = stats["acted"] + stats["ignored"]
    if samples < tunables["min_samples"]:
        return True, "cold-start"
    annoyed = stats["annoyed_recent"]
    fatigue = (stats["ignored"] + annoyed) / float(samples + annoyed)
    if fatigue < tunables["threshold"]:
        return True, "useful"
    if tunables["refresh"] and stats["suppressed_run"] + 1 >= tunables["refresh"]:
        return True, "refresh"
    return False, "fatigued"


def tally(records, type, key, now, tunables):
    """Counters of ``key``: interjections, occurrences, suppressed, reactions.

    A replayed event does not count twice: interjections and reactions count once per
    session, occurrences once per event id. ``acted``/``ignored`` cover the last
    ``window`` sessions that reacted; ``annoyed_recent`` the type's annoyed sessions
    within ``annoyed_seconds``; ``suppressed_run`` the suppressed occurrences since
    the last allowed one.
    """
    stats = {"interjections": 0, "occurrences": 0, "suppressed": 0, "suppressed_run": 0,
             "acted": 0, "ignored": 0, "annoyed": 0, "annoyed_recent": 0, "unknown": 0}
    interjected, reacted, annoyed, events = set(), {}, {}, set()
    for index, record in enumerate(records):
        record_key = record.get("key")
        if record_key != key and record_key != ANY_KEY:
            continue
        if record.get("type") != type or record.get("v") != VERSION:
            continue
        kind, session = record.get("k"), record.get("s")
        stamp = record.get("t")
        if not isinstance(stamp, (int, float)) or isinstance(stamp, bool):
            continue
        if kind == "reaction" and record.get("r") == "annoyed" and record_key in (key, ANY_KEY):
            annoyed.setdefault(session, stamp)
            continue
        if record_key != key:
            continue
        if kind == "interjection":
            interjected.add(session)
        elif kind == "reaction" and record.get("r") in REACTIONS:
            reacted.setdefault(session, (stamp, index, record["r"]))
        elif kind == "occurrence":
            event = record.get("event")
            if event and event in events:
                continue
            if event:
                events.add(event)
            stats["occurrences"] += 1
            if record.get("allow") is False:
                stats["suppressed"] += 1
                stats["suppressed_run"] += 1
            else:
                stats["suppressed_run"] = 0
    stats["interjections"] = len(interjected)
    counted = sorted(item for item in reacted.values() if item[2] in ("acted", "ignored"))
    for _, _, reaction in counted[-tunables["window"]:]:
        stats[reaction] += 1
    stats["unknown"] = sum(1 for _, _, reaction in reacted.values() if reaction == "unknown")
    stats["annoyed"] = len(annoyed)
    stats["annoyed_recent"] = sum(1 for stamp in annoyed.values() if now - stamp <= tunables["annoyed_seconds"])
    return stats


def counters(type, key):
    """``tally`` of ``key`` from the ledger on disk (for tests and ``hookmux log``)."""
    return tally(_ledger().read_records(history_path()), type, clean_key(key), time.time(), settings())


# ---------------------------------------------------------------- recording


def record_interjection(type, context_key, session_id, repeat=None, origin=None):
    """Record that the advisory ``context_key`` of ``type`` was shown in this session.

    ``repeat`` (optional): ``{"tool": regex, "input": regex}`` recognising a call that
    repeats the hazard; with it the session's later calls are watched for a reaction
    (``reactions.py``). ``origin``: a digest of the event that showed the advisory, so
    that event itself is never taken for a repeat. Never raises; True when recorded.
    """
    try:
        now = time.time()
        _append([_record("interjection", type, context_key, session_id, now)], settings())
        if repeat and session_id:
            _watch(type, clean_key(context_key), session_id, repeat, origin, now)
        return True
    except Exception:
        return False


def record_reaction(type, context_key, session_id, reaction, now=None):
    """Append one reaction; the first acted/ignored/unknown of a session counts."""
    if reaction not in REACTIONS:
        raise ValueError(reaction)
    now = time.time() if now is None else now
    _append([_record("reaction", type, context_key, session_id, now, r=reaction)], settings())


def _record(kind, type, key, session_id, now, **extra):
    record = {"v": VERSION, "k": kind, "type": clean_key(type), "key": clean_key(key),
              "s": session_digest(session_id), "t": round(now, 3)}
    record.update((name, value) for name, value in extra.items() if value is not None)
    return record


def _append(records, tunables):
    _ledger().append_records(history_path(), records, tunables["max_bytes"])


def clean_key(value):
    """A type or key as stored: short identifiers as they are, anything else as a digest."""
    if isinstance(value, str) and 0 < len(value) <= 64 and value[0] in _KEY_FIRST and _KEY_CHARS.issuperset(value):
        return value
    return "h:" + digest(str(value))[:16]


def _clean_event(value):
    return digest(value)[:16] if isinstance(value, str) and value else None


def session_digest(session_id):
    return digest(session_id)[:16] if isinstance(session_id, str) and session_id else "-"


def digest(text):
    return _common().state._sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# ---------------------------------------------------------------- per-session watch


def session_path(session_id):
    return os.path.join(state_root(), "pending-%s.json" % digest(session_id)[:32])


def _watch(type, key, session_id, repeat, origin, now):
    tool, pattern = repeat.get("tool"), repeat.get("input")
    if not (isinstance(tool, str) and isinstance(pattern, str)):
        return
    entry = {"type": clean_key(type), "key": key, "t": round(now, 3), "origin": origin or "",
             "tool": tool[:MAX_PATTERN_CHARS], "input": pattern[:MAX_PATTERN_CHARS], "calls": [], "r": None}

    def add(entries):
        entries[entry["type"] + "/" + key] = entry
        return []

    update_session(session_id, add)
    if _common().state.prune_due(state_root(), now):
        _prune(now, 2 * settings()["pending_seconds"])


def _prune(now, idle):
    """Delete session files untouched for ``idle`` seconds, and stray temporary files."""
    try:
        entries = list(os.scandir(state_root()))
    except OSError:
        return
    for entry in entries:
        if not (entry.name.startswith(("pending-", ".pending-")) or entry.name.startswith(".history.jsonl.")):
            continue
        try:
            if now - entry.stat().st_mtime >= max(idle, 60.0):
                os.unlink(entry.path)
        except OSError:
            pass


def awaits_reaction(session_id, origin=None, now=None):
    """Whether the session has an advisory still waiting for a reaction (read without the
    lock: session files are replaced whole, so a reader sees one version or the next).
    With ``origin`` (the digest of the event at hand): waiting for *that* event, which is
    never a repeat of the advisory it showed nor counted twice, unless the advisory expired."""
    data = _common().read_json(session_path(session_id))
    entries = data.get("entries") if isinstance(data, dict) and data.get("version") == VERSION else None
    if not isinstance(entries, dict):
        return False
    waiting = [entry for entry in entries.values() if isinstance(entry, dict) and entry.get("r") is None]
    if origin is None or not waiting:
        return bool(waiting)
    now = time.time() if now is None else now
    limit = settings()["pending_seconds"]
    for entry in waiting:
        calls = entry.get("calls")
        if now - _number(entry.get("t")) > limit or not isinstance(calls, list):
            return True
        if origin != entry.get("origin") and origin not in calls:
            return True
    return False


def update_session(session_id, change):
    """Run ``change(entries)`` on the session's watch entries under the lock and write them
    back atomically; ``change`` returns the reactions to record: [(type, key, reaction)].
    Those are appended to the history once the session file is written."""
    import json  # only here: a prompt event without a watched session never needs it

    common = _common()
    path = session_path(session_id)
    # Short: a reaction is best-effort, and many dispatchers of one session wait on this lock.
    with common.file_lock(os.path.join(state_root(), ".session.lock"), timeout=LOCK_TIMEOUT):
        data = common.read_json(path)
        entries = data.get("entries") if isinstance(data, dict) and data.get("version") == VERSION else None
        entries = {k: v for k, v in (entries or {}).items() if isinstance(v, dict)}
        before = json.dumps(entries, sort_keys=True)
        reactions = change(entries) or []
        if len(entries) > MAX_SESSION_ENTRIES:
            entries = dict(sorted(entries.items(), key=lambda item: _number(item[1].get("t")))[-MAX_SESSION_ENTRIES:])
        if json.dumps(entries, sort_keys=True) != before:
            common.atomic_write_json(path, {"version": VERSION, "entries": entries})
    now = time.time()
    if reactions:
        _append([_record("reaction", type, key, session_id, now, r=r) for type, key, r in reactions], settings())
    return reactions


def _number(value):
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


# ---------------------------------------------------------------- paths and helpers


def state_root():
    return os.path.join(_common().state_dir(), NAMESPACE)


def history_path():
    return os.path.join(state_root(), HISTORY)


def _common():
    """hooks/_common, loaded by path: this module may run in a dispatcher thread after
    the dispatcher has restored sys.path and evicted ``_common``."""
    return _LOADED.get("_common") or _load("_common", os.path.join(_HOOKS, "_common", "__init__.py"))


def _ledger():
    return _LOADED.get("_common.ledger") or _load("_common.ledger", os.path.join(_HOOKS, "_common", "ledger.py"))


def _load(name, path):
    module = _LOADED.get(name)
    if module is None:
        try:  # the interpreter's own frozen import machinery: no importlib import
            from _frozen_importlib import module_from_spec
            from _frozen_importlib_external import spec_from_file_location
        except ImportError:
            from importlib._bootstrap import module_from_spec
            from importlib._bootstrap_external import spec_from_file_location

        spec = spec_from_file_location(name, path)
        module = module_from_spec(spec)
        spec.loader.exec_module(module)
        module = _LOADED.setdefault(name, module)
    return module
