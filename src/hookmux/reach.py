"""Which manifest rows the host's settings matcher lets the dispatcher see.

The host starts the dispatcher only for tool calls its settings matcher selects; a row whose
own matcher selects none of those tools never runs. The matcher rules themselves, and how to
widen a settings matcher, are ``matchers``'.
"""
from __future__ import annotations

from hookmux import matchers


def reaches(settings_matcher: str | None, row: dict) -> bool:
    """Does the row run for at least one known tool the settings matcher lets through?"""
    matcher = row.get("matcher") if isinstance(row, dict) else None
    if matcher is None:
        return True
    return any(matchers.settings_catches(settings_matcher, tool) for tool in matchers.tools_of(matcher))


def unreachable(event: str, spec: dict) -> list[tuple[int, dict]]:
    """(index, row) of the event's rows that the settings matcher keeps from running."""
    if event not in matchers.TOOL_EVENTS or not isinstance(spec, dict):
        return []
    rows = spec.get("checks") if isinstance(spec.get("checks"), list) else []
    return [(i, row) for i, row in enumerate(rows)
            if isinstance(row, dict) and matchers.tools_of(row.get("matcher"))
            and not reaches(spec.get("settings_matcher"), row)]


def describe(event: str, index: int, row: dict) -> str:
    return f"events.{event}.checks[{index}](name={row.get('name')!r})"
