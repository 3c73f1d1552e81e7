"""Which manifest rows the host's settings matcher lets the dispatcher see, and how to widen it.

The host starts the dispatcher only for tool calls its settings matcher selects; a row whose
own matcher selects none of those tools never runs. ``widen`` adds exactly the tool names a
row needs, in both spellings (Copilot matches a Claude-format settings file against its own
lower-case names).
"""
from __future__ import annotations

import re

from hookmux import validation, wiring


def _pattern(matcher):
    try:
        return re.compile(matcher)
    except (re.error, TypeError):
        return None


def tools_of(row_matcher: str) -> list[str]:
    """The known tool names (as the dispatcher sees them) a row's matcher selects."""
    pattern = _pattern(row_matcher)
    return [t for t in validation.KNOWN_TOOLS if pattern and pattern.search(t)]


def reaches(settings_matcher: str | None, row: dict) -> bool:
    """Does the row run for at least one known tool the settings matcher lets through?"""
    matcher = row.get("matcher") if isinstance(row, dict) else None
    if matcher is None:
        return True
    return any(validation.settings_matcher_catches(settings_matcher, tool) for tool in tools_of(matcher))


def unreachable(event: str, spec: dict) -> list[tuple[int, dict]]:
    """(index, row) of the event's rows that the settings matcher keeps from running."""
    if event not in validation.TOOL_EVENTS or not isinstance(spec, dict):
        return []
    rows = spec.get("checks") if isinstance(spec.get("checks"), list) else []
    return [(i, row) for i, row in enumerate(rows)
            if isinstance(row, dict) and tools_of(row.get("matcher")) and not reaches(spec.get("settings_matcher"), row)]


def widen(settings_matcher: str | None, rows: list[dict]) -> str | None:
    """``settings_matcher`` extended by every known tool name the rows select and it misses;
    None when there is none."""
    if settings_matcher in (None, "", "*"):
        return None
    raw_of = {}
    for raw, canonical in wiring.COPILOT_TOOLS.items():
        raw_of.setdefault(canonical, []).append(raw)
    extra: list[str] = []
    for row in rows:
        for tool in tools_of(row.get("matcher")):
            for name in [tool, *raw_of.get(tool, [])]:
                if name not in extra and not validation.settings_matcher_catches(settings_matcher, name):
                    extra.append(name)
    return "|".join([settings_matcher, *extra]) if extra else None


def describe(event: str, index: int, row: dict) -> str:
    return f"events.{event}.checks[{index}](name={row.get('name')!r})"
