#!/usr/bin/env python3
"""hookmux dispatcher: one process per hook event runs the manifest's checks.

    python3 -S dispatch.py [--manifest PATH] [--hooks-root DIR] [--trace] [EVENT] < payload

``run(event, stdin_text, *, manifest=None, hooks_root=None)`` returns exactly what
the entry point prints. The work is in modules beside it (Python compiles the
script it runs on every start but loads an imported module from its cached
bytecode, so this file stays small): ``dispatch_core`` the engine,
``dispatch_runner`` the runners, ``dispatch_trace`` the trace, and
``dispatch_transport`` the process (fds, argv, watchdog, exit).
"""
try:
    from dispatch_core import COPILOT_EVENTS, COPILOT_TOOLS, MAX_CONTEXT_CHARS, run  # noqa: F401
    from dispatch_transport import main
except BaseException:
    if __name__ != "__main__":
        raise
    import os

    os._exit(0)  # fail open: a damaged hooks tree must not block the host

if __name__ == "__main__":
    main()
