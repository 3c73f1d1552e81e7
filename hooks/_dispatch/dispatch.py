#!/usr/bin/env python3
"""hookmux dispatcher: one process per hook event runs the manifest's checks.

    python3 -S dispatch.py [--manifest PATH] [--hooks-root DIR] [--trace] [EVENT] < payload

``run(event, stdin_text, *, manifest=None, hooks_root=None)`` returns exactly what
the entry point prints. The work is in ``dispatch_core.py``: Python compiles the
script it runs on every start but loads an imported module from its cached
bytecode, so this file stays small.
"""
try:
    from dispatch_core import COPILOT_EVENTS, COPILOT_TOOLS, MAX_CONTEXT_CHARS, main, run  # noqa: F401
except BaseException:
    if __name__ != "__main__":
        raise
    import os

    os._exit(0)  # fail open: a damaged hooks tree must not block the host

if __name__ == "__main__":
    main()
