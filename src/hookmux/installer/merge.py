"""Put hookmux's entries into a host's ``hooks`` object and take them out again.

Entries are found by command content (``commands.ours``). An existing entry is updated in
place; a missing one is appended at the end of its event's list. Duplicates and entries no
longer wanted are removed. A container (a Claude matcher group, an event list, ``hooks``)
that becomes empty because hookmux removed its entries is removed too, unless the install
record says it existed before hookmux came (``created`` lists what hookmux made; ``None``
means there is no record). Everything else keeps its keys, values and order.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from hookmux.installer import commands
from hookmux.installer.entries import Entry
from hookmux.installer.jsonfile import JsonFileError


@dataclass(frozen=True)
class Dialect:
    name: str
    command_key: str
    timeout_key: str
    grouped: bool  # Claude: event -> [matcher group {matcher, hooks: [...]}]; Copilot: event -> [entry]
    versioned: bool  # the file carries "version": 1


CLAUDE = Dialect("claude", "command", "timeout", grouped=True, versioned=False)
COPILOT = Dialect("copilot", "bash", "timeoutSec", grouped=False, versioned=True)
CURSOR = Dialect("cursor", "command", "timeout", grouped=False, versioned=True)  # ~/.cursor/hooks.json


@dataclass
class Slot:
    event: str
    container: list  # the list that holds ``hook``
    hook: dict
    group: dict | None  # the Claude matcher group around ``container``


def _remove_identical(items: list, item) -> None:
    for index, candidate in enumerate(items):
        if candidate is item:
            del items[index]
            return


def _set_matcher(obj: dict, matcher: str | None) -> None:
    if matcher is None:
        obj.pop("matcher", None)
    else:
        obj["matcher"] = matcher


def _entries(data: dict, dialect: Dialect):
    """(event, containing list, hook dict, Claude group or None) for every hook entry."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return
    for event, items in hooks.items():
        if not isinstance(items, list):
            continue
        if dialect.grouped:
            holders = [(g, g["hooks"]) for g in items if isinstance(g, dict) and isinstance(g.get("hooks"), list)]
        else:
            holders = [(None, items)]
        for group, container in holders:
            for hook in container:
                if isinstance(hook, dict):
                    yield event, container, hook, group


entries_of = _entries


def text(hook: dict, dialect: Dialect):
    """What identifies an entry: its command, or the URL of an HTTP hook (``install --serve``)."""
    if hook.get("type") == "http" and dialect.grouped:
        return hook.get("url")
    return hook.get(dialect.command_key)


def find(data: dict, target: str, dialect: Dialect) -> list[tuple[Slot, commands.HookmuxCommand]]:
    """Every hookmux entry of ``target`` in ``data``, in file order."""
    out = []
    for event, container, hook, group in _entries(data, dialect):
        parsed = commands.ours(text(hook, dialect), target)
        if parsed:
            out.append((Slot(event, container, hook, group), parsed))
    return out


def find_any(data: dict, dialect: Dialect) -> list[tuple[str, dict, commands.HookmuxCommand]]:
    """Every hookmux-shaped entry, whatever its target: (event, hook, parsed)."""
    out = []
    for event, _, hook, _ in _entries(data, dialect):
        parsed = commands.parse(text(hook, dialect))
        if parsed:
            out.append((event, hook, parsed))
    return out


def hookmux_only(items: object, dialect: Dialect) -> bool:
    """An event's list that is empty or holds only hookmux entries (of any target)."""
    if not isinstance(items, list):
        return False
    for item in items:
        hooks = item.get("hooks") if dialect.grouped and isinstance(item, dict) else [item]
        if not isinstance(hooks, list) or not all(
                isinstance(h, dict) and commands.parse(text(h, dialect)) for h in hooks):
            return False
    return True


def hookmux_only_file(data: dict, dialect: Dialect) -> bool:
    """Nothing in ``data`` but hookmux entries (and the Copilot version key)."""
    rest = {k: v for k, v in data.items() if not (k == "version" and dialect.versioned)}
    hooks = rest.pop("hooks", {})
    return not rest and isinstance(hooks, dict) and bool(hooks) and all(
        hookmux_only(items, dialect) for items in hooks.values())


def _new_hook(entry: Entry, dialect: Dialect) -> dict:
    if entry.url:
        return {"type": "http", "url": entry.url, "timeout": entry.timeout}
    hook = {"type": "command"}
    if not dialect.grouped and entry.matcher is not None:
        hook["matcher"] = entry.matcher
    hook[dialect.command_key] = entry.command
    hook[dialect.timeout_key] = entry.timeout
    return hook


def _set_kind(hook: dict, entry: Entry, dialect: Dialect, options) -> None:
    """Turn an entry into a command or an HTTP hook in place (``install`` <-> ``install --serve``)."""
    if entry.url:
        hook.pop(dialect.command_key, None)
        hook["type"], hook["url"] = "http", entry.url
        return
    hook.pop("url", None)
    hook["type"] = "command"
    hook[dialect.command_key] = entry.command_with(options)


WAS_NULL = "hooks=null"  # a "created" marker: the file said "hooks": null before hookmux came


def _present(data: dict, key: str) -> bool:
    if key in ("hooks", "version"):
        return key in data
    if key == WAS_NULL:
        return isinstance(data.get("hooks"), dict)
    event = key.split(".", 1)[1]
    return isinstance(data.get("hooks"), dict) and event in data["hooks"]


