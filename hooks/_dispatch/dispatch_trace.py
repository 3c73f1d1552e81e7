"""Trace lines from outcome records: one per row, in manifest order, never any payload content.

    hookmux: [0] contraindication/check  selected 2.1ms ok, emitted 412 chars
    hookmux: [1] style/check  skipped: matcher does not match tool
    hookmux: [2] slow/check  selected 1000.3ms timeout (output dropped)
    hookmux: [3] flaky/check  skipped: breaker open: 3 failures in a row, 52 s of 60 s cool-down left

Imported only when tracing is on; it reads what the engine returned and changes nothing.
"""


def lines(outcomes):
    return [line(outcome) for outcome in outcomes]


def line(outcome):
    label = outcome.row.label()
    if not outcome.selected:
        return "%s  skipped: %s" % (label, outcome.why_not)
    if outcome.kind == "breaker":
        return "%s  skipped: %s" % (label, outcome.detail)
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


_BLOCK_KEYS = ('"permissionDecision":', '"permissionDecision" :', '"decision": "block"', '"decision":"block"',
               '"continue": false', '"continue":false')


def block_note(outcome):
    """A row that exits 2 or prints a block loses it in the dispatcher: never silently.

    Plain substring tests, no parsing and no import: the checks have run, and may have
    emptied sys.path or lowered the recursion limit. Inside a JSON string these keys would
    be escaped (``\\"permissionDecision\\"``), so advice that merely mentions them is not a block."""
    try:
        if outcome.detail in ("exit code 2", "returned 2"):
            return BLOCK_NOTE
        output = outcome.output
        if any(key in output for key in _BLOCK_KEYS):
            return BLOCK_NOTE
    except Exception:
        pass
    return ""
