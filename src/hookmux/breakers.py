"""The dispatcher's circuit breakers as the CLI shows them (``status``, ``log``, ``doctor``).

The state is the runtime's (``hooks/_common/breaker.py``, loaded through ``resources.runtime``):
one small file per hooks tree in the state folder; this module only reads and words it.
"""
from __future__ import annotations

from hookmux import resources


def of_tree(hooks_root: str) -> list[dict]:
    """The rows of one hooks tree with a failure count (``open``: skipped now)."""
    return resources.runtime("breaker").entries_of(hooks_root)


def everywhere() -> list[dict]:
    """Every such row of every hooks tree with a breaker file in this state folder."""
    trees = resources.runtime("breaker").all_trees()
    return [{"hooks_root": root, **entry} for root, entries in sorted(trees.items()) for entry in entries]


def where(entry: dict) -> str:
    return f"{entry['event']} [{entry['index']}] {entry['name']}"


def problem(entry: dict) -> str | None:
    """What an open breaker means for the user and how to end it; None when it is not open."""
    if not entry["open"]:
        return None
    return (f"circuit breaker open for {where(entry)} ({entry['script']}): it timed out or crashed "
            f"{entry['failures']} calls in a row and is skipped for {entry['left_s']:.0f} s more; "
            "fix the check (`hookmux log` shows its outcomes, `hookmux try` runs it) - an edit of its "
            "script re-arms it at once")


def render(entries: list[dict]) -> list[str]:
    if not entries:
        return []
    lines = ["circuit breakers (a row that keeps timing out or crashing is skipped for a while):"]
    for entry in entries:
        if entry["open"]:
            state = (f"OPEN: skipped for {entry['left_s']:.0f} s more ({entry['failures']} failures in a row, "
                     f"cool-down {entry['cooldown_s']:.0f} s)")
        elif entry["script_changed"]:
            state = "re-armed: its script changed since it failed"
        elif entry.get("retry"):
            state = f"cool-down over: the next call runs it once more ({entry['failures']} failures in a row)"
        else:
            state = f"closed, {entry['failures']} failure(s) in a row"
        lines.append(f"  {where(entry):<48} {state}")
    return lines