def merge(data: dict, entries: list[Entry], target: str, dialect: Dialect,
          created: set[str] | None = None, path: str = "", sweep: bool = False) -> tuple[dict, list[str]]:
    """``data`` with exactly ``entries`` as hookmux's entries for ``target`` (none: uninstall).
    ``sweep`` also removes every other entry naming one of the target's scripts (uninstall).

    Returns the new data and the containers hookmux made that are still there.
    """
    data = copy.deepcopy(data)
    made = set(created or ())
    hooks = _hooks_object(data, entries, dialect, made, path)
    if hooks is None:
        return data, sorted(k for k in made if _present(data, k))
    if entries:
        _claim_hookmux_only(hooks, dialect, made)
    removed = _place(data, hooks, entries, target, dialect, made)
    if sweep:
        removed += _sweep(data, target, dialect)
    _drop_emptied(data, hooks, removed, dialect, lambda key: created is None or key in created or key in made,
                  WAS_NULL in (created or ()) or WAS_NULL in made)
    return data, sorted(k for k in made if _present(data, k))


def _hooks_object(data: dict, entries: list[Entry], dialect: Dialect, made: set[str], path: str) -> dict | None:
    """``data["hooks"]``, made when entries are wanted and there is none; None: none, none wanted."""
    hooks = data.get("hooks")
    if hooks is None and entries:
        if dialect.versioned and "version" not in data:
            data["version"] = 1
            made.add("version")
        if "hooks" in data:
            made.add(WAS_NULL)  # {"hooks": null}: uninstall puts the null back
        hooks = data["hooks"] = {}
        made.add("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise JsonFileError(f'{path}: "hooks" is not an object; hookmux will not edit it')
    if hooks is None:
        return None
    for entry in entries:
        if entry.event in hooks and not isinstance(hooks[entry.event], list):
            raise JsonFileError(f'{path}: "hooks.{entry.event}" is not a list; hookmux will not edit it')
    return hooks


def _claim_hookmux_only(hooks: dict, dialect: Dialect, made: set[str]) -> None:
    """A container holding nothing but hookmux entries (of another install in this file) is
    hookmux's too: the last uninstall removes it instead of leaving "PreToolUse": []."""
    listed = [event for event, items in hooks.items() if hookmux_only(items, dialect)]
    made.update(f"hooks.{event}" for event in listed)
    if hooks and len(listed) == len(hooks):
        made.add("hooks")


def _place(data: dict, hooks: dict, entries: list[Entry], target: str, dialect: Dialect,
           made: set[str]) -> list[Slot]:
    """Each wanted entry updated in the first slot holding it (or added); every other slot of
    the target's taken out. Returns the slots taken out."""
    found: dict[tuple[str, str], list[tuple[Slot, commands.HookmuxCommand]]] = {}
    for slot, parsed in find(data, target, dialect):
        found.setdefault((slot.event, parsed.role), []).append((slot, parsed))
    removed: list[Slot] = []
    for entry in entries:
        keep = _keep_one(found.pop((entry.event, entry.role), []), entry, dialect, removed)
        if keep is not None:
            _update(keep[0], entry, dialect, keep[1].options)
        else:
            _add(hooks, entry, dialect, made)
    for slots in found.values():
        for slot, _ in slots:
            _remove_identical(slot.container, slot.hook)
            removed.append(slot)
    return removed


def _keep_one(slots: list, entry: Entry, dialect: Dialect, removed: list[Slot]):
    """The (slot, parsed) to keep for ``entry``: the first alone in its group or under the
    entry's matcher (any, for an ungrouped dialect); the others are taken out."""
    keep = None
    for slot, parsed in slots:
        alone = len(slot.container) == 1
        if keep is None and (not dialect.grouped or alone or slot.group.get("matcher") == entry.matcher):
            keep = (slot, parsed)
        else:
            _remove_identical(slot.container, slot.hook)
            removed.append(slot)
    return keep


def _update(keep: Slot, entry: Entry, dialect: Dialect, options) -> None:
    _set_kind(keep.hook, entry, dialect, options)
    keep.hook[dialect.timeout_key] = entry.timeout
    if not dialect.grouped:
        _set_matcher(keep.hook, entry.matcher)
    elif len(keep.container) == 1:
        _set_matcher(keep.group, entry.matcher)


def _add(hooks: dict, entry: Entry, dialect: Dialect, made: set[str]) -> None:
    if entry.event not in hooks:
        hooks[entry.event] = []
        made.add(f"hooks.{entry.event}")
    hook = _new_hook(entry, dialect)
    if dialect.grouped:
        group = {} if entry.matcher is None else {"matcher": entry.matcher}
        group["hooks"] = [hook]
        hooks[entry.event].append(group)
    else:
        hooks[entry.event].append(hook)


def _sweep(data: dict, target: str, dialect: Dialect) -> list[Slot]:
    """Every other entry naming one of the target's scripts, taken out (uninstall)."""
    removed = []
    for event, container, hook, group in list(_entries(data, dialect)):
        if commands.references(text(hook, dialect), target):
            _remove_identical(container, hook)
            removed.append(Slot(event, container, hook, group))
    return removed


def _drop_emptied(data: dict, hooks: dict, removed: list[Slot], dialect: Dialect, ours_to_drop,
                  was_null: bool) -> None:
    """Containers the removals left empty go, when hookmux made them (``ours_to_drop``);
    ``hooks`` itself too, back to null when it was null (``was_null``)."""
    emptied_events = set()
    for slot in removed:
        if dialect.grouped:
            if not slot.container and isinstance(hooks.get(slot.event), list):
                _remove_identical(hooks[slot.event], slot.group)
                emptied_events.add(slot.event)
        else:
            emptied_events.add(slot.event)
    dropped_event = False
    for event in emptied_events:
        if hooks.get(event) == [] and ours_to_drop(f"hooks.{event}"):
            del hooks[event]
            dropped_event = True
    if dropped_event and hooks == {} and ours_to_drop("hooks"):
        if was_null:
            data["hooks"] = None
        else:
            del data["hooks"]
