"""Trace lines from outcome records: one per row, in manifest order, never any payload content.

    hookmux: [0] contraindication/check  selected 2.1ms ok, emitted 412 chars
    hookmux: [1] style/check  skipped: matcher does not match tool
    hookmux: [2] slow/check  selected 1000.3ms timeout (output dropped)

Imported only when tracing is on; it reads what the engine returned and changes nothing.
"""


def lines(outcomes):
    return [line(outcome) for outcome in outcomes]


def line(outcome):
    label = outcome.row.label()
    if not outcome.selected:
        return "%s  skipped: %s" % (label, outcome.why_not)
    if not outcome.ran:
        return "%s  selected, not run: %s" % (label, outcome.detail)
    head = "%s  selected %.1fms" % (label, outcome.elapsed_ms)
    if outcome.kind == "timeout":
        return "%s timeout (output dropped)" % head
    size = sum(map(len, outcome.contexts))
    if outcome.contexts and not outcome.used:
        return "%s %s, emitted %d chars but emits=false: dropped%s" % (head, outcome.detail, size, block_note(outcome))
    result = "emitted %d chars" % size if outcome.contexts else "silent"
    return "%s %s, %s%s" % (head, outcome.detail, result, block_note(outcome))


BLOCK_NOTE = ", tried to block: the dispatcher only advises"


def block_note(outcome):
    """A row that exits 2 or prints a block loses it in the dispatcher: never silently."""
    if outcome.detail in ("exit code 2", "returned 2"):
        return BLOCK_NOTE
    from _common.event import loads

    for text in outcome.output.splitlines():
        text = text.strip()
        if not text.startswith("{"):
            continue
        try:
            obj = loads(text)
        except (ValueError, RecursionError):
            continue
        nested = obj.get("hookSpecificOutput") if isinstance(obj, dict) else None
        for part in (obj, nested) if isinstance(obj, dict) else ():
            if isinstance(part, dict) and ("permissionDecision" in part or part.get("decision") == "block"
                                           or part.get("continue") is False):
                return BLOCK_NOTE
    return ""
